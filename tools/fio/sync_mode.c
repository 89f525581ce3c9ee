/* SPDX-License-Identifier: MIT */
/* sync_mode.c - hipfile_mode=sync (hipFileRead / hipFileWrite) and rocm_io=posix (pread / pwrite
 * into fio's pinned buffer and a copy to or from the GPU), both completing in ->queue. */
#include <unistd.h>

#include "hipfile_fio.h"

int hf_flush(struct io_u* io_u) {
  int fd = io_u->file->fd;
  int ret = io_u->ddir == DDIR_DATASYNC ? fdatasync(fd) : fsync(fd);
  return ret == 0 ? 0 : -errno;
}

static ssize_t hf_read(struct thread_data* td, struct io_u* io_u, struct hf_unit* u) {
  struct hf_job* job = td->io_ops_data;
  size_t len = io_u->xfer_buflen;
  if (job->io == HF_IO_POSIX) {
    ssize_t r = pread(io_u->file->fd, io_u->xfer_buf, len, (off_t)io_u->offset);
    if (r < 0) return -errno;
    hipError_t h =
        r > 0 ? hipMemcpy(u->gpu, io_u->xfer_buf, (size_t)r, hipMemcpyHostToDevice) : hipSuccess;
    return h == hipSuccess ? r : -hf_hip_fail("hipMemcpy (to the GPU)", h);
  }
  ssize_t r = hf_sync_result(
      "hipFileRead", hipFileRead(hf_handle(io_u->file), u->gpu, len, (hoff_t)io_u->offset, 0));
  if (r > 0 && hf_verifies(td)) {
    hipError_t h = hipMemcpy(io_u->xfer_buf, u->gpu, (size_t)r, hipMemcpyDeviceToHost);
    if (h != hipSuccess) return -hf_hip_fail("hipMemcpy (to fio's buffer)", h);
  }
  return r;
}

static ssize_t hf_write(struct thread_data* td, struct io_u* io_u, struct hf_unit* u) {
  struct hf_job* job = td->io_ops_data;
  size_t len = io_u->xfer_buflen;
  hipError_t h = hipMemcpy(u->gpu, io_u->xfer_buf, len, hipMemcpyHostToDevice);
  if (h != hipSuccess) return -hf_hip_fail("hipMemcpy (fio's data to the GPU)", h);
  if (job->io == HF_IO_POSIX) {
    h = hipMemcpy(io_u->xfer_buf, u->gpu, len, hipMemcpyDeviceToHost);
    if (h != hipSuccess) return -hf_hip_fail("hipMemcpy (from the GPU)", h);
    ssize_t r = pwrite(io_u->file->fd, io_u->xfer_buf, len, (off_t)io_u->offset);
    return r < 0 ? -errno : r;
  }
  return hf_sync_result("hipFileWrite",
                        hipFileWrite(hf_handle(io_u->file), u->gpu, len, (hoff_t)io_u->offset, 0));
}

enum fio_q_status hf_queue_sync(struct thread_data* td, struct io_u* io_u) {
  struct hf_unit* u = io_u->engine_data;
  switch (io_u->ddir) {
    case DDIR_READ:
      hf_settle(io_u, hf_read(td, io_u, u), "hipFileRead");
      break;
    case DDIR_WRITE:
      hf_settle(io_u, hf_write(td, io_u, u), "hipFileWrite");
      break;
    case DDIR_SYNC:
    case DDIR_DATASYNC:
      io_u->error = (unsigned int)-hf_flush(io_u);
      break;
    default:
      io_u->error = EINVAL; /* trims: the hipFile API has none */
      break;
  }
  return FIO_Q_COMPLETED;
}
