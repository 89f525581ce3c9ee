/* SPDX-License-Identifier: MIT */
/* hipfile_fio.h - the fio engine's shared state (libhipfile-fio.so, docs/fio.md).
 *
 * An external I/O engine for stock fio (ioengine=external:PREFIX/lib/fio/libhipfile-fio.so) that
 * takes AMD's fio engine options, so a job file written for AMD's `libhipfile` engine runs by
 * changing its ioengine= line:
 *   rocm_io=hipfile|posix        hipfile: the file is read into and written from GPU memory by
 *                                this library; posix: pread/pwrite into host memory plus a copy to
 *                                or from the GPU (the baseline).
 *   hipfile_mode=sync|stream|batch  hipFileRead/Write; hipFileReadAsync/WriteAsync on one stream
 *                                per job; hipFileBatchIOSubmit/GetStatus. posix is sync only.
 *   gpu_dev_ids=0:1:...          the GPUs jobs use, round robin over the jobs' numbers.
 *
 * fio's buffers stay the data fio fills, checks (verify=) and counts: each I/O unit also owns a
 * GPU buffer of the job's largest block size; a write copies fio's buffer to it first and a read
 * copies it back after. fio's buffers are pinned host memory (iomem_alloc), so a stream's copies
 * are stream-ordered too.
 *
 * Built against the configured source tree of the fio that runs it (scripts/fio-source.sh): fio
 * checks FIO_IOOPS_VERSION when it loads the engine. Only fields placed before fio's
 * configuration-dependent members are used, so the configure options need not match Debian's. */
#ifndef HIPFILE_FIO_H
#define HIPFILE_FIO_H

#include <hipfile.h>

#include "fio.h"
#include "optgroup.h"
#include "verify.h"

enum hf_io { HF_IO_HIPFILE = 0, HF_IO_POSIX = 1 };
enum hf_mode { HF_MODE_SYNC = 0, HF_MODE_STREAM = 1, HF_MODE_BATCH = 2 };

/* The engine's options as fio stores them; fio writes the thread_data pointer in the first field.
 */
struct hf_options {
  void* fio_td;
  unsigned int rocm_io;
  unsigned int mode;
  char* gpu_dev_ids;
  unsigned int stream_fixed;
};

/* One per I/O unit (io_u->engine_data). The stream-ordered arguments live here until the stream
 * has passed the operation, which `done` marks. */
struct hf_unit {
  void* gpu;
  size_t gpu_size;
  hipEvent_t done;
  size_t size;
  hoff_t file_offset;
  hoff_t buffer_offset;
  ssize_t bytes;
};

/* One per job (td->io_ops_data). */
struct hf_job {
  enum hf_io io;
  enum hf_mode mode;
  int gpu;
  unsigned int depth;
  bool driver_open;   /* hipFileDriverOpen succeeded: closed with the job */
  struct io_u** done; /* reaped by getevents, handed out by event */
  unsigned int nr_done;
  hipStream_t stream;   /* stream mode: the job's one registered stream */
  struct io_u** flight; /* stream mode: queued, in submission (so completion) order */
  unsigned int nr_flight;
  unsigned int unmarked;      /* queued since the last commit, for fio's submit statistics */
  hipFileBatchHandle_t batch; /* batch mode */
  hipFileIOParams_t* pending; /* queued, submitted by commit */
  unsigned int nr_pending;
  unsigned int nr_submitted; /* submitted, not reaped yet */
  struct io_u** refused;     /* a submission refused whole: reaped with the error next */
  unsigned int nr_refused;
  hipFileIOEvents_t* events;
};

extern struct fio_option hf_fio_options[];

/* The GPU a job runs on: gpu_dev_ids round robin over the job's number; -1 with a message when
 * the list is not numbers separated by ':'. */
int hf_pick_gpu(struct thread_data* td, const struct hf_options* o);

/* Reports a failed hipFile call on fio's log and returns an errno for io_u->error. */
int hf_fail(const char* call, hipFileError_t e);
/* The same for a GPU runtime error. */
int hf_hip_fail(const char* call, hipError_t h);
/* hipFileRead/hipFileWrite's return value in the stream-ordered and batch encoding: -errno for -1,
 * a negated hipFileOpError_t kept, a negated hipError_t logged and made -EIO. */
ssize_t hf_sync_result(const char* call, ssize_t ret);
/* The errno for a negative byte count or encoded result (hipfile.h, Conventions); logs a library
 * code by name. */
int hf_errno_of(const char* call, ssize_t result);

/* Finishes an io_u from the bytes moved (or an encoded error): error, resid. */
void hf_settle(struct io_u* io_u, ssize_t result, const char* call);

/* Whether fio checks what reads bring (verify=): then a read's GPU buffer is copied back into
 * fio's. Writes always copy fio's buffer to the GPU first, so the file holds what fio meant. */
static inline bool hf_verifies(const struct thread_data* td) { return td->o.verify != VERIFY_NONE; }

/* A flush (fsync=, fdatasync=, end_fsync=) of the io_u's file; -errno on failure. */
int hf_flush(struct io_u* io_u);

/* The modes: queue for each; commit and getevents where the mode is asynchronous. */
enum fio_q_status hf_queue_sync(struct thread_data* td, struct io_u* io_u);
enum fio_q_status hf_queue_stream(struct thread_data* td, struct io_u* io_u);
int hf_getevents_stream(struct thread_data* td, unsigned int min, unsigned int max);
enum fio_q_status hf_queue_batch(struct thread_data* td, struct io_u* io_u);
int hf_commit_batch(struct thread_data* td);
int hf_getevents_batch(struct thread_data* td, unsigned int min, unsigned int max,
                       const struct timespec* t);
/* Waits until nothing of the job is in flight, cancelling batch entries: before fio frees the
 * buffers and arguments its operations use (after an error, fio may free units still queued). */
void hf_drain_stream(struct thread_data* td);
void hf_drain_batch(struct thread_data* td);

static inline hipFileHandle_t hf_handle(const struct fio_file* f) { return FILE_ENG_DATA(f); }

#endif
