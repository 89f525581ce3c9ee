// SPDX-License-Identifier: MIT
/* hipfile.h - the hipFile C API: GPU-direct storage I/O.
 *
 * Same names, types and numeric values as AMD hipFile 0.5, so programs written for hipFile build
 * unchanged. libhipfile.so exports this header's functions and two more groups: the extensions of
 * <hipfile_ext.h> (hipFileExt*: which runtime runs and why, error names), and the HIP runtime
 * subset of <hip/hip_runtime_api.h> as installed under include/hipfile/compat (hip*: hipMalloc,
 * streams, events...), for programs built where no HIP is installed. Nothing else is exported.
 *
 * Conventions
 *  - Errors: calls returning hipFileError_t report {hipFileSuccess, hipSuccess} on success,
 *    {<hipFileOpError_t>, hipSuccess} for a library error and {hipFileHipDriverError, <hipError_t>}
 *    for a GPU runtime error; exhausted memory is {hipFileHipDriverError, hipErrorOutOfMemory}.
 *    A system error without a hipFile code of its own is hipFileInternalError, with errno set to
 *    its code (EAGAIN when a thread could not be started, for example).
 *  - hipFileRead / hipFileWrite return bytes moved (>= 0), -1 with errno set for a system error
 *    (ENOMEM when memory ran out), or a negated hipFileOpError_t (values from -5001 down) or a
 *    negated hipError_t (-hipFileHipDriverError in place of -hipErrorInvalidValue, which would
 *    read as -1).
 *  - Stream-ordered results (*bytes_read_p, *bytes_written_p, published when the stream reaches
 *    the operation) and batch results (hipFileIOEvents_t.ret, a size_t: cast it to ssize_t) are
 *    bytes moved (>= 0) or a negative code: -errno for a system error (above -HIPFILE_BASE_ERR,
 *    e.g. -5 for EIO, -12 for ENOMEM), -hipFileOpError_t for a library rule (-5022 for
 *    hipFileInvalidValue), and -hipFileHipDriverError for any GPU runtime error.
 *  - Durability: a successful write means the bytes are in the file - in the page cache or on
 *    the disk - as after pwrite; not that they survive a crash. HIPFILE_WRITE_THROUGH=true
 *    (docs/environment.md) flushes each write with fdatasync before reporting it done.
 *  - No call throws a C++ exception or aborts the process for a resource it cannot have.
 *  - Ownership: the library never frees memory or closes descriptors it did not create. Handles
 *    returned by the library stay valid until the matching deregister/destroy call or the last
 *    hipFileDriverClose. A handle value is never handed out twice in a process: a stale one is
 *    refused (hipFileHandleNotRegistered; hipFileInvalidValue for a batch), never taken for a
 *    newer registration.
 *  - Nullability: pointer arguments must be non-NULL unless the function says otherwise.
 *  - Threads: every function may be called from any thread at any time.
 */
#ifndef HIPFILE_H
#define HIPFILE_H

#include <hip/hip_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#if defined(__GNUC__) || defined(__clang__)
#define HIPFILE_API __attribute__((visibility("default")))
#else
#define HIPFILE_API
#endif

#if defined(__cplusplus) && __cplusplus >= 201703L
#define __HIPFILE_NODISCARD [[nodiscard]]
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ > 201710L
#define __HIPFILE_NODISCARD [[nodiscard]]
#else
#define __HIPFILE_NODISCARD
#endif

#define HIPFILE_VERSION_MAJOR 0
#define HIPFILE_VERSION_MINOR 5
#define HIPFILE_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

typedef off_t hoff_t;

/* ---- errors -------------------------------------------------------------------------------- */

#define HIPFILE_BASE_ERR 5000

typedef enum hipFileOpError {
    hipFileSuccess = 0,
    hipFileDriverNotInitialized = HIPFILE_BASE_ERR + 1,
    hipFileDriverInvalidProps = HIPFILE_BASE_ERR + 2,
    hipFileDriverUnsupportedLimit = HIPFILE_BASE_ERR + 3,
    hipFileDriverVersionMismatch = HIPFILE_BASE_ERR + 4,
    hipFileDriverVersionReadError = HIPFILE_BASE_ERR + 5,
    hipFileDriverClosing = HIPFILE_BASE_ERR + 6,
    hipFilePlatformNotSupported = HIPFILE_BASE_ERR + 7,
    hipFileIONotSupported = HIPFILE_BASE_ERR + 8,
    hipFileDeviceNotSupported = HIPFILE_BASE_ERR + 9,
    hipFileDriverError = HIPFILE_BASE_ERR + 10,
    hipFileHipDriverError = HIPFILE_BASE_ERR + 11,
    hipFileHipPointerInvalid = HIPFILE_BASE_ERR + 12,
    hipFileHipMemoryTypeInvalid = HIPFILE_BASE_ERR + 13,
    hipFileHipPointerRangeError = HIPFILE_BASE_ERR + 14,
    hipFileHipContextMismatch = HIPFILE_BASE_ERR + 15,
    hipFileInvalidMappingSize = HIPFILE_BASE_ERR + 16,
    hipFileInvalidMappingRange = HIPFILE_BASE_ERR + 17,
    hipFileInvalidFileType = HIPFILE_BASE_ERR + 18,
    hipFileInvalidFileOpenFlag = HIPFILE_BASE_ERR + 19,
    hipFileDIONotSet = HIPFILE_BASE_ERR + 20,
    /* HIPFILE_BASE_ERR + 21 is intentionally unused (as in cuFile). */
    hipFileInvalidValue = HIPFILE_BASE_ERR + 22,
    hipFileMemoryAlreadyRegistered = HIPFILE_BASE_ERR + 23,
    hipFileMemoryNotRegistered = HIPFILE_BASE_ERR + 24,
    hipFilePermissionDenied = HIPFILE_BASE_ERR + 25,
    hipFileDriverAlreadyOpen = HIPFILE_BASE_ERR + 26,
    hipFileHandleNotRegistered = HIPFILE_BASE_ERR + 27,
    hipFileHandleAlreadyRegistered = HIPFILE_BASE_ERR + 28,
    hipFileDeviceNotFound = HIPFILE_BASE_ERR + 29,
    hipFileInternalError = HIPFILE_BASE_ERR + 30,
    hipFileGetNewFDFailed = HIPFILE_BASE_ERR + 31,
    /* HIPFILE_BASE_ERR + 32 is intentionally unused (as in cuFile). */
    hipFileDriverSetupError = HIPFILE_BASE_ERR + 33,
    hipFileIODisabled = HIPFILE_BASE_ERR + 34,
    hipFileBatchSubmitFailed = HIPFILE_BASE_ERR + 35,
    hipFileGPUMemoryPinningFailed = HIPFILE_BASE_ERR + 36,
    hipFileBatchFull = HIPFILE_BASE_ERR + 37,
    hipFileAsyncNotSupported = HIPFILE_BASE_ERR + 38,
    hipFileIOMaxError = HIPFILE_BASE_ERR + 39
} hipFileOpError_t;

typedef struct __HIPFILE_NODISCARD hipFileError {
    hipFileOpError_t err;
    hipError_t hip_drv_err;
} hipFileError_t;

/* Returns a static English description; never NULL. Unknown values give "Unknown hipFile error". */
HIPFILE_API const char *hipFileGetOpErrorString(hipFileOpError_t status);

#define IS_HIPFILE_ERR(x) (abs((int)(x)) > HIPFILE_BASE_ERR)
#define HIPFILE_ERRSTR(x) hipFileGetOpErrorString((hipFileOpError_t)abs((int)(x)))
#ifndef IS_HIP_DRV_ERR
#define IS_HIP_DRV_ERR(e) ((e).err == hipFileHipDriverError)
#endif
#ifndef HIP_DRV_ERR
#define HIP_DRV_ERR(e) ((e).hip_drv_err)
#endif

/* ---- version -------------------------------------------------------------------------------- */

/* Any argument may be NULL. Does not need the driver to be open. Always succeeds. */
HIPFILE_API hipFileError_t hipFileGetVersion(unsigned *major, unsigned *minor, unsigned *patch);

/* ---- driver --------------------------------------------------------------------------------- */

/* Bit positions in hipFileDriverProps_t.nvfs.driver_status_flags (not masks). */
typedef enum hipFileDriverStatusFlags {
    hipFileLustreSupported = 0,
    hipFileWekaFSSupported = 1,
    hipFileNFSSupported = 2,
    hipFileGPFSSupported = 3,
    hipFileNVMeSupported = 4,
    hipFileNVMeoFSupported = 5,
    hipFileSCSISupported = 6,
    hipFileScaleFluxCSDSupported = 7,
    hipFileNVMeshSupported = 8,
    hipFileBeeGFSSupported = 9,
    /* 10 is reserved (YRCloudFile in cuFile). */
    hipFileNVMeP2PSupported = 11,
    hipFileScatefsSupported = 12
} hipFileDriverStatusFlags_t;

/* Bit positions in hipFileDriverProps_t.nvfs.driver_control_flags (not masks). */
typedef enum hipFileDriverControlFlags {
    hipFileUsePollMode = 0,
    hipFileAllowCompatMode = 1
} hipFileDriverControlFlags_t;

/* Bit positions in hipFileDriverProps_t.feature_flags (not masks). */
typedef enum hipFileFeatureFlags {
    hipFileDynRoutingSupported = 0,
    hipFileBatchIOSupported = 1,
    hipFileStreamsSupported = 2,
    hipFileParallelIOSupported = 3
} hipFileFeatureFlags_t;

typedef struct hipFileDriverProps {
    struct {
        unsigned major_version;
        unsigned minor_version;
        uint64_t poll_thresh_size;   /* KiB */
        uint64_t max_direct_io_size; /* KiB */
        unsigned driver_status_flags;
        unsigned driver_control_flags;
    } nvfs;
    unsigned feature_flags;
    uint64_t max_device_cache_size;      /* KiB */
    uint64_t per_buffer_cache_size;      /* KiB */
    uint64_t max_device_pinned_mem_size; /* KiB */
    unsigned max_batch_io_count;
    unsigned max_batch_io_timeout_msecs;
} hipFileDriverProps_t;

HIPFILE_API hipFileError_t hipFileDriverOpen(void);
HIPFILE_API hipFileError_t hipFileDriverClose(void);
/* Current reference count of the driver; -1 on internal error. */
HIPFILE_API int64_t hipFileUseCount(void);
HIPFILE_API hipFileError_t hipFileDriverGetProperties(hipFileDriverProps_t *props);
HIPFILE_API hipFileError_t hipFileDriverSetPollMode(bool poll, size_t poll_threshold_size);
HIPFILE_API hipFileError_t hipFileDriverSetMaxDirectIOSize(size_t max_direct_io_size);
HIPFILE_API hipFileError_t hipFileDriverSetMaxCacheSize(size_t max_cache_size);
HIPFILE_API hipFileError_t hipFileDriverSetMaxPinnedMemSize(size_t max_pinned_size);

/* ---- parameters ------------------------------------------------------------------------------ */

typedef enum hipFileSizeTConfigParameter {
    hipFileParamProfileStats,
    hipFileParamExecutionMaxIOQueueDepth,
    hipFileParamExecutionMaxIOThreads,
    hipFileParamExecutionMinIOThresholdSizeKB,
    hipFileParamExecutionMaxRequestParallelism,
    hipFileParamPropertiesMaxDirectIOSizeKB,
    hipFileParamPropertiesMaxDeviceCacheSizeKB,
    hipFileParamPropertiesPerBufferCacheSizeKB,
    hipFileParamPropertiesMaxDevicePinnedMemSizeKB,
    hipFileParamPropertiesIOBatchsize,
    hipFileParamPollthresholdSizeKB,
    hipFileParamPropertiesBatchIOTimeoutMs
} hipFileSizeTConfigParameter_t;

typedef enum hipFileBoolConfigParameter {
    hipFileParamPropertiesUsePollMode,
    hipFileParamPropertiesAllowCompatMode,
    hipFileParamForceCompatMode,
    hipFileParamFsMiscApiCheckAggressive,
    hipFileParamExecutionParallelIO,
    hipFileParamProfileNvtx,
    hipFileParamPropertiesAllowSystemMemory,
    hipFileParamUsePcip2pdma,
    hipFileParamPreferIOUring,
    hipFileParamForceOdirectMode,
    hipFileParamSkipTopologyDetection,
    hipFileParamStreamMemopsBypass
} hipFileBoolConfigParameter_t;

typedef enum hipFileStringConfigParameter {
    hipFileParamLoggingLevel,
    hipFileParamEnvLogfilePath,
    hipFileParamLogDir
} hipFileStringConfigParameter_t;

/* Setters work only while the driver is closed and take effect at the next open. Getters return
 * the value in use while open and the value that the next open will use while closed. */
HIPFILE_API hipFileError_t hipFileGetParameterSizeT(hipFileSizeTConfigParameter_t param,
                                                    size_t *value);
HIPFILE_API hipFileError_t hipFileGetParameterBool(hipFileBoolConfigParameter_t param, bool *value);
HIPFILE_API hipFileError_t hipFileGetParameterString(hipFileStringConfigParameter_t param,
                                                     char *desc_str, int len);
HIPFILE_API hipFileError_t hipFileSetParameterSizeT(hipFileSizeTConfigParameter_t param,
                                                    size_t value);
HIPFILE_API hipFileError_t hipFileSetParameterBool(hipFileBoolConfigParameter_t param, bool value);
HIPFILE_API hipFileError_t hipFileSetParameterString(hipFileStringConfigParameter_t param,
                                                     const char *desc_str);

/* ---- RDMA / user-space file systems (types only) --------------------------------------------- */

typedef struct hipFileRDMAInfo {
    int version;
    int desc_len;
    const char *desc_str;
} hipFileRDMAInfo_t;

#define HIPFILE_RDMA_REGISTER 1
#define HIPFILE_RDMA_RELAXED_ORDERING (1 << 1)

typedef struct hipFileFSOps {
    const char *(*fs_type)(void *handle);
    int (*getRDMADeviceList)(void *handle, struct sockaddr **hostaddrs);
    int (*getRDMADevicePriority)(void *handle, char *buf, size_t size, hoff_t offset,
                                 struct sockaddr *hostaddr);
    ssize_t (*read)(void *handle, char *buf, size_t size, hoff_t offset,
                    hipFileRDMAInfo_t *rdmainfo);
    ssize_t (*write)(void *handle, const char *buf, size_t size, hoff_t offset,
                     hipFileRDMAInfo_t *rdmainfo);
} hipFileFSOps_t;

/* ---- file handles ---------------------------------------------------------------------------- */

typedef enum hipFileFileHandleType {
    hipFileHandleTypeOpaqueFD = 1,
    hipFileHandleTypeOpaqueWin32 = 2,
    hipFileHandleTypeUserspaceFS = 3
} hipFileFileHandleType_t;

typedef struct hipFileDescr {
    hipFileFileHandleType_t type;
    union {
        int fd;
        void *hFile;
    } handle;
    const hipFileFSOps_t *fs_ops;
} hipFileDescr_t;

typedef void *hipFileHandle_t;

/* Registers an open descriptor (the caller keeps ownership of it). */
HIPFILE_API hipFileError_t hipFileHandleRegister(hipFileHandle_t *fh, hipFileDescr_t *descr);
/* NULL and unknown handles are ignored. */
HIPFILE_API void hipFileHandleDeregister(hipFileHandle_t fh);

/* ---- buffers --------------------------------------------------------------------------------- */

HIPFILE_API hipFileError_t hipFileBufRegister(const void *buffer_base, size_t length, int flags);
HIPFILE_API hipFileError_t hipFileBufDeregister(const void *buffer_base);

/* ---- synchronous I/O ------------------------------------------------------------------------- */

/* At most 0x7ffff000 bytes move per call; the return value says how many did. */
HIPFILE_API ssize_t hipFileRead(hipFileHandle_t fh, void *buffer_base, size_t size,
                                hoff_t file_offset, hoff_t buffer_offset);
HIPFILE_API ssize_t hipFileWrite(hipFileHandle_t fh, const void *buffer_base, size_t size,
                                 hoff_t file_offset, hoff_t buffer_offset);

/* ---- batch I/O ------------------------------------------------------------------------------- */

typedef enum hipFileOpcode { hipFileBatchRead = 0, hipFileBatchWrite = 1 } hipFileOpcode_t;

typedef enum hipFileStatus {
    hipFileWaiting = 1 << 0,
    hipFilePending = 1 << 1,
    hipFileInvalid = 1 << 2,
    hipFileCanceled = 1 << 3,
    hipFileComplete = 1 << 4,
    hipFileTimeout = 1 << 5,
    hipFileFailed = 1 << 6
} hipFileStatus_t;

typedef enum hipFileBatchMode { hipFileBatch = 1 } hipFileBatchMode_t;

typedef struct hipFileIOParams {
    hipFileBatchMode_t mode;
    union {
        struct {
            void *devPtr_base;
            int64_t file_offset;
            int64_t devPtr_offset;
            size_t size;
        } batch;
    } u;
    hipFileHandle_t fh;
    hipFileOpcode_t opcode;
    void *cookie;
} hipFileIOParams_t;

typedef struct hipFileIOEvents {
    void *cookie;
    hipFileStatus_t status;
    size_t ret; /* bytes moved, or a negative code cast to size_t (see Conventions above) */
} hipFileIOEvents_t;

typedef void *hipFileBatchHandle_t;

HIPFILE_API hipFileError_t hipFileBatchIOSetUp(hipFileBatchHandle_t *batch_idp, unsigned max_nr);
HIPFILE_API hipFileError_t hipFileBatchIOSubmit(hipFileBatchHandle_t batch_idp, unsigned nr,
                                                hipFileIOParams_t *iocbp, unsigned flags);
HIPFILE_API hipFileError_t hipFileBatchIOGetStatus(hipFileBatchHandle_t batch_idp, unsigned min_nr,
                                                   unsigned *nr, hipFileIOEvents_t *iocbp,
                                                   struct timespec *timeout);
HIPFILE_API hipFileError_t hipFileBatchIOCancel(hipFileBatchHandle_t batch_idp);
HIPFILE_API void hipFileBatchIODestroy(hipFileBatchHandle_t batch_idp);

/* ---- stream-ordered (async) I/O -------------------------------------------------------------- */

#define HIPFILE_STREAM_FIXED_BUF_OFFSET 1
#define HIPFILE_STREAM_FIXED_FILE_OFFSET (1 << 1)
#define HIPFILE_STREAM_FIXED_FILE_SIZE (1 << 2)
#define HIPFILE_STREAM_PAGE_ALIGNED_INPUTS (1 << 3)
#define HIPFILE_STREAM_FLAGS_MASK 0xf

/* The pointed-to arguments must stay valid until the stream has been synchronized. */
HIPFILE_API hipFileError_t hipFileReadAsync(hipFileHandle_t fh, void *buffer_base, size_t *size_p,
                                            hoff_t *file_offset_p, hoff_t *buffer_offset_p,
                                            ssize_t *bytes_read_p, hipStream_t stream);
HIPFILE_API hipFileError_t hipFileWriteAsync(hipFileHandle_t fh, void *buffer_base, size_t *size_p,
                                             hoff_t *file_offset_p, hoff_t *buffer_offset_p,
                                             ssize_t *bytes_written_p, hipStream_t stream);
HIPFILE_API hipFileError_t hipFileStreamRegister(hipStream_t stream, unsigned flags);
HIPFILE_API hipFileError_t hipFileStreamDeregister(hipStream_t stream);

/* ---- statistics ------------------------------------------------------------------------------ */

#define HIPFILE_GPU_UUID_LEN 16
#define HIPFILE_MAX_GPUS 16

typedef struct hipFileOpCounter {
    uint64_t ok;
    uint64_t err;
} hipFileOpCounter_t;

typedef struct hipFileStatsLevel1 {
    hipFileOpCounter_t read_ops;
    hipFileOpCounter_t write_ops;
    hipFileOpCounter_t hdl_register_ops;
    hipFileOpCounter_t hdl_deregister_ops;
    hipFileOpCounter_t buf_register_ops;
    hipFileOpCounter_t buf_deregister_ops;
    uint64_t read_bytes;
    uint64_t write_bytes;
    uint64_t read_bw_bytes_per_sec;
    uint64_t write_bw_bytes_per_sec;
    uint64_t read_lat_avg_us;
    uint64_t write_lat_avg_us;
    uint64_t read_ops_per_sec;
    uint64_t write_ops_per_sec;
    uint64_t read_lat_sum_us;
    uint64_t write_lat_sum_us;
    hipFileOpCounter_t batch_submit_ops;
    hipFileOpCounter_t batch_complete_ops;
    hipFileOpCounter_t batch_setup_ops;
    hipFileOpCounter_t batch_cancel_ops;
    hipFileOpCounter_t batch_destroy_ops;
    hipFileOpCounter_t batch_enqueued_ops;
    hipFileOpCounter_t batch_posix_enqueued_ops;
    hipFileOpCounter_t batch_processed_ops;
    hipFileOpCounter_t batch_posix_processed_ops;
    hipFileOpCounter_t batch_nvfs_submit_ops;
    hipFileOpCounter_t batch_p2p_submit_ops;
    hipFileOpCounter_t batch_aio_submit_ops;
    hipFileOpCounter_t batch_iouring_submit_ops;
    hipFileOpCounter_t batch_mixed_io_submit_ops;
    hipFileOpCounter_t batch_total_submit_ops;
    uint64_t batch_read_bytes;
    uint64_t batch_write_bytes;
    uint64_t batch_read_bw_bytes;
    uint64_t batch_write_bw_bytes;
    uint64_t batch_submit_lat_avg_us;
    uint64_t batch_completion_lat_avg_us;
    uint64_t batch_submit_ops_per_sec;
    uint64_t batch_complete_ops_per_sec;
    uint64_t batch_submit_lat_sum_us;
    uint64_t batch_completion_lat_sum_us;
    uint64_t last_batch_read_bytes;
    uint64_t last_batch_write_bytes;
} hipFileStatsLevel1_t;

typedef struct hipFileStatsLevel2 {
    hipFileStatsLevel1_t basic;
    uint64_t read_size_kb_hist[32];
    uint64_t write_size_kb_hist[32];
} hipFileStatsLevel2_t;

typedef struct hipFilePerGpuStats {
    char uuid[HIPFILE_GPU_UUID_LEN];
    uint64_t read_bytes;
    uint64_t read_bw_bytes_per_sec;
    uint64_t read_utilization;
    uint64_t read_duration_us;
    uint64_t n_total_reads;
    uint64_t n_p2p_reads;
    uint64_t n_nvfs_reads;
    uint64_t n_posix_reads;
    uint64_t n_unaligned_reads;
    uint64_t n_dr_reads;
    uint64_t n_sparse_regions;
    uint64_t n_inline_regions;
    uint64_t n_reads_err;
    uint64_t write_bytes;
    uint64_t write_bw_bytes_per_sec;
    uint64_t write_utilization;
    uint64_t write_duration_us;
    uint64_t n_total_writes;
    uint64_t n_p2p_writes;
    uint64_t n_nvfs_writes;
    uint64_t n_posix_writes;
    uint64_t n_unaligned_writes;
    uint64_t n_dr_writes;
    uint64_t n_writes_err;
    uint64_t n_mmap;
    uint64_t n_mmap_ok;
    uint64_t n_mmap_err;
    uint64_t n_mmap_free;
    uint64_t reg_bytes;
} hipFilePerGpuStats_t;

typedef struct hipFileStatsLevel3 {
    hipFileStatsLevel2_t detailed;
    uint32_t num_gpus;
    hipFilePerGpuStats_t per_gpu_stats[HIPFILE_MAX_GPUS];
} hipFileStatsLevel3_t;

HIPFILE_API hipFileError_t hipFileGetStatsL1(hipFileStatsLevel1_t *stats);
HIPFILE_API hipFileError_t hipFileGetStatsL2(hipFileStatsLevel2_t *stats);
HIPFILE_API hipFileError_t hipFileGetStatsL3(hipFileStatsLevel3_t *stats);

#ifdef __cplusplus
} /* extern "C" */
#endif

#undef __HIPFILE_NODISCARD

#endif /* HIPFILE_H */
