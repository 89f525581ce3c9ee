// SPDX-License-Identifier: MIT
#include "util/status.h"

#include <cstring>

#include "util/errors.h"

namespace hipfile {

std::string Status::ToString() const {
  switch (kind_) {
    case Kind::kOk:
      return "ok";
    case Kind::kErrno:
      return "errno " + std::to_string(code_) + " (" + std::strerror(code_) + ")";
    case Kind::kOp:
      return std::string(OpErrorName(code_)) + " (" + OpErrorString(code_) + ")";
    case Kind::kGpu:
      return std::string(GpuErrorName(static_cast<hipError_t>(code_))) + " (" +
             GpuErrorString(static_cast<hipError_t>(code_)) + ")";
  }
  return "unknown status";
}

}  // namespace hipfile
