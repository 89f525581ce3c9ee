// SPDX-License-Identifier: MIT
// cuFile's driver calls over hipFile's: cuFileDriverOpen/Close(_v2), cuFileUseCount,
// cuFileDriverGetProperties, cuFileDriverSet*, cuFileGetVersion.
#include <cufile/cufile.h>
#include <hipfile.h>
#include <hipfile_ext.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "cufile/announce.h"
#include "cufile/error_map.h"

using hipfile::cufile::ToCuFile;

namespace {

// The cuFile API level this library implements (include/cufile/cufile.h: that of cuFile 1.15),
// as cuFileGetVersion encodes it.
constexpr int kCuFileApiVersion = 1000 * 1 + 10 * 15;

unsigned ClampToUnsigned(uint64_t v) {
  return static_cast<unsigned>(std::min<uint64_t>(v, UINT_MAX));
}

}  // namespace

extern "C" {

CUFILE_API CUfileError_t cuFileDriverOpen(void) {
  const CUfileError_t result = ToCuFile(hipFileDriverOpen());
  if (result.err == CU_FILE_SUCCESS) hipfile::cufile::AnnounceOnce();
  return result;
}

// cufile.h maps cuFileDriverClose to cuFileDriverClose_v2; the library exports both names, as
// NVIDIA's does, for programs built against either form.
#undef cuFileDriverClose
CUFILE_API CUfileError_t cuFileDriverClose(void) { return ToCuFile(hipFileDriverClose()); }
CUFILE_API CUfileError_t cuFileDriverClose_v2(void) { return ToCuFile(hipFileDriverClose()); }

CUFILE_API long cuFileUseCount(void) { return static_cast<long>(hipFileUseCount()); }

CUFILE_API CUfileError_t cuFileDriverGetProperties(CUfileDrvProps_t* props) {
  if (props == nullptr) return ToCuFile({hipFileInvalidValue, hipSuccess});
  hipFileDriverProps_t hp{};
  const hipFileError_t status = hipFileDriverGetProperties(&hp);
  if (status.err != hipFileSuccess) return ToCuFile(status);
  *props = CUfileDrvProps_t{};
  // No GPU-direct kernel driver (nvidia-fs) is used or needed: its version reads 0.0 and no file
  // system is marked as served by it, whatever the engine can do.
  props->nvfs.major_version = 0;
  props->nvfs.minor_version = 0;
  props->nvfs.poll_thresh_size = hp.nvfs.poll_thresh_size;
  props->nvfs.max_direct_io_size = hp.nvfs.max_direct_io_size;
  props->nvfs.dstatusflags = 0;
  props->nvfs.dcontrolflags = hp.nvfs.driver_control_flags;  // bit positions agree (cufile_abi)
  props->fflags = hp.feature_flags;
  props->max_device_cache_size = ClampToUnsigned(hp.max_device_cache_size);
  props->per_buffer_cache_size = ClampToUnsigned(hp.per_buffer_cache_size);
  props->max_device_pinned_mem_size = ClampToUnsigned(hp.max_device_pinned_mem_size);
  props->max_batch_io_size = hp.max_batch_io_count;
  props->max_batch_io_timeout_msecs = hp.max_batch_io_timeout_msecs;
  return ToCuFile(status);
}

CUFILE_API CUfileError_t cuFileDriverSetPollMode(bool poll, size_t poll_threshold_size) {
  return ToCuFile(hipFileDriverSetPollMode(poll, poll_threshold_size));
}

CUFILE_API CUfileError_t cuFileDriverSetMaxDirectIOSize(size_t max_direct_io_size) {
  return ToCuFile(hipFileDriverSetMaxDirectIOSize(max_direct_io_size));
}

CUFILE_API CUfileError_t cuFileDriverSetMaxCacheSize(size_t max_cache_size) {
  return ToCuFile(hipFileDriverSetMaxCacheSize(max_cache_size));
}

CUFILE_API CUfileError_t cuFileDriverSetMaxPinnedMemSize(size_t max_pinned_size) {
  return ToCuFile(hipFileDriverSetMaxPinnedMemSize(max_pinned_size));
}

CUFILE_API CUfileError_t cuFileGetVersion(int* version) {
  if (version == nullptr) return ToCuFile({hipFileInvalidValue, hipSuccess});
  *version = kCuFileApiVersion;
  return ToCuFile({hipFileSuccess, hipSuccess});
}

}  // extern "C"
