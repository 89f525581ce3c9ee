/* SPDX-License-Identifier: MIT */
/* errors.c - hipFile's three error channels (hipfile.h, Conventions) turned into the errno fio
 * reports, with the library's own codes named on fio's log. */
#include <hipfile_ext.h>

#include "hipfile_fio.h"

int hf_fail(const char* call, hipFileError_t e) {
  if (e.err == hipFileHipDriverError) {
    log_err("hipfile: %s: GPU runtime error %s (%d)\n", call, hipGetErrorName(e.hip_drv_err),
            (int)e.hip_drv_err);
    return e.hip_drv_err == hipErrorOutOfMemory ? ENOMEM : EIO;
  }
  log_err("hipfile: %s: %s (%d)\n", call, hipFileExtOpErrorName((int)e.err), (int)e.err);
  if (e.err == hipFileInternalError && errno != 0) return errno;
  return e.err == hipFileInvalidValue ? EINVAL : EIO;
}

int hf_hip_fail(const char* call, hipError_t h) {
  log_err("hipfile: %s: GPU runtime error %s (%d)\n", call, hipGetErrorName(h), (int)h);
  return h == hipErrorOutOfMemory ? ENOMEM : EIO;
}

ssize_t hf_sync_result(const char* call, ssize_t ret) {
  if (ret >= 0 || ret <= -HIPFILE_BASE_ERR) return ret;
  if (ret == -1) return -errno;
  log_err("hipfile: %s: GPU runtime error %s (%zd)\n", call, hipGetErrorName((hipError_t)-ret),
          -ret);
  return -EIO;
}

int hf_errno_of(const char* call, ssize_t result) {
  if (result > -HIPFILE_BASE_ERR) return (int)-result;
  log_err("hipfile: %s: %s (%zd)\n", call, hipFileExtOpErrorName((int)-result), result);
  return -result == hipFileInvalidValue ? EINVAL : EIO;
}

void hf_settle(struct io_u* io_u, ssize_t result, const char* call) {
  if (result < 0) {
    io_u->error = hf_errno_of(call, result);
    return;
  }
  io_u->error = 0;
  io_u->resid = io_u->xfer_buflen - (unsigned long long)result;
}
