// SPDX-License-Identifier: MIT
// How the extension hands the C API's results to Python, in AMD's shapes: (err, hip_err) for a
// hipFileError_t, (result, extra) for hipFileRead/Write and the host forms.
#pragma once

#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <sys/types.h>

#include <cerrno>
#include <cstdint>
#include <tuple>

namespace hipfile::python {

using ErrTuple = std::tuple<int, int>;

inline ErrTuple Err(hipFileError_t e) {
  return {static_cast<int>(e.err), static_cast<int>(e.hip_drv_err)};
}

// (result, extra) of a synchronous call that returned `ret`: extra is errno when ret == -1, the
// GPU runtime's last error when ret == -hipFileHipDriverError, else 0. Read errno before anything
// else can change it.
inline std::tuple<int64_t, int> SyncResult(ssize_t ret) {
  int extra = 0;
  if (ret == -1) {
    extra = errno;
  } else if (ret == -static_cast<ssize_t>(hipFileHipDriverError)) {
    extra = static_cast<int>(hipPeekAtLastError());
  }
  return {static_cast<int64_t>(ret), extra};
}

}  // namespace hipfile::python
