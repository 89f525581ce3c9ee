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
/* Unmaps it; NULL is ignored. */
HIPFILE_API void hipFileExtStatsClose(hipFileExtStatsRegion_t *region);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HIPFILE_EXT_H */
