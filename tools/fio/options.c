/* SPDX-License-Identifier: MIT */
/* options.c - the engine's job-file options, under AMD's names and values, and the GPU each job
 * uses. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hipfile_fio.h"

struct fio_option hf_fio_options[] = {
    {
        .name = "rocm_io",
        .lname = "hipfile engine I/O kind",
        .type = FIO_OPT_STR,
        .off1 = offsetof(struct hf_options, rocm_io),
        .help = "How file data reaches GPU memory",
        .def = "hipfile",
        .posval =
            {
                {.ival = "hipfile", .oval = HF_IO_HIPFILE, .help = "this library (hipFile API)"},
                {.ival = "posix", .oval = HF_IO_POSIX, .help = "pread/pwrite and a GPU copy"},
            },
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "hipfile_mode",
        .lname = "hipfile engine API",
        .type = FIO_OPT_STR,
        .off1 = offsetof(struct hf_options, mode),
        .help = "Which hipFile calls move the data (rocm_io=hipfile)",
        .def = "sync",
        .posval =
            {
                {.ival = "sync", .oval = HF_MODE_SYNC, .help = "hipFileRead / hipFileWrite"},
                {.ival = "stream",
                 .oval = HF_MODE_STREAM,
                 .help = "hipFileReadAsync / hipFileWriteAsync, a stream per I/O unit"},
                {.ival = "batch",
                 .oval = HF_MODE_BATCH,
                 .help = "hipFileBatchIOSubmit / hipFileBatchIOGetStatus"},
            },
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "gpu_dev_ids",
        .lname = "hipfile engine GPUs",
        .type = FIO_OPT_STR_STORE,
        .off1 = offsetof(struct hf_options, gpu_dev_ids),
        .help = "GPU numbers separated by ':', taken round robin by the jobs (default 0)",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "hipfile_stream_fixed",
        .lname = "hipfile engine stream flags",
        .type = FIO_OPT_BOOL,
        .off1 = offsetof(struct hf_options, stream_fixed),
        .help = "hipfile_mode=stream: register the stream with HIPFILE_STREAM_FIXED_* (the "
                "engine never changes a queued operation's values); 0: no flags, the library "
                "reads them when the stream gets there",
        .def = "1",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = NULL,
    },
};

int hf_pick_gpu(struct thread_data* td, const struct hf_options* o) {
  const char* list = o->gpu_dev_ids;
  if (list == NULL || *list == '\0') return 0;
  int ids[256];
  unsigned int n = 0;
  const char* p = list;
  for (;;) {
    char* end;
    long id = strtol(p, &end, 10);
    if (end == p || id < 0 || id > INT_MAX || (*end != ':' && *end != '\0') || n == 256) {
      log_err("hipfile: gpu_dev_ids=%s: not GPU numbers separated by ':'\n", list);
      return -1;
    }
    ids[n++] = (int)id;
    if (*end == '\0') break;
    p = end + 1;
  }
  return ids[td->subjob_number % n];
}
