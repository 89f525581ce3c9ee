// SPDX-License-Identifier: MIT
// Stream-ordered I/O: hipFileReadAsync / hipFileWriteAsync / hipFileStreamRegister /
// hipFileStreamDeregister, and hipFileExtReadAsyncFixed / hipFileExtWriteAsyncFixed
// (hipfile_ext.h). How operations run: docs/async.md.
#include <hipfile.h>
#include <hipfile_ext.h>

#include "api/status_map.h"
#include "core/driver.h"

using hipfile::api::ToError;
using hipfile::core::Driver;
using hipfile::core::IoDirection;

namespace {

// hipFileExtReadAsyncFixed / WriteAsyncFixed: the values live here only for the call; every one
// is fixed at submission, so none is read again.
hipFileError_t SubmitFixed(const char* entry, IoDirection direction, hipFileHandle_t fh,
                           void* buffer_base, size_t size, hoff_t file_offset, hoff_t buffer_offset,
                           ssize_t* bytes_p, hipStream_t stream) {
  return hipfile::api::GuardError(entry, [&] {
    return ToError(Driver::Global().SubmitAsync(direction, fh, buffer_base, &size, &file_offset,
                                                &buffer_offset, bytes_p, stream,
                                                hipfile::core::kAllFixed));
  });
}

}  // namespace

extern "C" {

HIPFILE_API hipFileError_t hipFileReadAsync(hipFileHandle_t fh, void* buffer_base, size_t* size_p,
                                            hoff_t* file_offset_p, hoff_t* buffer_offset_p,
                                            ssize_t* bytes_read_p, hipStream_t stream) {
  return hipfile::api::GuardError("hipFileReadAsync", [&] {
    return ToError(Driver::Global().SubmitAsync(IoDirection::kRead, fh, buffer_base, size_p,
                                                file_offset_p, buffer_offset_p, bytes_read_p,
                                                stream));
  });
}

HIPFILE_API hipFileError_t hipFileWriteAsync(hipFileHandle_t fh, void* buffer_base, size_t* size_p,
                                             hoff_t* file_offset_p, hoff_t* buffer_offset_p,
                                             ssize_t* bytes_written_p, hipStream_t stream) {
  return hipfile::api::GuardError("hipFileWriteAsync", [&] {
    return ToError(Driver::Global().SubmitAsync(IoDirection::kWrite, fh, buffer_base, size_p,
                                                file_offset_p, buffer_offset_p, bytes_written_p,
                                                stream));
  });
}

HIPFILE_API hipFileError_t hipFileExtReadAsyncFixed(hipFileHandle_t fh, void* buffer_base,
                                                    size_t size, hoff_t file_offset,
                                                    hoff_t buffer_offset, ssize_t* bytes_read_p,
                                                    hipStream_t stream) {
  return SubmitFixed("hipFileExtReadAsyncFixed", IoDirection::kRead, fh, buffer_base, size,
                     file_offset, buffer_offset, bytes_read_p, stream);
}

HIPFILE_API hipFileError_t hipFileExtWriteAsyncFixed(hipFileHandle_t fh, void* buffer_base,
                                                     size_t size, hoff_t file_offset,
                                                     hoff_t buffer_offset, ssize_t* bytes_written_p,
                                                     hipStream_t stream) {
  return SubmitFixed("hipFileExtWriteAsyncFixed", IoDirection::kWrite, fh, buffer_base, size,
                     file_offset, buffer_offset, bytes_written_p, stream);
}

HIPFILE_API hipFileError_t hipFileStreamRegister(hipStream_t stream, unsigned flags) {
  return hipfile::api::GuardError("hipFileStreamRegister", [&] {
    return ToError(Driver::Global().RegisterStream(stream, flags));
  });
}

HIPFILE_API hipFileError_t hipFileStreamDeregister(hipStream_t stream) {
  return hipfile::api::GuardError("hipFileStreamDeregister", [&] {
    return ToError(Driver::Global().DeregisterStream(stream));
  });
}

}  // extern "C"
