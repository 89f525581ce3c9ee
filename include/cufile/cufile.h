// SPDX-License-Identifier: MIT
/* cufile.h - NVIDIA cuFile's C API, as the hipfile library's cuFile drop-in (libcufile.so.0)
 * implements it. Written for this project from NVIDIA's public cuFile API reference: the names,
 * numeric values, struct layouts and signatures are cuFile's (tests/compat/cufile_abi checks each
 * one against NVIDIA's own header), so a program written for cuFile builds against this header
 * and runs on either library. docs/cufile.md says what maps to what and what is not supported.
 *
 * Conventions (cuFile's, kept by the drop-in)
 *  - Errors: calls returning CUfileError_t report {CU_FILE_SUCCESS, CUDA_SUCCESS} on success,
 *    {<CUfileOpError>, CUDA_SUCCESS} for a library error and
 *    {CU_FILE_CUDA_DRIVER_ERROR, <CUresult>} for a GPU driver error.
 *  - cuFileRead / cuFileWrite return bytes moved (>= 0), -1 with errno set for a system error, or
 *    a negated CUfileOpError (-CU_FILE_CUDA_DRIVER_ERROR for any GPU driver error).
 *  - Stream-ordered results (*bytes_read_p, *bytes_written_p) and batch results
 *    (CUfileIOEvents_t.ret, a size_t: cast it to ssize_t) are bytes moved or a negative code:
 *    -errno, or a negated CUfileOpError.
 *  - CUresult and CUstream come from <cuda.h> where it can be found; elsewhere this header declares
 *    the few CUresult values it names and an opaque CUstream (include <cuda.h> first to use both).
 */
#ifndef HIPFILE_CUFILE_H
#define HIPFILE_CUFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

/* HIPFILE_CUFILE_NO_CUDA_H: use the declarations below even where <cuda.h> exists (the library's
 * own build does, so that it builds the same with and without a CUDA toolkit). */
#if !defined(__cuda_cuda_h__) && !defined(HIPFILE_CUFILE_NO_CUDA_H) && defined(__has_include)
#if __has_include(<cuda.h>)
#include <cuda.h>
#endif
#endif
#ifndef __cuda_cuda_h__
/* The CUDA driver API's result and stream types, declared as <cuda.h> declares them (the same tags,
 * so either header's declarations of these functions agree). Only the values cuFile reports. */
typedef enum cudaError_enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_DEINITIALIZED = 4,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_UNKNOWN = 999
} CUresult;
typedef struct CUstream_st *CUstream;
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CUFILE_API __attribute__((visibility("default")))
#else
#define CUFILE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors -------------------------------------------------------------------------------- */

#define CUFILEOP_BASE_ERR 5000

typedef enum CUfileOpError {
    CU_FILE_SUCCESS = 0,
    CU_FILE_DRIVER_NOT_INITIALIZED = CUFILEOP_BASE_ERR + 1,
    CU_FILE_DRIVER_INVALID_PROPS = CUFILEOP_BASE_ERR + 2,
    CU_FILE_DRIVER_UNSUPPORTED_LIMIT = CUFILEOP_BASE_ERR + 3,
    CU_FILE_DRIVER_VERSION_MISMATCH = CUFILEOP_BASE_ERR + 4,
    CU_FILE_DRIVER_VERSION_READ_ERROR = CUFILEOP_BASE_ERR + 5,
    CU_FILE_DRIVER_CLOSING = CUFILEOP_BASE_ERR + 6,
    CU_FILE_PLATFORM_NOT_SUPPORTED = CUFILEOP_BASE_ERR + 7,
    CU_FILE_IO_NOT_SUPPORTED = CUFILEOP_BASE_ERR + 8,
    CU_FILE_DEVICE_NOT_SUPPORTED = CUFILEOP_BASE_ERR + 9,
    CU_FILE_NVFS_DRIVER_ERROR = CUFILEOP_BASE_ERR + 10,
    CU_FILE_CUDA_DRIVER_ERROR = CUFILEOP_BASE_ERR + 11,
    CU_FILE_CUDA_POINTER_INVALID = CUFILEOP_BASE_ERR + 12,
    CU_FILE_CUDA_MEMORY_TYPE_INVALID = CUFILEOP_BASE_ERR + 13,
    CU_FILE_CUDA_POINTER_RANGE_ERROR = CUFILEOP_BASE_ERR + 14,
    CU_FILE_CUDA_CONTEXT_MISMATCH = CUFILEOP_BASE_ERR + 15,
    CU_FILE_INVALID_MAPPING_SIZE = CUFILEOP_BASE_ERR + 16,
    CU_FILE_INVALID_MAPPING_RANGE = CUFILEOP_BASE_ERR + 17,
    CU_FILE_INVALID_FILE_TYPE = CUFILEOP_BASE_ERR + 18,
    CU_FILE_INVALID_FILE_OPEN_FLAG = CUFILEOP_BASE_ERR + 19,
    CU_FILE_DIO_NOT_SET = CUFILEOP_BASE_ERR + 20,
    /* + 21 is not used. */
    CU_FILE_INVALID_VALUE = CUFILEOP_BASE_ERR + 22,
    CU_FILE_MEMORY_ALREADY_REGISTERED = CUFILEOP_BASE_ERR + 23,
    CU_FILE_MEMORY_NOT_REGISTERED = CUFILEOP_BASE_ERR + 24,
    CU_FILE_PERMISSION_DENIED = CUFILEOP_BASE_ERR + 25,
    CU_FILE_DRIVER_ALREADY_OPEN = CUFILEOP_BASE_ERR + 26,
    CU_FILE_HANDLE_NOT_REGISTERED = CUFILEOP_BASE_ERR + 27,
    CU_FILE_HANDLE_ALREADY_REGISTERED = CUFILEOP_BASE_ERR + 28,
    CU_FILE_DEVICE_NOT_FOUND = CUFILEOP_BASE_ERR + 29,
    CU_FILE_INTERNAL_ERROR = CUFILEOP_BASE_ERR + 30,
    CU_FILE_GETNEWFD_FAILED = CUFILEOP_BASE_ERR + 31,
    /* + 32 is not used. */
    CU_FILE_NVFS_SETUP_ERROR = CUFILEOP_BASE_ERR + 33,
    CU_FILE_IO_DISABLED = CUFILEOP_BASE_ERR + 34,
    CU_FILE_BATCH_SUBMIT_FAILED = CUFILEOP_BASE_ERR + 35,
    CU_FILE_GPU_MEMORY_PINNING_FAILED = CUFILEOP_BASE_ERR + 36,
    CU_FILE_BATCH_FULL = CUFILEOP_BASE_ERR + 37,
    CU_FILE_ASYNC_NOT_SUPPORTED = CUFILEOP_BASE_ERR + 38,
    CU_FILE_INTERNAL_BATCH_SETUP_ERROR = CUFILEOP_BASE_ERR + 39,
    CU_FILE_INTERNAL_BATCH_SUBMIT_ERROR = CUFILEOP_BASE_ERR + 40,
    CU_FILE_INTERNAL_BATCH_GETSTATUS_ERROR = CUFILEOP_BASE_ERR + 41,
    CU_FILE_INTERNAL_BATCH_CANCEL_ERROR = CUFILEOP_BASE_ERR + 42,
    CU_FILE_NOMEM_ERROR = CUFILEOP_BASE_ERR + 43,
    CU_FILE_IO_ERROR = CUFILEOP_BASE_ERR + 44,
    CU_FILE_INTERNAL_BUF_REGISTER_ERROR = CUFILEOP_BASE_ERR + 45,
    CU_FILE_HASH_OPR_ERROR = CUFILEOP_BASE_ERR + 46,
    CU_FILE_INVALID_CONTEXT_ERROR = CUFILEOP_BASE_ERR + 47,
    CU_FILE_NVFS_INTERNAL_DRIVER_ERROR = CUFILEOP_BASE_ERR + 48,
    CU_FILE_BATCH_NOCOMPAT_ERROR = CUFILEOP_BASE_ERR + 49,
    CU_FILE_IO_MAX_ERROR = CUFILEOP_BASE_ERR + 50
} CUfileOpError;

typedef struct CUfileError {
    CUfileOpError err;
    CUresult cu_err;
} CUfileError_t;

/* A short English description of an op error; "unknown cufile error" for other values. Defined
 * here, as cuFile defines it, so that programs built against this header need no symbol of the
 * library for it and run on NVIDIA's library too. */
static inline const char *cufileop_status_error(CUfileOpError status) {
    switch (status) {
        case CU_FILE_SUCCESS:
            return "success";
        case CU_FILE_DRIVER_NOT_INITIALIZED:
            return "driver not initialized";
        case CU_FILE_DRIVER_INVALID_PROPS:
            return "invalid driver property";
        case CU_FILE_DRIVER_UNSUPPORTED_LIMIT:
            return "property value out of range";
        case CU_FILE_DRIVER_VERSION_MISMATCH:
            return "driver version mismatch";
        case CU_FILE_DRIVER_VERSION_READ_ERROR:
            return "driver version could not be read";
        case CU_FILE_DRIVER_CLOSING:
            return "driver is closing";
        case CU_FILE_PLATFORM_NOT_SUPPORTED:
            return "platform not supported";
        case CU_FILE_IO_NOT_SUPPORTED:
            return "I/O not supported on this file";
        case CU_FILE_DEVICE_NOT_SUPPORTED:
            return "GPU not supported";
        case CU_FILE_NVFS_DRIVER_ERROR:
            return "kernel driver error";
        case CU_FILE_CUDA_DRIVER_ERROR:
            return "CUDA driver error";
        case CU_FILE_CUDA_POINTER_INVALID:
            return "invalid device pointer";
        case CU_FILE_CUDA_MEMORY_TYPE_INVALID:
            return "memory type not supported";
        case CU_FILE_CUDA_POINTER_RANGE_ERROR:
            return "range past the end of the allocation";
        case CU_FILE_CUDA_CONTEXT_MISMATCH:
            return "CUDA context mismatch";
        case CU_FILE_INVALID_MAPPING_SIZE:
            return "access past the pinned size";
        case CU_FILE_INVALID_MAPPING_RANGE:
            return "access past the mapped range";
        case CU_FILE_INVALID_FILE_TYPE:
            return "file type not supported";
        case CU_FILE_INVALID_FILE_OPEN_FLAG:
            return "file open flags not supported";
        case CU_FILE_DIO_NOT_SET:
            return "O_DIRECT not set on the descriptor";
        case CU_FILE_INVALID_VALUE:
            return "invalid argument";
        case CU_FILE_MEMORY_ALREADY_REGISTERED:
            return "buffer already registered";
        case CU_FILE_MEMORY_NOT_REGISTERED:
            return "buffer not registered";
        case CU_FILE_PERMISSION_DENIED:
            return "permission denied";
        case CU_FILE_DRIVER_ALREADY_OPEN:
            return "driver already open";
        case CU_FILE_HANDLE_NOT_REGISTERED:
            return "file handle not registered";
        case CU_FILE_HANDLE_ALREADY_REGISTERED:
            return "file handle already registered";
        case CU_FILE_DEVICE_NOT_FOUND:
            return "GPU not found";
        case CU_FILE_INTERNAL_ERROR:
            return "internal error";
        case CU_FILE_GETNEWFD_FAILED:
            return "could not open a new descriptor";
        case CU_FILE_NVFS_SETUP_ERROR:
            return "kernel driver set-up error";
        case CU_FILE_IO_DISABLED:
            return "I/O disabled by configuration";
        case CU_FILE_BATCH_SUBMIT_FAILED:
            return "batch submission failed";
        case CU_FILE_GPU_MEMORY_PINNING_FAILED:
            return "GPU memory pinning failed";
        case CU_FILE_BATCH_FULL:
            return "batch full";
        case CU_FILE_ASYNC_NOT_SUPPORTED:
            return "stream-ordered I/O not supported";
        case CU_FILE_INTERNAL_BATCH_SETUP_ERROR:
            return "batch set-up failed, retry";
        case CU_FILE_INTERNAL_BATCH_SUBMIT_ERROR:
            return "batch submission failed, retry";
        case CU_FILE_INTERNAL_BATCH_GETSTATUS_ERROR:
            return "batch status failed, retry";
        case CU_FILE_INTERNAL_BATCH_CANCEL_ERROR:
            return "batch cancel failed, retry";
        case CU_FILE_NOMEM_ERROR:
            return "out of memory, retry";
        case CU_FILE_IO_ERROR:
            return "I/O error";
        case CU_FILE_INTERNAL_BUF_REGISTER_ERROR:
            return "buffer registration failed";
        case CU_FILE_HASH_OPR_ERROR:
            return "hash table error";
        case CU_FILE_INVALID_CONTEXT_ERROR:
            return "invalid context";
        case CU_FILE_NVFS_INTERNAL_DRIVER_ERROR:
            return "kernel driver internal error";
        case CU_FILE_BATCH_NOCOMPAT_ERROR:
            return "compatibility mode is off";
        case CU_FILE_IO_MAX_ERROR:
            return "last error value";
    }
    return "unknown cufile error";
}

#define IS_CUFILE_ERR(err) (abs((int)(err)) > CUFILEOP_BASE_ERR)
#define CUFILE_ERRSTR(err) cufileop_status_error((CUfileOpError)abs((int)(err)))
#define IS_CUDA_ERR(status) ((status).err == CU_FILE_CUDA_DRIVER_ERROR)
#define CU_FILE_CUDA_ERR(status) ((status).cu_err)

/* ---- driver --------------------------------------------------------------------------------- */

/* Bit positions in CUfileDrvProps_t.nvfs.dstatusflags. */
typedef enum CUfileDriverStatusFlags {
    CU_FILE_LUSTRE_SUPPORTED = 0,
    CU_FILE_WEKAFS_SUPPORTED = 1,
    CU_FILE_NFS_SUPPORTED = 2,
    CU_FILE_GPFS_SUPPORTED = 3,
    CU_FILE_NVME_SUPPORTED = 4,
    CU_FILE_NVMEOF_SUPPORTED = 5,
    CU_FILE_SCSI_SUPPORTED = 6,
    CU_FILE_SCALEFLUX_CSD_SUPPORTED = 7,
    CU_FILE_NVMESH_SUPPORTED = 8,
    CU_FILE_BEEGFS_SUPPORTED = 9,
    CU_FILE_NVME_P2P_SUPPORTED = 11,
    CU_FILE_SCATEFS_SUPPORTED = 12
} CUfileDriverStatusFlags_t;

/* Bit positions in CUfileDrvProps_t.nvfs.dcontrolflags. */
typedef enum CUfileDriverControlFlags {
    CU_FILE_USE_POLL_MODE = 0,
    CU_FILE_ALLOW_COMPAT_MODE = 1
} CUfileDriverControlFlags_t;

/* Bit positions in CUfileDrvProps_t.fflags. */
typedef enum CUfileFeatureFlags {
    CU_FILE_DYN_ROUTING_SUPPORTED = 0,
    CU_FILE_BATCH_IO_SUPPORTED = 1,
    CU_FILE_STREAMS_SUPPORTED = 2,
    CU_FILE_PARALLEL_IO_SUPPORTED = 3
} CUfileFeatureFlags_t;

/* Sizes are in KiB. major_version / minor_version are the GPU-direct kernel driver's (nvidia-fs):
 * the drop-in reports 0.0 and no dstatusflags, since it uses no such driver. */
typedef struct CUfileDrvProps {
    struct {
        unsigned int major_version;
        unsigned int minor_version;
        size_t poll_thresh_size;
        size_t max_direct_io_size;
        unsigned int dstatusflags;
        unsigned int dcontrolflags;
    } nvfs;
    unsigned int fflags;
    unsigned int max_device_cache_size;
    unsigned int per_buffer_cache_size;
    unsigned int max_device_pinned_mem_size;
    unsigned int max_batch_io_size;
    unsigned int max_batch_io_timeout_msecs;
} CUfileDrvProps_t;

/* cuFileDriverClose is the _v2 entry point for programs built against this header; the library
 * exports both names, with the same behaviour. */
CUFILE_API CUfileError_t cuFileDriverOpen(void);
CUFILE_API CUfileError_t cuFileDriverClose(void);
CUFILE_API CUfileError_t cuFileDriverClose_v2(void);
#define cuFileDriverClose cuFileDriverClose_v2
CUFILE_API long cuFileUseCount(void);
CUFILE_API CUfileError_t cuFileDriverGetProperties(CUfileDrvProps_t *props);
CUFILE_API CUfileError_t cuFileDriverSetPollMode(bool poll, size_t poll_threshold_size);
CUFILE_API CUfileError_t cuFileDriverSetMaxDirectIOSize(size_t max_direct_io_size);
CUFILE_API CUfileError_t cuFileDriverSetMaxCacheSize(size_t max_cache_size);
CUFILE_API CUfileError_t cuFileDriverSetMaxPinnedMemSize(size_t max_pinned_size);

/* ---- file handles ---------------------------------------------------------------------------- */

typedef struct sockaddr sockaddr_t;

typedef struct cufileRDMAInfo {
    int version;
    int desc_len;
    const char *desc_str;
} cufileRDMAInfo_t;

#define CU_FILE_RDMA_REGISTER 1
#define CU_FILE_RDMA_RELAXED_ORDERING (1 << 1)

/* A user-space file system's operations (CU_FILE_HANDLE_TYPE_USERSPACE_FS; not supported by the
 * drop-in, which refuses such handles with CU_FILE_INVALID_VALUE). */
typedef struct CUfileFSOps {
    const char *(*fs_type)(void *handle);
    int (*getRDMADeviceList)(void *handle, sockaddr_t **hostaddrs);
    /* Offsets are loff_t in cuFile's documentation: off_t on the LP64 Linux targets the
     * library builds for (the same type, long), and declared without _GNU_SOURCE. */
    int (*getRDMADevicePriority)(void *handle, char *buf, size_t size, off_t offset,
                                 sockaddr_t *hostaddr);
    ssize_t (*read)(void *handle, char *buf, size_t size, off_t offset, cufileRDMAInfo_t *rdma);
    ssize_t (*write)(void *handle, const char *buf, size_t size, off_t offset,
                     cufileRDMAInfo_t *rdma);
} CUfileFSOps_t;

enum CUfileFileHandleType {
    CU_FILE_HANDLE_TYPE_OPAQUE_FD = 1,
    CU_FILE_HANDLE_TYPE_OPAQUE_WIN32 = 2,
    CU_FILE_HANDLE_TYPE_USERSPACE_FS = 3
};

typedef struct CUfileDescr_t {
    enum CUfileFileHandleType type;
    union {
        int fd;
        void *handle;
    } handle;
    const CUfileFSOps_t *fs_ops;
} CUfileDescr_t;

typedef void *CUfileHandle_t;

/* The caller keeps ownership of the descriptor. */
CUFILE_API CUfileError_t cuFileHandleRegister(CUfileHandle_t *fh, CUfileDescr_t *descr);
CUFILE_API void cuFileHandleDeregister(CUfileHandle_t fh);

/* ---- buffers and synchronous I/O --------------------------------------------------------------
 */

CUFILE_API CUfileError_t cuFileBufRegister(const void *bufPtr_base, size_t length, int flags);
CUFILE_API CUfileError_t cuFileBufDeregister(const void *bufPtr_base);

CUFILE_API ssize_t cuFileRead(CUfileHandle_t fh, void *bufPtr_base, size_t size, off_t file_offset,
                              off_t bufPtr_offset);
CUFILE_API ssize_t cuFileWrite(CUfileHandle_t fh, const void *bufPtr_base, size_t size,
                               off_t file_offset, off_t bufPtr_offset);

/* ---- batch I/O ------------------------------------------------------------------------------- */

typedef enum CUfileOpcode { CUFILE_READ = 0, CUFILE_WRITE = 1 } CUfileOpcode_t;

typedef enum CUFILEStatus_enum {
    CUFILE_WAITING = 1 << 0,
    CUFILE_PENDING = 1 << 1,
    CUFILE_INVALID = 1 << 2,
    CUFILE_CANCELED = 1 << 3,
    CUFILE_COMPLETE = 1 << 4,
    CUFILE_TIMEOUT = 1 << 5,
    CUFILE_FAILED = 1 << 6
} CUfileStatus_t;

typedef enum cufileBatchMode { CUFILE_BATCH = 1 } CUfileBatchMode_t;

typedef struct CUfileIOParams {
    CUfileBatchMode_t mode;
    union {
        struct {
            void *devPtr_base;
            off_t file_offset;
            off_t devPtr_offset;
            size_t size;
        } batch;
    } u;
    CUfileHandle_t fh;
    CUfileOpcode_t opcode;
    void *cookie;
} CUfileIOParams_t;

typedef struct CUfileIOEvents {
    void *cookie;
    CUfileStatus_t status;
    size_t ret;
} CUfileIOEvents_t;

typedef void *CUfileBatchHandle_t;

CUFILE_API CUfileError_t cuFileBatchIOSetUp(CUfileBatchHandle_t *batch_idp, unsigned nr);
CUFILE_API CUfileError_t cuFileBatchIOSubmit(CUfileBatchHandle_t batch_idp, unsigned nr,
                                             CUfileIOParams_t *iocbp, unsigned int flags);
CUFILE_API CUfileError_t cuFileBatchIOGetStatus(CUfileBatchHandle_t batch_idp, unsigned min_nr,
                                                unsigned *nr, CUfileIOEvents_t *iocbp,
                                                struct timespec *timeout);
CUFILE_API CUfileError_t cuFileBatchIOCancel(CUfileBatchHandle_t batch_idp);
CUFILE_API void cuFileBatchIODestroy(CUfileBatchHandle_t batch_idp);

/* ---- stream-ordered I/O ---------------------------------------------------------------------- */

#define CU_FILE_STREAM_FIXED_BUF_OFFSET 1
#define CU_FILE_STREAM_FIXED_FILE_OFFSET 2
#define CU_FILE_STREAM_FIXED_FILE_SIZE 4
#define CU_FILE_STREAM_PAGE_ALIGNED_INPUTS 8

/* The pointed-to arguments must stay valid until the stream has passed the operation. */
CUFILE_API CUfileError_t cuFileReadAsync(CUfileHandle_t fh, void *bufPtr_base, size_t *size_p,
                                         off_t *file_offset_p, off_t *bufPtr_offset_p,
                                         ssize_t *bytes_read_p, CUstream stream);
CUFILE_API CUfileError_t cuFileWriteAsync(CUfileHandle_t fh, void *bufPtr_base, size_t *size_p,
                                          off_t *file_offset_p, off_t *bufPtr_offset_p,
                                          ssize_t *bytes_written_p, CUstream stream);
CUFILE_API CUfileError_t cuFileStreamRegister(CUstream stream, unsigned flags);
CUFILE_API CUfileError_t cuFileStreamDeregister(CUstream stream);

/* ---- version and parameters ------------------------------------------------------------------ */

/* 1000 * major + 10 * minor of the cuFile API the library implements. */
CUFILE_API CUfileError_t cuFileGetVersion(int *version);

typedef enum CUFileSizeTConfigParameter_t {
    CUFILE_PARAM_PROFILE_STATS,
    CUFILE_PARAM_EXECUTION_MAX_IO_QUEUE_DEPTH,
    CUFILE_PARAM_EXECUTION_MAX_IO_THREADS,
    CUFILE_PARAM_EXECUTION_MIN_IO_THRESHOLD_SIZE_KB,
    CUFILE_PARAM_EXECUTION_MAX_REQUEST_PARALLELISM,
    CUFILE_PARAM_PROPERTIES_MAX_DIRECT_IO_SIZE_KB,
    CUFILE_PARAM_PROPERTIES_MAX_DEVICE_CACHE_SIZE_KB,
    CUFILE_PARAM_PROPERTIES_PER_BUFFER_CACHE_SIZE_KB,
    CUFILE_PARAM_PROPERTIES_MAX_DEVICE_PINNED_MEM_SIZE_KB,
    CUFILE_PARAM_PROPERTIES_IO_BATCHSIZE,
    CUFILE_PARAM_POLLTHRESHOLD_SIZE_KB,
    CUFILE_PARAM_PROPERTIES_BATCH_IO_TIMEOUT_MS
} CUFileSizeTConfigParameter_t;

typedef enum CUFileBoolConfigParameter_t {
    CUFILE_PARAM_PROPERTIES_USE_POLL_MODE,
    CUFILE_PARAM_PROPERTIES_ALLOW_COMPAT_MODE,
    CUFILE_PARAM_FORCE_COMPAT_MODE,
    CUFILE_PARAM_FS_MISC_API_CHECK_AGGRESSIVE,
    CUFILE_PARAM_EXECUTION_PARALLEL_IO,
    CUFILE_PARAM_PROFILE_NVTX,
    CUFILE_PARAM_PROPERTIES_ALLOW_SYSTEM_MEMORY,
    CUFILE_PARAM_USE_PCIP2PDMA,
    CUFILE_PARAM_PREFER_IO_URING,
    CUFILE_PARAM_FORCE_ODIRECT_MODE,
    CUFILE_PARAM_SKIP_TOPOLOGY_DETECTION,
    CUFILE_PARAM_STREAM_MEMOPS_BYPASS
} CUFileBoolConfigParameter_t;

typedef enum CUFileStringConfigParameter_t {
    CUFILE_PARAM_LOGGING_LEVEL,
    CUFILE_PARAM_ENV_LOGFILE_PATH,
    CUFILE_PARAM_LOG_DIR
} CUFileStringConfigParameter_t;

typedef enum CUFileArrayConfigParameter_t {
    CUFILE_PARAM_POSIX_POOL_SLAB_SIZE_KB,
    CUFILE_PARAM_POSIX_POOL_SLAB_COUNT
} CUFileArrayConfigParameter_t;

/* Setters work while the driver is closed and take effect at the next open. */
CUFILE_API CUfileError_t cuFileGetParameterSizeT(CUFileSizeTConfigParameter_t param, size_t *value);
CUFILE_API CUfileError_t cuFileGetParameterBool(CUFileBoolConfigParameter_t param, bool *value);
CUFILE_API CUfileError_t cuFileGetParameterString(CUFileStringConfigParameter_t param,
                                                  char *desc_str, int len);
/* The least and the most value cuFileSetParameterSizeT accepts for param, in its own unit
 * (the ...SIZE_KB parameters in KiB; the page-sized ones also need a multiple of 4);
 * CU_FILE_INVALID_VALUE for a null pointer or a parameter outside the enum. */
CUFILE_API CUfileError_t cuFileGetParameterMinMaxValue(CUFileSizeTConfigParameter_t param,
                                                       size_t *min_value, size_t *max_value);
CUFILE_API CUfileError_t cuFileSetParameterSizeT(CUFileSizeTConfigParameter_t param, size_t value);
CUFILE_API CUfileError_t cuFileSetParameterBool(CUFileBoolConfigParameter_t param, bool value);
CUFILE_API CUfileError_t cuFileSetParameterString(CUFileStringConfigParameter_t param,
                                                  const char *desc_str);

/* ---- statistics ------------------------------------------------------------------------------ */

#define CUFILE_GPU_UUID_LEN 16

typedef struct CUfileOpCounter {
    uint64_t ok;
    uint64_t err;
} CUfileOpCounter_t;

typedef struct CUfileStatsLevel1 {
    CUfileOpCounter_t read_ops;
    CUfileOpCounter_t write_ops;
    CUfileOpCounter_t hdl_register_ops;
    CUfileOpCounter_t hdl_deregister_ops;
    CUfileOpCounter_t buf_register_ops;
    CUfileOpCounter_t buf_deregister_ops;
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
    CUfileOpCounter_t batch_submit_ops;
    CUfileOpCounter_t batch_complete_ops;
    CUfileOpCounter_t batch_setup_ops;
    CUfileOpCounter_t batch_cancel_ops;
    CUfileOpCounter_t batch_destroy_ops;
    CUfileOpCounter_t batch_enqueued_ops;
    CUfileOpCounter_t batch_posix_enqueued_ops;
    CUfileOpCounter_t batch_processed_ops;
    CUfileOpCounter_t batch_posix_processed_ops;
    CUfileOpCounter_t batch_nvfs_submit_ops;
    CUfileOpCounter_t batch_p2p_submit_ops;
    CUfileOpCounter_t batch_aio_submit_ops;
    CUfileOpCounter_t batch_iouring_submit_ops;
    CUfileOpCounter_t batch_mixed_io_submit_ops;
    CUfileOpCounter_t batch_total_submit_ops;
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
} CUfileStatsLevel1_t;

typedef struct CUfileStatsLevel2 {
    CUfileStatsLevel1_t basic;
    uint64_t read_size_kb_hist[32];
    uint64_t write_size_kb_hist[32];
} CUfileStatsLevel2_t;

typedef struct CUfilePerGpuStats {
    char uuid[CUFILE_GPU_UUID_LEN];
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
    uint64_t writes_bytes; /* (sic: cuFile's name) */
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
} CUfilePerGpuStats_t;

typedef struct CUfileStatsLevel3 {
    CUfileStatsLevel2_t detailed;
    uint32_t num_gpus;
    CUfilePerGpuStats_t per_gpu_stats[16];
} CUfileStatsLevel3_t;

/* Level 0 records nothing; 1, 2 and 3 record everything (each level's call reads its part). */
CUFILE_API CUfileError_t cuFileSetStatsLevel(int level);
CUFILE_API CUfileError_t cuFileGetStatsLevel(int *level);
/* Start resumes recording at the level last set (1 if none was), Stop pauses it, Reset zeroes
 * the counters. All three need the driver open. */
CUFILE_API CUfileError_t cuFileStatsStart(void);
CUFILE_API CUfileError_t cuFileStatsStop(void);
CUFILE_API CUfileError_t cuFileStatsReset(void);
CUFILE_API CUfileError_t cuFileGetStatsL1(CUfileStatsLevel1_t *stats);
CUFILE_API CUfileError_t cuFileGetStatsL2(CUfileStatsLevel2_t *stats);
CUFILE_API CUfileError_t cuFileGetStatsL3(CUfileStatsLevel3_t *stats);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HIPFILE_CUFILE_H */
