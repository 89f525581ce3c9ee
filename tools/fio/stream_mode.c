/* SPDX-License-Identifier: MIT */
/* stream_mode.c - hipfile_mode=stream: each job owns one registered stream; ->queue puts the
 * copy of fio's data and hipFileWriteAsync (or hipFileReadAsync and, with verify=, the copy back)
 * on it, then the unit's event; ->getevents reaps the units whose events the stream has passed, in
 * order, and waits on the oldest when it must. Up to iodepth units are queued on the stream.
 *
 * One stream per job, not per unit: the operations of one stream run in its order anyway, and
 * hundreds of streams each blocked on an operation exhaust what the library and the GPU's hardware
 * queues share between streams (16 jobs x 16 units hung on the H200; docs/fio.md). The events
 * wait blocking (hipEventBlockingSync): a spinning wait in every job starves the library's own
 * threads. */
#include <string.h>

#include "hipfile_fio.h"

/* Waits for the stream when a unit's operation could not be queued whole, then completes the unit
 * with err. */
static enum fio_q_status hf_abandon(struct hf_job* job, struct io_u* io_u, int err) {
  (void)hipStreamSynchronize(job->stream);
  io_u->error = (unsigned int)err;
  return FIO_Q_COMPLETED;
}

enum fio_q_status hf_queue_stream(struct thread_data* td, struct io_u* io_u) {
  struct hf_job* job = td->io_ops_data;
  struct hf_unit* u = io_u->engine_data;
  if (ddir_sync(io_u->ddir)) {
    /* A flush waits for every write before it: fio reaps them, then queues it again. */
    if (job->nr_flight > 0) return FIO_Q_BUSY;
    return hf_queue_sync(td, io_u);
  }
  if (!ddir_rw(io_u->ddir)) {
    io_u->error = EINVAL;
    return FIO_Q_COMPLETED;
  }
  if (job->nr_flight == job->depth) return FIO_Q_BUSY;
  size_t len = io_u->xfer_buflen;
  u->size = len;
  u->file_offset = (hoff_t)io_u->offset;
  u->buffer_offset = 0;
  u->bytes = 0;
  hipFileHandle_t fh = hf_handle(io_u->file);
  hipError_t h;
  hipFileError_t e;
  if (io_u->ddir == DDIR_WRITE) {
    h = hipMemcpyAsync(u->gpu, io_u->xfer_buf, len, hipMemcpyHostToDevice, job->stream);
    if (h != hipSuccess) return hf_abandon(job, io_u, hf_hip_fail("hipMemcpyAsync", h));
    e = hipFileWriteAsync(fh, u->gpu, &u->size, &u->file_offset, &u->buffer_offset, &u->bytes,
                          job->stream);
    if (e.err != hipFileSuccess) return hf_abandon(job, io_u, hf_fail("hipFileWriteAsync", e));
  } else {
    e = hipFileReadAsync(fh, u->gpu, &u->size, &u->file_offset, &u->buffer_offset, &u->bytes,
                         job->stream);
    if (e.err != hipFileSuccess) return hf_abandon(job, io_u, hf_fail("hipFileReadAsync", e));
    if (hf_verifies(td)) {
      h = hipMemcpyAsync(io_u->xfer_buf, u->gpu, len, hipMemcpyDeviceToHost, job->stream);
      if (h != hipSuccess) return hf_abandon(job, io_u, hf_hip_fail("hipMemcpyAsync", h));
    }
  }
  h = hipEventRecord(u->done, job->stream);
  if (h != hipSuccess) return hf_abandon(job, io_u, hf_hip_fail("hipEventRecord", h));
  job->flight[job->nr_flight++] = io_u;
  job->unmarked++;
  return FIO_Q_QUEUED;
}

int hf_getevents_stream(struct thread_data* td, unsigned int min, unsigned int max) {
  struct hf_job* job = td->io_ops_data;
  unsigned int reaped = 0;
  for (;;) {
    while (reaped < job->nr_flight && job->nr_done < max) {
      struct io_u* io_u = job->flight[reaped];
      struct hf_unit* u = io_u->engine_data;
      hipError_t h = hipEventQuery(u->done);
      if (h == hipErrorNotReady) break;
      if (h == hipSuccess)
        hf_settle(io_u, u->bytes,
                  io_u->ddir == DDIR_WRITE ? "hipFileWriteAsync" : "hipFileReadAsync");
      else
        io_u->error = (unsigned int)hf_hip_fail("hipEventQuery", h);
      job->done[job->nr_done++] = io_u;
      reaped++;
    }
    if (job->nr_done >= min || reaped == job->nr_flight || job->nr_done == max) break;
    struct hf_unit* oldest = job->flight[reaped]->engine_data;
    (void)hipEventSynchronize(oldest->done); /* its result is read by the next query */
  }
  job->nr_flight -= reaped;
  memmove(job->flight, job->flight + reaped, job->nr_flight * sizeof(*job->flight));
  return (int)job->nr_done;
}

void hf_drain_stream(struct thread_data* td) {
  struct hf_job* job = td->io_ops_data;
  if (job->stream != NULL) (void)hipStreamSynchronize(job->stream);
  job->nr_flight = 0;
}
