// SPDX-License-Identifier: MIT
#include "util/exception_status.h"

#include <errno.h>

#include <new>
#include <stdexcept>
#include <system_error>

#include "util/log.h"

namespace hipfile {

Status CurrentExceptionStatus(const char* where) noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    HF_LOG(kWarn, "%s: out of memory; the call fails with ENOMEM", where);
    return Status::Errno(ENOMEM);
  } catch (const std::length_error&) {
    HF_LOG(kWarn, "%s: a container outgrew its limit; the call fails with ENOMEM", where);
    return Status::Errno(ENOMEM);
  } catch (const std::system_error& e) {
    const std::error_category& category = e.code().category();
    const bool is_errno = category == std::system_category() || category == std::generic_category();
    const int code = is_errno && e.code().value() > 0 ? e.code().value() : EAGAIN;
    HF_LOG(kWarn, "%s: system error %d (%s); the call fails", where, code, e.what());
    return Status::Errno(code);
  } catch (const std::exception& e) {
    HF_LOG(kError, "%s: unexpected exception (%s); reported as hipFileInternalError", where,
           e.what());
    return Status::Op(hipFileInternalError);
  } catch (...) {
    HF_LOG(kError, "%s: unexpected exception; reported as hipFileInternalError", where);
    return Status::Op(hipFileInternalError);
  }
}

}  // namespace hipfile
