// SPDX-License-Identifier: MIT
/* hipfile_ext.h - extensions of this implementation beyond the hipFile API.
 *
 * Everything here is prefixed hipFileExt and absent from AMD's hipFile; programs that want to stay
 * portable should guard its use with `#ifdef HIPFILE_EXT_H`.
 */
#ifndef HIPFILE_EXT_H
#define HIPFILE_EXT_H

#include <hipfile.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The GPU runtime this process uses: "cuda" or "cpu" (chosen at first use; see
 * docs/environment.md, HIPFILE_RUNTIME). Never NULL; the string is static. */
HIPFILE_API const char *hipFileExtRuntimeName(void);

/* Why that runtime was chosen, e.g. "cpu: CUDA unavailable (libcuda.so.1 not found: ...)".
 * Never NULL; valid until process exit. */
HIPFILE_API const char *hipFileExtRuntimeReason(void);

/* The enumerator's name of a hipFile error code, e.g. "hipFileHandleNotRegistered" for 5018;
 * "hipFileSuccess" for 0; "hipFileUnknownError" for a value that is no hipFileOpError_t. Never
 * NULL; the string is static.
 * hipFileGetOpErrorString gives its description. */
HIPFILE_API const char *hipFileExtOpErrorName(int err);

/* ---- host memory of any kind ----------------------------------------------------------------- */

/* hipFileRead / hipFileWrite for host memory that need not be pinned or registered: a NumPy
 * array, a malloc'd or mmap'd buffer. [buffer, buffer + size) is taken as host memory at the
 * caller's word (never looked up in the GPU runtime); the system calls move the bytes straight into
 * or out of it - O_DIRECT where the file, the offset and the memory's alignment allow - and the
 * statistics count them under hipFileExtPathHost. Returns as hipFileRead: the bytes moved (fewer at
 * the end of the file), -1 with errno, or a negative hipFileOpError_t (the driver not open: -1 and
 * EINVAL; an unregistered handle; a null buffer with size > 0: -hipFileInvalidValue). size 0 moves
 * nothing and returns 0. Safe from several threads at once, as hipFileRead is. */
HIPFILE_API ssize_t hipFileExtReadHost(hipFileHandle_t fh, void *buffer, size_t size,
                                       hoff_t file_offset);
HIPFILE_API ssize_t hipFileExtWriteHost(hipFileHandle_t fh, const void *buffer, size_t size,
                                        hoff_t file_offset);

/* ---- stream-ordered I/O with its values given at submission ------------------------------- */

/* hipFileReadAsync / hipFileWriteAsync with the size and offsets passed by value: the operation is
 * queued on `stream` as on a stream registered with all three HIPFILE_STREAM_FIXED_* flags,
 * whatever the stream's registration (none, or other flags), so the library may bind it, and
 * start moving its bytes, at submission (docs/async.md: reads taken or copied at submission).
 * Nothing but bytes_p is kept past the call: *bytes_p gets the result as from hipFileReadAsync (0
 * at the return unless the operation was done at submission; the result once the stream has
 * passed it), so it must stay valid until the stream has. The checks, errors and everything else
 * are hipFileReadAsync's and hipFileWriteAsync's; in statistics and logs the operation is one of
 * theirs. For callers that never change a queued operation's values - a binding taking them as
 * arguments, a loader - on streams they do not own, which they cannot register. */
HIPFILE_API hipFileError_t hipFileExtReadAsyncFixed(hipFileHandle_t fh, void *buffer_base,
                                                    size_t size, hoff_t file_offset,
                                                    hoff_t buffer_offset, ssize_t *bytes_read_p,
                                                    hipStream_t stream);
HIPFILE_API hipFileError_t hipFileExtWriteAsyncFixed(hipFileHandle_t fh, void *buffer_base,
                                                     size_t size, hoff_t file_offset,
                                                     hoff_t buffer_offset, ssize_t *bytes_written_p,
                                                     hipStream_t stream);

/* ---- which path the bytes took ------------------------------------------------------------- */

/* The ways bytes move between a file and memory (docs/stats.md). */
typedef enum hipFileExtPath {
    hipFileExtPathPageCache = 0, /* the GPU copied from pinned page-cache windows of the file */
    hipFileExtPathDirect = 1,    /* O_DIRECT into or out of pinned staging */
    hipFileExtPathBuffered = 2,  /* pread/pwrite through the page cache and pinned staging: the
                                    compatibility path (HIPFILE_ALLOW_COMPAT_MODE) */
    hipFileExtPathIoUring = 3,   /* batch entries grouped through one staging buffer, their
                                    system calls in one io_uring submission (compatibility path) */
    hipFileExtPathHost = 4       /* host memory (pinned, or the CPU runtime's device memory): the
                                    system calls moved the bytes straight into or out of it */
} hipFileExtPath_t;
#define HIPFILE_EXT_PATH_COUNT 5
#define HIPFILE_EXT_MAX_PATHS 8 /* array size below; entries past the count stay 0 */

/* Why bytes took hipFileExtPathBuffered. */
typedef enum hipFileExtFallback {
    hipFileExtFallbackNone = 0,
    hipFileExtFallbackNoDirect = 1,    /* the file has no O_DIRECT (its file system refused it) */
    hipFileExtFallbackDirectOff = 2,   /* O_DIRECT turned off: HIPFILE_DIRECT_READS / _WRITES */
    hipFileExtFallbackPinnedPages = 3, /* a write over pages pinned for the page-cache path */
    hipFileExtFallbackUnaligned = 4,   /* off the file's O_DIRECT alignment (head, tail, memory) */
    hipFileExtFallbackSmall = 5,       /* too small to look the page cache up, for an O_DIRECT
                                          body, or to pin */
    hipFileExtFallbackWarm = 6,        /* in the page cache, whose pages are not pinned here */
    hipFileExtFallbackNotPinned = 7,   /* in the page cache, no window pinned yet (first reads of
                                          a window, or pinned windows at their cap) */
    hipFileExtFallbackDirectRefused = 8, /* O_DIRECT refused at run time (EINVAL) */
    hipFileExtFallbackNoRing = 9         /* a batch group's system calls ran one by one: io_uring
                                            off or refused */
} hipFileExtFallback_t;
#define HIPFILE_EXT_FALLBACK_COUNT 10
#define HIPFILE_EXT_MAX_FALLBACKS 16 /* array size below; entries past the count stay 0 */

/* Bytes and transfers by path since the process started (statistics level 1 or more:
 * HIPFILE_STATS_LEVEL). The bytes of each direction add up to hipFileGetStatsL1's read_bytes /
 * write_bytes; a transfer is counted under the path that moved most of its bytes, so the ops add
 * up to read_ops.ok / write_ops.ok. */
typedef struct hipFileExtPathStats {
    uint64_t read_bytes[HIPFILE_EXT_MAX_PATHS]; /* indexed by hipFileExtPath_t */
    uint64_t write_bytes[HIPFILE_EXT_MAX_PATHS];
    uint64_t read_ops[HIPFILE_EXT_MAX_PATHS];
    uint64_t write_ops[HIPFILE_EXT_MAX_PATHS];
    uint64_t read_fallback_bytes[HIPFILE_EXT_MAX_FALLBACKS]; /* by hipFileExtFallback_t */
    uint64_t write_fallback_bytes[HIPFILE_EXT_MAX_FALLBACKS];
} hipFileExtPathStats_t;

/* Fills *stats; hipFileInvalidValue for NULL. Needs no open driver. */
HIPFILE_API hipFileError_t hipFileExtGetPathStats(hipFileExtPathStats_t *stats);

/* "page_cache", "direct", "buffered", "io_uring", "host"; "unknown" for another value. Static. */
HIPFILE_API const char *hipFileExtPathName(int path);
/* "none", "no_direct", "direct_off", "pinned_pages", "unaligned", "small", "warm", "not_pinned",
 * "direct_refused", "no_ring"; "unknown" for another value. Static. */
HIPFILE_API const char *hipFileExtFallbackName(int why);

/* ---- latency, and ais-stats' per-GPU tables ------------------------------------------------ */

/* Successful transfers by how long they took (from the call to its end; for stream-ordered and
 * batch I/O, from the engine taking the transfer to its end): bucket 0 holds those under 1 us,
 * bucket i (1..30) those in [2^(i-1), 2^i) us, bucket 31 those of 2^30 us and more. Each
 * direction's buckets add up to hipFileGetStatsL1's read_ops.ok / write_ops.ok. */
#define HIPFILE_EXT_LATENCY_BUCKETS 32
typedef struct hipFileExtLatencyStats {
    uint64_t read_us_hist[HIPFILE_EXT_LATENCY_BUCKETS];
    uint64_t write_us_hist[HIPFILE_EXT_LATENCY_BUCKETS];
} hipFileExtLatencyStats_t;

/* Fills *stats; hipFileInvalidValue for NULL. Needs no open driver. */
HIPFILE_API hipFileError_t hipFileExtGetLatencyStats(hipFileExtLatencyStats_t *stats);

/* Where stream-ordered operations' time goes (docs/async.md, "Where a stream-ordered operation's
 * time goes"). Recorded only at HIPFILE_STATS_LEVEL 2 and above, or with
 * HIPFILE_ASYNC_STAGE_TIMES=1; otherwise every count stays 0. Per operation that completed its
 * round trip (submission returned without error), steady-clock stamps are taken at: the call;
 * the call returning; the poller seeing the stream reach it; a worker starting it; its file I/O
 * done; its release (the stream may go on once its copies are made); the poller seeing the
 * stream's last copy for it (the release, where nothing is copied after it). Each stamp counts
 * from the one before, and no earlier (a part that ran before the previous ended counts 0), so
 * parts 0..5 add up to part 6, the total. Per part: operations counted, their sum in ns, and a
 * log2 histogram: bucket 0 holds parts of 0 ns, bucket i (1..38) [2^(i-1), 2^i) ns, bucket 39 the
 * rest. */
typedef enum hipFileExtAsyncStage {
    hipFileExtAsyncStageSubmit = 0,  /* the call, to its return */
    hipFileExtAsyncStageReach = 1,   /* the return, to the poller seeing the stream reach it */
    hipFileExtAsyncStageHandoff = 2, /* to a worker starting it (a staging block's wait included) */
    hipFileExtAsyncStageIo = 3,      /* to its file I/O done (copies it waited for included) */
    hipFileExtAsyncStageRelease = 4, /* to its release: *bytes_p and `done` stored */
    hipFileExtAsyncStageCopy = 5,    /* to the poller seeing the stream's last copy made */
    hipFileExtAsyncStageTotal = 6    /* the call to the last copy: parts 0..5 together */
} hipFileExtAsyncStage_t;
#define HIPFILE_EXT_ASYNC_STAGES 7
#define HIPFILE_EXT_ASYNC_STAGE_BUCKETS 40
typedef struct hipFileExtAsyncStageStats {
    uint64_t count[HIPFILE_EXT_ASYNC_STAGES];
    uint64_t sum_ns[HIPFILE_EXT_ASYNC_STAGES];
    uint64_t ns_hist[HIPFILE_EXT_ASYNC_STAGES][HIPFILE_EXT_ASYNC_STAGE_BUCKETS];
} hipFileExtAsyncStageStats_t;

/* Fills *stats with this process's figures; hipFileInvalidValue for NULL. Needs no open driver. */
HIPFILE_API hipFileError_t hipFileExtGetAsyncStageStats(hipFileExtAsyncStageStats_t *stats);
/* "submit", "reach", "handoff", "io", "release", "copy", "total"; "unknown" for another value. */
HIPFILE_API const char *hipFileExtAsyncStageName(int stage);

/* Which way each stream-ordered operation went (docs/async.md; docs/stats.md, "Stream-ordered
 * operations by the way they went"). Counted at statistics level 1 and above when the submission
 * is accepted (a submission refused returns its error and is not counted), once per operation. */
typedef enum hipFileExtAsyncWay {
    hipFileExtAsyncWayRunAtOnce = 0,          /* run on the submitting thread, its stream idle
                                                 (HIPFILE_ASYNC_RUN_IDLE_KB): done at the return */
    hipFileExtAsyncWayReadAtSubmission = 1,   /* a small read whose bytes were taken from the page
                                                 cache at submission, one copy queued on the
                                                 stream (HIPFILE_ASYNC_READ_AT_SUBMISSION) */
    hipFileExtAsyncWayCopiedAtSubmission = 2, /* a read whose copies from pinned page-cache
                                                 windows were queued at submission
                                                 (HIPFILE_ASYNC_COPY_AT_SUBMISSION) */
    hipFileExtAsyncWayStaged = 3,  /* queued: a worker moved it through the library's pinned
                                      staging blocks when its stream reached it, the stream
                                      copying to or from them */
    hipFileExtAsyncWayWorker = 4,  /* queued: a worker moved it by the synchronous path when its
                                      stream reached it (host memory, or not stageable) */
    hipFileExtAsyncWayHostFunc = 5 /* queued as a host function on its stream: the runtime has
                                      no stream memory operations, or (the CPU runtime) runs
                                      each stream's host functions on a thread of its own,
                                      which then does the I/O itself */
} hipFileExtAsyncWay_t;
#define HIPFILE_EXT_ASYNC_WAY_COUNT 6
#define HIPFILE_EXT_MAX_ASYNC_WAYS 8 /* array size below; entries past the count stay 0 */
typedef struct hipFileExtAsyncWayStats {
    uint64_t read_ops[HIPFILE_EXT_MAX_ASYNC_WAYS]; /* by hipFileExtAsyncWay_t */
    uint64_t write_ops[HIPFILE_EXT_MAX_ASYNC_WAYS];
    /* Of the staged operations (both directions): */
    uint64_t large_chunks;  /* moved in large chunks (HIPFILE_ASYNC_LARGE_CHUNKS_MB) */
    uint64_t chains_alone;  /* whose stream operations were queued one chain at a time: no
                               staging block could be reserved (docs/async.md, "Queueing the
                               chains") */
    uint64_t staging_waits; /* that, reached by their stream, waited for a staging block */
    /* Of the staged reads: */
    uint64_t copied_ahead;       /* whose resident bytes the stream copied into device memory of the
                                    library's before reaching them (docs/async.md, "Reads copied
                                    ahead into device memory") */
    uint64_t used_ahead;         /* of those, whose stream copied on from that copy (the values
                                    bound at the stream were those seen at submission) */
    uint64_t ahead_on_companion; /* of copied_ahead, copied on a companion stream
                                    (HIPFILE_ASYNC_AHEAD_STREAM) */
    uint64_t one_launch;         /* whose stream copied all their chunks with one launch of the
                                    copy kernel (HIPFILE_ASYNC_COPY_RUNS; docs/async.md, "One
                                    launch per read copied ahead"), not one per 2 MiB chunk */
    uint64_t ahead_in_parts;     /* of copied_ahead, copied a part at a time through a region of a
                                    part's size (two, on a companion): no room for the whole read
                                    (HIPFILE_ASYNC_AHEAD_PART_MB; docs/async.md, "Reads copied
                                    ahead in parts") */
    /* Of the staged reads that could have been copied ahead (device memory for it allowed,
     * HIPFILE_ASYNC_AHEAD_MB; 1 MiB or more), those that were not, by why: */
    uint64_t ahead_not_pinned; /* not all their bytes were in pinned page-cache windows at
                                  submission: a window's first reads (it is pinned at its
                                  HIPFILE_PAGE_CACHE_PIN_AFTER-th), bytes not in the page cache,
                                  pinned windows at their cap */
    uint64_t ahead_no_room;    /* no room in that device memory for the read, nor for a part of
                                  it: the reads in flight before it held it */
    /* Of the staged reads that would have been copied ahead in parts (past their stream's share of
     * that device memory, or without room whole), those that were not because their device's copy
     * kernel was measured reading host memory about as fast as DMA (HIPFILE_ASYNC_AHEAD_PART_MB not
     * set; docs/async.md, "Parts or the windows' way, by measurement"): copied ahead whole where
     * there was room (counted in copied_ahead), else copied by the kernel from the windows
     * (counted in ahead_no_room). */
    uint64_t ahead_windows_chosen;
    uint64_t reserved[5];
} hipFileExtAsyncWayStats_t;

/* Fills *stats with this process's counts; hipFileInvalidValue for NULL. Needs no open driver. */
HIPFILE_API hipFileError_t hipFileExtGetAsyncWayStats(hipFileExtAsyncWayStats_t *stats);

/* ---- waits for the library's own copies ---------------------------------------------------- */

/* A transfer staged through the library's pinned buffers (device memory, and stream-ordered
 * operations run by the synchronous path) waits for each of its copies between the buffer and the
 * GPU: it polls for up to HIPFILE_COPY_SPIN_US, then sleeps on a blocking-sync event
 * (docs/engine.md). Since the process started (statistics level 1 or more): */
typedef struct hipFileExtCopyWaitStats {
    uint64_t waits;    /* waits that ended (their copies done or failed) */
    uint64_t slept;    /* of them, those whose copies were not done within the spin */
    uint64_t poll_ns;  /* time spent polling, summed over waits: a busy core's time (with
                          HIPFILE_COPY_NAP_US, the naps between polls included) */
    uint64_t sleep_ns; /* time spent asleep, summed over the waits that slept: the copies' time
                          past the spin, plus each wake-up */
    uint64_t reserved[4];
} hipFileExtCopyWaitStats_t;

/* Fills *stats with this process's counts; hipFileInvalidValue for NULL. Needs no open driver. */
HIPFILE_API hipFileError_t hipFileExtGetCopyWaitStats(hipFileExtCopyWaitStats_t *stats);
/* "run_at_once", "read_at_submission", "copied_at_submission", "staged", "worker",
 * "host_function"; "unknown" for another value. Static. */
HIPFILE_API const char *hipFileExtAsyncWayName(int way);

/* hipFile's two backends, counted by transfer as hipFileGetStatsL3 counts n_nvfs_* / n_posix_*:
 * a transfer that took the compatibility path (buffered or io_uring) for any byte is a Fallback
 * one; the others (page-cache windows, O_DIRECT, host memory) are Fastpath ones. A failure is
 * counted under Fastpath. */
typedef enum hipFileExtBackend {
    hipFileExtBackendFastpath = 0,
    hipFileExtBackendFallback = 1
} hipFileExtBackend_t;
#define HIPFILE_EXT_BACKEND_COUNT 2

/* ais-stats' size buckets: bucket 0 holds transfers under 4 KiB, bucket k (1..14)
 * [2^(k+11), 2^(k+12)) bytes, bucket 15 64 MiB and more. */
#define HIPFILE_EXT_SIZE_BUCKETS 16
/* One backend's transfers of one direction, by size bucket (hipFile's PerGpuStatsV1). */
typedef struct hipFileExtSizeHistogram {
    uint64_t bytes[HIPFILE_EXT_SIZE_BUCKETS];   /* bytes moved by successful transfers */
    uint64_t count[HIPFILE_EXT_SIZE_BUCKETS];   /* successful transfers */
    uint64_t time_us[HIPFILE_EXT_SIZE_BUCKETS]; /* the sum of their latencies */
    uint64_t errors[HIPFILE_EXT_SIZE_BUCKETS];  /* failed transfers, by the size asked for */
} hipFileExtSizeHistogram_t;

/* One GPU's transfers (those whose buffer the GPU runtime places on that device; pinned host
 * memory it places on none counts under device 0), as ais-stats prints them. Summed over GPUs and
 * backends, count adds up to hipFileGetStatsL1's read_ops.ok / write_ops.ok and bytes to read_bytes
 * / write_bytes; errors count the failures of transfers whose buffer was known (read_ops.err also
 * counts calls refused before). */
typedef struct hipFileExtGpuStats {
    uint64_t in_use;                 /* 1 when this GPU did any transfer, else 0 */
    char uuid[HIPFILE_GPU_UUID_LEN]; /* published when the driver opened; zero before */
    hipFileExtSizeHistogram_t read[HIPFILE_EXT_BACKEND_COUNT]; /* by hipFileExtBackend_t */
    hipFileExtSizeHistogram_t write[HIPFILE_EXT_BACKEND_COUNT];
    uint64_t read_unaligned[HIPFILE_EXT_BACKEND_COUNT]; /* successful transfers off the file's
                                                           O_DIRECT alignment */
    uint64_t write_unaligned[HIPFILE_EXT_BACKEND_COUNT];
} hipFileExtGpuStats_t;

/* Fills *stats for GPU `device` (0 <= device < HIPFILE_MAX_GPUS); hipFileInvalidValue for NULL or
 * another device. Needs no open driver. */
HIPFILE_API hipFileError_t hipFileExtGetGpuStats(int device, hipFileExtGpuStats_t *stats);

/* ---- how this library was built and configured --------------------------------------------- */

/* Optional parts a build of the library has (hipFileExtBuildFeatures' bits). Each comes from a
 * package found when it was built (docs/environment.md says what each one changes). */
#define HIPFILE_EXT_FEATURE_IO_URING                                                       \
    0x1u                                     /* liburing: a batch's small transfers in one \
                                                io_uring submission (HIPFILE_IO_URING) */
#define HIPFILE_EXT_FEATURE_NVTX 0x2u        /* NVTX 3 ranges (HIPFILE_PROFILE_NVTX) */
#define HIPFILE_EXT_FEATURE_CONFIG_FILE 0x4u /* nlohmann-json: reads HIPFILE_CONFIG's file */
#define HIPFILE_EXT_FEATURE_ALL 0x7u

/* The HIPFILE_EXT_FEATURE_* bits of this build. Needs no open driver; opens nothing. */
HIPFILE_API unsigned hipFileExtBuildFeatures(void);
/* "io_uring", "nvtx", "config_file" for one bit; "unknown" for anything else. Static. */
HIPFILE_API const char *hipFileExtBuildFeatureName(unsigned feature);

/* Where a setting's value came from; each one over those before it (docs/config.md). */
typedef enum hipFileExtSettingSource {
    hipFileExtSourceDefault = 0,     /* the library's default */
    hipFileExtSourceEnvironment = 1, /* a HIPFILE_* variable that is set and was taken */
    hipFileExtSourceConfigFile = 2,  /* the configuration file HIPFILE_CONFIG names */
    hipFileExtSourceApi = 3          /* hipFileSetParameter* or hipFileDriverSet* */
} hipFileExtSettingSource_t;
/* "default", "environment", "file", "api"; "unknown" for another value. Static. */
HIPFILE_API const char *hipFileExtSourceName(int source);

/* Where the value hipFileGetParameter* reports for `param` came from: while the driver is open,
 * the value in use; while it is closed, the value the next open will use. A variable or file key
 * that could not be parsed is not a source (it was refused, the value kept). Opens nothing.
 * hipFileInvalidValue for a parameter outside its enum or a NULL source. */
HIPFILE_API hipFileError_t hipFileExtGetParameterSizeTSource(hipFileSizeTConfigParameter_t param,
                                                             hipFileExtSettingSource_t *source);
HIPFILE_API hipFileError_t hipFileExtGetParameterBoolSource(hipFileBoolConfigParameter_t param,
                                                            hipFileExtSettingSource_t *source);
HIPFILE_API hipFileError_t hipFileExtGetParameterStringSource(hipFileStringConfigParameter_t param,
                                                              hipFileExtSettingSource_t *source);

/* The HIPFILE_* variables this library reads, index 0 on; NULL past the last. Static. */
HIPFILE_API const char *hipFileExtVariableName(unsigned index);
/* Where the setting the variable `name` controls got its value when the library read its
 * configuration (once, at first use; docs/environment.md): hipFileExtSourceEnvironment when the
 * variable is set and was taken, hipFileExtSourceConfigFile when the file's key for the same
 * setting gave it, else hipFileExtSourceDefault. Never hipFileExtSourceApi: a parameter set later
 * is answered by hipFileExtGetParameter*Source. hipFileInvalidValue for a name that is not one of
 * hipFileExtVariableName's, or NULL. Opens nothing. */
HIPFILE_API hipFileError_t hipFileExtGetVariableSource(const char *name,
                                                       hipFileExtSettingSource_t *source);

/* ---- the way a file's bytes would go ------------------------------------------------------ */

/* Kinds of bytes of a read or write into (from) device memory, as the engine tells them apart. */
typedef enum hipFileExtIoCase {
    hipFileExtIoReadWarm = 0,         /* a read of residency_min_bytes or more of data in the page
                                         cache, once its window is pinned */
    hipFileExtIoReadWarmUnpinned = 1, /* the same before the window's pin_after-th read */
    hipFileExtIoReadCold = 2,         /* the aligned body of such a read of data not cached */
    hipFileExtIoReadUnaligned = 3,    /* its head and tail off the O_DIRECT alignment */
    hipFileExtIoReadSmall = 4,        /* a read smaller than residency_min_bytes */
    hipFileExtIoBatchSmall = 5,       /* a batch entry of at most grouped_max_bytes, with others on
                                         one device (an entry alone goes as a read) */
    hipFileExtIoWriteAligned = 6,     /* the aligned body of a write */
    hipFileExtIoWriteUnaligned = 7    /* its head and tail off the alignment */
} hipFileExtIoCase_t;
#define HIPFILE_EXT_IO_CASE_COUNT 8
#define HIPFILE_EXT_MAX_IO_CASES 16 /* array size below; entries past the count stay 0 */

typedef struct hipFileExtIoWay {
    int32_t path;     /* hipFileExtPath_t: as the statistics would count these bytes */
    int32_t fallback; /* hipFileExtFallback_t: why neither O_DIRECT nor the page cache took them
                         (also for host memory); hipFileExtFallbackNone when one did */
    int32_t o_direct; /* 1: the system calls go through an O_DIRECT descriptor */
    int32_t refused;  /* 1: only the compatibility path could move them and it is off
                         (HIPFILE_ALLOW_COMPAT_MODE): a transfer with them fails */
} hipFileExtIoWay_t;

/* The rule for one file, with what it was drawn from. */
typedef struct hipFileExtIoRule {
    int32_t o_direct;       /* 1: the file opened with O_DIRECT here */
    uint32_t dio_mem_align; /* its O_DIRECT alignments (statx, else 4096); 0 without */
    uint32_t dio_offset_align;
    int32_t staged;               /* 1: device memory passes through pinned staging (a GPU,
                                     cpu-staged); 0: it is host memory (the cpu runtime) */
    int32_t compat_allowed;       /* the compatibility path is allowed */
    int32_t page_cache;           /* the page-cache path is on (HIPFILE_PAGE_CACHE) */
    uint32_t pin_after;           /* a window is pinned at its n-th read */
    int32_t io_uring;             /* grouped entries' system calls in one io_uring submission: built
                                     with liburing, HIPFILE_IO_URING on, and the kernel gave a ring */
    uint64_t residency_min_bytes; /* smaller reads are not looked up in the page cache */
    uint64_t direct_min_bytes;    /* shorter cold bodies are read buffered */
    uint64_t grouped_max_bytes;   /* batch entries up to this are grouped; 0: none are */
    hipFileExtIoWay_t ways[HIPFILE_EXT_MAX_IO_CASES]; /* by hipFileExtIoCase_t */
    uint64_t reserved[8];
} hipFileExtIoRule_t;

/* The way each kind of bytes of a read or write of fd's file into (from) device memory would go
 * here: the engine's planner asked for one transfer of each kind, with the runtime in use and the
 * parameters in use while the driver is open (the next open's while it is closed). The file is
 * reopened as hipFileHandleRegister reopens it (an O_DIRECT descriptor and statx's alignment,
 * both closed again); nothing is read or written, and the driver is not opened. Pinned host
 * memory goes as device memory does with staged 0. Errors as hipFileHandleRegister's for fd (a
 * negative or closed fd: hipFileInvalidValue; a directory: hipFileInvalidFileType);
 * hipFileInvalidValue for a NULL rule. */
HIPFILE_API hipFileError_t hipFileExtGetIoRule(int fd, hipFileExtIoRule_t *rule);
/* "read_warm", "read_warm_unpinned", "read_cold", "read_unaligned", "read_small", "batch_small",
 * "write_aligned", "write_unaligned"; "unknown" for another value. Static. */
HIPFILE_API const char *hipFileExtIoCaseName(int io_case);

/* ---- another process's statistics (hipfile-stats) ------------------------------------------ */

/* Every process of the library publishes its counters in a memory file that the same user can
 * map through /proc/PID/fd, at HIPFILE_STATS_LEVEL=0 too (its level, and zeros) (docs/stats.md,
 * "Reading another process"). These functions read it; they need no open driver and publish
 * nothing themselves. */

/* A snapshot of a process's statistics. */
typedef struct hipFileExtProcessStats {
    int64_t pid;                 /* the process that published them; 0: none yet (a region from
                                    hipFileExtStatsRegionCreate no process claimed) */
    uint64_t level;              /* its statistics level */
    uint64_t published_unix_ns;  /* when it started publishing, CLOCK_REALTIME */
    hipFileStatsLevel3_t stats;  /* as hipFileGetStatsL3 in that process */
    hipFileExtPathStats_t paths; /* as hipFileExtGetPathStats in that process */
    /* Transfers that took the compatibility path (buffered or io_uring) for some bytes: how many,
     * their bytes (by every path), the sum of their latencies and how many did not meet the
     * file's O_DIRECT alignment. */
    uint64_t read_compat_ops;
    uint64_t write_compat_ops;
    uint64_t read_compat_bytes;
    uint64_t write_compat_bytes;
    uint64_t read_compat_us;
    uint64_t write_compat_us;
    uint64_t read_compat_unaligned;
    uint64_t write_compat_unaligned;
    uint64_t reserved[16];
} hipFileExtProcessStats_t;

/* A mapping of a process's statistics; it stays readable after that process exits. */
typedef struct hipFileExtStatsRegion hipFileExtStatsRegion_t;

/* A new region for a program to publish into: *fd, close-on-exec, is handed to the program with
 * close-on-exec cleared and HIPFILE_STATS_FD=<fd> in its environment; the first process of the
 * library that sees it publishes there. Open it with hipFileExtStatsOpen(0, fd, ...). */
HIPFILE_API hipFileError_t hipFileExtStatsRegionCreate(int *fd);

/* Maps the statistics of process `pid` (fd < 0) or of the region `fd` (pid 0; the descriptor
 * stays the caller's). hipFileInternalError with errno ESRCH: no such process; EACCES: another
 * user's; ENOENT: it publishes none (no hipFile call yet, or no library); EPROTO: its region has
 * another layout (another version of the library); EINVAL: fd is no region. hipFileInvalidValue for
 * a NULL region or both or neither source. */
HIPFILE_API hipFileError_t hipFileExtStatsOpen(int pid, int fd, hipFileExtStatsRegion_t **region);
/* Fills *out from the live counters. hipFileInvalidValue for NULL. */
HIPFILE_API hipFileError_t hipFileExtStatsRead(const hipFileExtStatsRegion_t *region,
                                               hipFileExtProcessStats_t *out);
/* As hipFileExtGetLatencyStats and hipFileExtGetGpuStats in that process. hipFileInvalidValue
 * for NULL, or a device outside 0..HIPFILE_MAX_GPUS-1. */
HIPFILE_API hipFileError_t hipFileExtStatsReadLatency(const hipFileExtStatsRegion_t *region,
                                                      hipFileExtLatencyStats_t *out);
HIPFILE_API hipFileError_t hipFileExtStatsReadGpu(const hipFileExtStatsRegion_t *region, int device,
                                                  hipFileExtGpuStats_t *out);
/* As hipFileExtGetAsyncWayStats in that process. hipFileInvalidValue for NULL. */
HIPFILE_API hipFileError_t hipFileExtStatsReadAsyncWays(const hipFileExtStatsRegion_t *region,
                                                        hipFileExtAsyncWayStats_t *out);
/* As hipFileExtGetCopyWaitStats in that process. hipFileInvalidValue for NULL. */
HIPFILE_API hipFileError_t hipFileExtStatsReadCopyWaits(const hipFileExtStatsRegion_t *region,
                                                        hipFileExtCopyWaitStats_t *out);
/* Unmaps it; NULL is ignored. */
HIPFILE_API void hipFileExtStatsClose(hipFileExtStatsRegion_t *region);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HIPFILE_EXT_H */
