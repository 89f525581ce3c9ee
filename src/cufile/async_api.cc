// SPDX-License-Identifier: MIT
// cuFile's stream-ordered calls over hipFile's: cuFileReadAsync, cuFileWriteAsync,
// cuFileStreamRegister, cuFileStreamDeregister. A CUstream is a hipStream_t: on CUDA the library's
// hipStream_t is the CUstream itself (docs/hip-runtime-subset.md), on the CPU runtime a stream of
// its own.
#include <cufile/cufile.h>
#include <hipfile.h>

#include "cufile/error_map.h"

using hipfile::cufile::ToCuFile;

namespace {

static_assert(CU_FILE_STREAM_FIXED_BUF_OFFSET == HIPFILE_STREAM_FIXED_BUF_OFFSET);
static_assert(CU_FILE_STREAM_FIXED_FILE_OFFSET == HIPFILE_STREAM_FIXED_FILE_OFFSET);
static_assert(CU_FILE_STREAM_FIXED_FILE_SIZE == HIPFILE_STREAM_FIXED_FILE_SIZE);
static_assert(CU_FILE_STREAM_PAGE_ALIGNED_INPUTS == HIPFILE_STREAM_PAGE_ALIGNED_INPUTS);

hipStream_t HipStream(CUstream stream) { return reinterpret_cast<hipStream_t>(stream); }

}  // namespace

extern "C" {

// *bytes_read_p / *bytes_written_p are written by the library when the stream reaches the
// operation, in hipFile's encoding: bytes, -errno, -op error or -hipFileHipDriverError. These are
// cuFile's values too (hipFile never reports hipFileIOMaxError, the one op error numbered
// differently; error_map.h), so the result needs no translation the stream would have to wait for.
CUFILE_API CUfileError_t cuFileReadAsync(CUfileHandle_t fh, void* bufPtr_base, size_t* size_p,
                                         off_t* file_offset_p, off_t* bufPtr_offset_p,
                                         ssize_t* bytes_read_p, CUstream stream) {
  return ToCuFile(hipFileReadAsync(fh, bufPtr_base, size_p, file_offset_p, bufPtr_offset_p,
                                   bytes_read_p, HipStream(stream)));
}

CUFILE_API CUfileError_t cuFileWriteAsync(CUfileHandle_t fh, void* bufPtr_base, size_t* size_p,
                                          off_t* file_offset_p, off_t* bufPtr_offset_p,
                                          ssize_t* bytes_written_p, CUstream stream) {
  return ToCuFile(hipFileWriteAsync(fh, bufPtr_base, size_p, file_offset_p, bufPtr_offset_p,
                                    bytes_written_p, HipStream(stream)));
}

CUFILE_API CUfileError_t cuFileStreamRegister(CUstream stream, unsigned flags) {
  return ToCuFile(hipFileStreamRegister(HipStream(stream), flags));
}

CUFILE_API CUfileError_t cuFileStreamDeregister(CUstream stream) {
  return ToCuFile(hipFileStreamDeregister(HipStream(stream)));
}

}  // extern "C"
