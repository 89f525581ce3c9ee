// SPDX-License-Identifier: MIT
// Synchronous I/O: hipFileRead / hipFileWrite.
#include <hipfile.h>
#include <hipfile_ext.h>

#include "api/status_map.h"
#include "core/driver.h"

using hipfile::api::ToSsize;
using hipfile::core::Driver;
using hipfile::core::IoDirection;

extern "C" {

HIPFILE_API ssize_t hipFileRead(hipFileHandle_t fh, void* buffer_base, size_t size,
                                hoff_t file_offset, hoff_t buffer_offset) {
  return hipfile::api::GuardSsize("hipFileRead", [&] {
    return ToSsize(Driver::Global().Read(fh, buffer_base, size, file_offset, buffer_offset));
  });
}

HIPFILE_API ssize_t hipFileWrite(hipFileHandle_t fh, const void* buffer_base, size_t size,
                                 hoff_t file_offset, hoff_t buffer_offset) {
  return hipfile::api::GuardSsize("hipFileWrite", [&] {
    return ToSsize(Driver::Global().Write(fh, buffer_base, size, file_offset, buffer_offset));
  });
}

HIPFILE_API ssize_t hipFileExtReadHost(hipFileHandle_t fh, void* buffer, size_t size,
                                       hoff_t file_offset) {
  return hipfile::api::GuardSsize("hipFileExtReadHost", [&] {
    return ToSsize(
        Driver::Global().TransferHost(IoDirection::kRead, fh, buffer, size, file_offset));
  });
}

HIPFILE_API ssize_t hipFileExtWriteHost(hipFileHandle_t fh, const void* buffer, size_t size,
                                        hoff_t file_offset) {
  return hipfile::api::GuardSsize("hipFileExtWriteHost", [&] {
    return ToSsize(
        Driver::Global().TransferHost(IoDirection::kWrite, fh, buffer, size, file_offset));
  });
}

}  // extern "C"
