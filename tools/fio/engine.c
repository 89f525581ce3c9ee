/* SPDX-License-Identifier: MIT */
/* engine.c - the engine fio loads: its hooks for a job's life (init, buffers, files, cleanup) and
 * the per-mode dispatch. The modes' transfers: sync_mode.c, stream_mode.c, batch_mode.c. */
#include <stdlib.h>

#include "hipfile_fio.h"

static void hf_free_job(struct hf_job* job) {
  if (job->batch != NULL) hipFileBatchIODestroy(job->batch);
  if (job->stream != NULL) {
    (void)hipStreamSynchronize(job->stream);
    (void)hipFileStreamDeregister(job->stream);
    (void)hipStreamDestroy(job->stream);
  }
  free(job->done);
  free(job->flight);
  free(job->pending);
  free(job->refused);
  free(job->events);
  if (job->driver_open) (void)hipFileDriverClose();
  free(job);
}

/* A unit's size and offsets are set before its operation is queued and kept until it is reaped
 * (stream_mode.c), so the stream may say they are fixed: the library then takes them at submission
 * and may start the transfer then (docs/async.md), where with no flags it must read them again
 * when the stream gets there. hipfile_stream_fixed=0 keeps that late binding, to measure it. */
static unsigned hf_stream_flags(const struct hf_options* o) {
  if (!o->stream_fixed) return 0;
  return HIPFILE_STREAM_FIXED_BUF_OFFSET | HIPFILE_STREAM_FIXED_FILE_OFFSET |
         HIPFILE_STREAM_FIXED_FILE_SIZE;
}

static int hf_init(struct thread_data* td) {
  struct hf_options* o = td->eo;
  struct hf_job* job = calloc(1, sizeof(*job));
  if (job == NULL) {
    td_verror(td, ENOMEM, "hipfile init");
    return 1;
  }
  job->io = (enum hf_io)o->rocm_io;
  job->mode = (enum hf_mode)o->mode;
  if (job->io == HF_IO_POSIX && job->mode != HF_MODE_SYNC) {
    log_info("hipfile: rocm_io=posix runs hipfile_mode=sync\n");
    job->mode = HF_MODE_SYNC;
  }
  job->depth = td->o.iodepth > 0 ? td->o.iodepth : 1;
  job->gpu = hf_pick_gpu(td, o);
  int err = 0;
  hipError_t h;
  if (job->gpu < 0) {
    err = EINVAL;
  } else if ((h = hipSetDevice(job->gpu)) != hipSuccess) {
    err = hf_hip_fail("hipSetDevice", h);
    log_err("hipfile: gpu_dev_ids: GPU %d cannot be used\n", job->gpu);
  } else {
    job->done = calloc(job->depth, sizeof(*job->done));
    job->flight = calloc(job->depth, sizeof(*job->flight));
    job->pending = calloc(job->depth, sizeof(*job->pending));
    job->refused = calloc(job->depth, sizeof(*job->refused));
    job->events = calloc(job->depth, sizeof(*job->events));
    if (!job->done || !job->flight || !job->pending || !job->refused || !job->events) err = ENOMEM;
  }
  if (err == 0 && job->io == HF_IO_HIPFILE) {
    hipFileError_t e = hipFileDriverOpen();
    job->driver_open = e.err == hipFileSuccess;
    if (!job->driver_open) {
      err = hf_fail("hipFileDriverOpen", e);
    } else if (job->mode == HF_MODE_STREAM) {
      hipError_t hs = hipStreamCreateWithFlags(&job->stream, hipStreamNonBlocking);
      if (hs != hipSuccess) {
        job->stream = NULL;
        err = hf_hip_fail("hipStreamCreateWithFlags", hs);
      } else if ((e = hipFileStreamRegister(job->stream, hf_stream_flags(o))).err !=
                 hipFileSuccess) {
        err = hf_fail("hipFileStreamRegister", e);
      }
    } else if (job->mode == HF_MODE_BATCH) {
      e = hipFileBatchIOSetUp(&job->batch, job->depth);
      if (e.err != hipFileSuccess) {
        err = hf_fail("hipFileBatchIOSetUp", e);
        log_err("hipfile: hipfile_mode=batch with iodepth=%u\n", job->depth);
        job->batch = NULL;
      }
    }
  }
  if (err != 0) {
    hf_free_job(job);
    td_verror(td, err, "hipfile init");
    return 1;
  }
  td->io_ops_data = job;
  return 0;
}

static void hf_cleanup(struct thread_data* td) {
  struct hf_job* job = td->io_ops_data;
  if (job == NULL) return;
  hf_free_job(job);
  td->io_ops_data = NULL;
}

/* fio's I/O buffers are pinned host memory, so copies to and from them can be stream-ordered. */
static int hf_iomem_alloc(struct thread_data* td, size_t total) {
  hipError_t h = hipHostMalloc((void**)&td->orig_buffer, total, 0);
  if (h != hipSuccess) {
    td->orig_buffer = NULL;
    return hf_hip_fail("hipHostMalloc (fio's buffers)", h);
  }
  return 0;
}

static void hf_iomem_free(struct thread_data* td) {
  if (td->orig_buffer != NULL) (void)hipHostFree(td->orig_buffer);
  td->orig_buffer = NULL;
}

static void hf_io_u_free(struct thread_data* td, struct io_u* io_u) {
  struct hf_job* job = td->io_ops_data;
  struct hf_unit* u = io_u->engine_data;
  if (u == NULL) return;
  if (job != NULL && job->mode == HF_MODE_STREAM) hf_drain_stream(td);
  if (job != NULL && job->mode == HF_MODE_BATCH) hf_drain_batch(td);
  if (u->done != NULL) (void)hipEventDestroy(u->done);
  if (u->gpu != NULL) {
    if (job != NULL && job->io == HF_IO_HIPFILE) (void)hipFileBufDeregister(u->gpu);
    (void)hipFree(u->gpu);
  }
  free(u);
  io_u->engine_data = NULL;
}

static int hf_io_u_init(struct thread_data* td, struct io_u* io_u) {
  struct hf_job* job = td->io_ops_data;
  struct hf_unit* u = calloc(1, sizeof(*u));
  if (u == NULL) return ENOMEM;
  io_u->engine_data = u;
  u->gpu_size = td_max_bs(td);
  hipError_t h = hipMalloc(&u->gpu, u->gpu_size);
  if (h != hipSuccess) {
    u->gpu = NULL;
    hf_io_u_free(td, io_u);
    return hf_hip_fail("hipMalloc (an I/O unit's GPU buffer)", h);
  }
  if (job->io == HF_IO_HIPFILE) {
    hipFileError_t e = hipFileBufRegister(u->gpu, u->gpu_size, 0);
    if (e.err != hipFileSuccess) {
      (void)hipFree(u->gpu);
      u->gpu = NULL;
      hf_io_u_free(td, io_u);
      return hf_fail("hipFileBufRegister", e);
    }
  }
  if (job->mode == HF_MODE_STREAM) {
    h = hipEventCreateWithFlags(&u->done, hipEventDisableTiming | hipEventBlockingSync);
    if (h != hipSuccess) {
      u->done = NULL;
      hf_io_u_free(td, io_u);
      return hf_hip_fail("hipEventCreateWithFlags", h);
    }
  }
  return 0;
}

static int hf_open_file(struct thread_data* td, struct fio_file* f) {
  struct hf_job* job = td->io_ops_data;
  int ret = generic_open_file(td, f);
  if (ret != 0 || job->io != HF_IO_HIPFILE) return ret;
  hipFileDescr_t descr = {.type = hipFileHandleTypeOpaqueFD, .handle.fd = f->fd};
  hipFileHandle_t fh = NULL;
  hipFileError_t e = hipFileHandleRegister(&fh, &descr);
  if (e.err != hipFileSuccess) {
    int err = hf_fail("hipFileHandleRegister", e);
    log_err("hipfile: %s cannot be registered\n", f->file_name);
    if (generic_close_file(td, f) != 0) log_err("hipfile: closing %s failed\n", f->file_name);
    td_verror(td, err, "hipFileHandleRegister");
    return 1;
  }
  FILE_SET_ENG_DATA(f, fh);
  return 0;
}

static int hf_close_file(struct thread_data* td, struct fio_file* f) {
  hipFileHandle_t fh = hf_handle(f);
  if (fh != NULL) hipFileHandleDeregister(fh);
  FILE_SET_ENG_DATA(f, NULL);
  return generic_close_file(td, f);
}

static enum fio_q_status hf_queue(struct thread_data* td, struct io_u* io_u) {
  struct hf_job* job = td->io_ops_data;
  fio_ro_check(td, io_u);
  switch (job->mode) {
    case HF_MODE_STREAM:
      return hf_queue_stream(td, io_u);
    case HF_MODE_BATCH:
      return hf_queue_batch(td, io_u);
    default:
      return hf_queue_sync(td, io_u);
  }
}

static int hf_commit(struct thread_data* td) {
  struct hf_job* job = td->io_ops_data;
  if (job->mode == HF_MODE_BATCH) return hf_commit_batch(td);
  if (job->unmarked > 0) io_u_mark_submit(td, job->unmarked);
  job->unmarked = 0;
  return 0;
}

static int hf_getevents(struct thread_data* td, unsigned int min, unsigned int max,
                        const struct timespec* t) {
  struct hf_job* job = td->io_ops_data;
  job->nr_done = 0;
  switch (job->mode) {
    case HF_MODE_STREAM:
      return hf_getevents_stream(td, min, max);
    case HF_MODE_BATCH:
      return hf_getevents_batch(td, min, max, t);
    default:
      return 0;
  }
}

static struct io_u* hf_event(struct thread_data* td, int event) {
  struct hf_job* job = td->io_ops_data;
  return job->done[event];
}

/* fio looks this symbol up by name ("ioengine") after dlopen. */
struct ioengine_ops ioengine = {
    .name = "libhipfile",
    .version = FIO_IOOPS_VERSION,
    .init = hf_init,
    .queue = hf_queue,
    .commit = hf_commit,
    .getevents = hf_getevents,
    .event = hf_event,
    .cleanup = hf_cleanup,
    .open_file = hf_open_file,
    .close_file = hf_close_file,
    .get_file_size = generic_get_file_size,
    .iomem_alloc = hf_iomem_alloc,
    .iomem_free = hf_iomem_free,
    .io_u_init = hf_io_u_init,
    .io_u_free = hf_io_u_free,
    .option_struct_size = sizeof(struct hf_options),
    .options = hf_fio_options,
};
