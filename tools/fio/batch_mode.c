/* SPDX-License-Identifier: MIT */
/* batch_mode.c - hipfile_mode=batch: ->queue adds an entry (a write's data copied to the GPU
 * first), ->commit submits what is queued in one hipFileBatchIOSubmit, ->getevents takes events
 * from hipFileBatchIOGetStatus (a read's data copied back when fio verifies). The batch holds
 * iodepth entries. */
#include "hipfile_fio.h"

enum fio_q_status hf_queue_batch(struct thread_data* td, struct io_u* io_u) {
  struct hf_job* job = td->io_ops_data;
  struct hf_unit* u = io_u->engine_data;
  if (ddir_sync(io_u->ddir)) {
    /* A flush waits for every write before it: fio reaps them, then queues it again. */
    if (job->nr_pending + job->nr_submitted + job->nr_refused > 0) return FIO_Q_BUSY;
    return hf_queue_sync(td, io_u);
  }
  if (!ddir_rw(io_u->ddir)) {
    io_u->error = EINVAL;
    return FIO_Q_COMPLETED;
  }
  if (job->nr_pending + job->nr_submitted + job->nr_refused == job->depth) return FIO_Q_BUSY;
  size_t len = io_u->xfer_buflen;
  if (io_u->ddir == DDIR_WRITE) {
    hipError_t h = hipMemcpy(u->gpu, io_u->xfer_buf, len, hipMemcpyHostToDevice);
    if (h != hipSuccess) {
      io_u->error = (unsigned int)hf_hip_fail("hipMemcpy (fio's data to the GPU)", h);
      return FIO_Q_COMPLETED;
    }
  }
  hipFileIOParams_t* p = &job->pending[job->nr_pending++];
  *p = (hipFileIOParams_t){
      .mode = hipFileBatch,
      .u.batch = {.devPtr_base = u->gpu,
                  .file_offset = (int64_t)io_u->offset,
                  .devPtr_offset = 0,
                  .size = len},
      .fh = hf_handle(io_u->file),
      .opcode = io_u->ddir == DDIR_WRITE ? hipFileBatchWrite : hipFileBatchRead,
      .cookie = io_u,
  };
  return FIO_Q_QUEUED;
}

int hf_commit_batch(struct thread_data* td) {
  struct hf_job* job = td->io_ops_data;
  if (job->nr_pending == 0) return 0;
  hipFileError_t e = hipFileBatchIOSubmit(job->batch, job->nr_pending, job->pending, 0);
  if (e.err == hipFileSuccess) {
    job->nr_submitted += job->nr_pending;
    io_u_mark_submit(td, job->nr_pending);
  } else {
    /* Nothing of it started: each entry completes with the error at the next reaping, so fio
     * accounts for every unit it queued. */
    int err = hf_fail("hipFileBatchIOSubmit", e);
    for (unsigned int i = 0; i < job->nr_pending; i++) {
      struct io_u* io_u = job->pending[i].cookie;
      io_u->error = (unsigned int)err;
      job->refused[job->nr_refused++] = io_u;
    }
  }
  job->nr_pending = 0;
  return 0;
}

static void hf_reap(struct thread_data* td, const hipFileIOEvents_t* ev) {
  struct io_u* io_u = ev->cookie;
  const char* call = io_u->ddir == DDIR_WRITE ? "batch write" : "batch read";
  ssize_t ret = (ssize_t)ev->ret;
  if (ev->status != hipFileComplete && ret >= 0) ret = -ECANCELED;
  hf_settle(io_u, ret, call);
  if (ret > 0 && io_u->ddir == DDIR_READ && hf_verifies(td)) {
    struct hf_unit* u = io_u->engine_data;
    hipError_t h = hipMemcpy(io_u->xfer_buf, u->gpu, (size_t)ret, hipMemcpyDeviceToHost);
    if (h != hipSuccess) io_u->error = (unsigned int)hf_hip_fail("hipMemcpy", h);
  }
}

int hf_getevents_batch(struct thread_data* td, unsigned int min, unsigned int max,
                       const struct timespec* t) {
  struct hf_job* job = td->io_ops_data;
  while (job->nr_refused > 0 && job->nr_done < max)
    job->done[job->nr_done++] = job->refused[--job->nr_refused];
  if (job->nr_submitted == 0 || job->nr_done == max) return (int)job->nr_done;
  unsigned int room = max - job->nr_done;
  if (room > job->nr_submitted) room = job->nr_submitted;
  unsigned int want = min > job->nr_done ? min - job->nr_done : 0;
  if (want > room) want = room;
  unsigned int nr = room;
  struct timespec wait;
  struct timespec* timeout = NULL;
  if (t != NULL) {
    wait = *t;
    timeout = &wait;
  }
  hipFileError_t e = hipFileBatchIOGetStatus(job->batch, want, &nr, job->events, timeout);
  if (e.err != hipFileSuccess) return -hf_fail("hipFileBatchIOGetStatus", e);
  for (unsigned int i = 0; i < nr; i++) {
    hf_reap(td, &job->events[i]);
    job->done[job->nr_done++] = job->events[i].cookie;
  }
  job->nr_submitted -= nr;
  return (int)job->nr_done;
}

void hf_drain_batch(struct thread_data* td) {
  struct hf_job* job = td->io_ops_data;
  job->nr_pending = 0;
  job->nr_refused = 0;
  if (job->nr_submitted == 0) return;
  /* Cancel returns once no entry runs: the entries' buffers are free to go (docs/batch.md). */
  hipFileError_t e = hipFileBatchIOCancel(job->batch);
  if (e.err != hipFileSuccess) (void)hf_fail("hipFileBatchIOCancel", e);
  job->nr_submitted = 0;
}
