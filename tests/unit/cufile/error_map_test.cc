// SPDX-License-Identifier: MIT
// Every value of both error enums, mapped both ways (cufile/error_map.h).
#include "cufile/error_map.h"

#include <gtest/gtest.h>

#include <vector>

namespace hipfile::cufile {
namespace {

std::vector<int> OpValues(int last) {
  std::vector<int> values = {0};
  for (int v = 5001; v <= last; ++v) {
    if (v != 5021 && v != 5032) values.push_back(v);  // unused in both enums
  }
  return values;
}

TEST(CuFileErrorMapTest, EveryHipFileOpErrorKeepsItsValueAndComesBack) {
  for (int v : OpValues(static_cast<int>(hipFileIOMaxError))) {
    const auto hip = static_cast<hipFileOpError_t>(v);
    const CUfileOpError cu = CuOpError(hip);
    if (hip == hipFileIOMaxError) {
      EXPECT_EQ(cu, CU_FILE_IO_MAX_ERROR);
    } else {
      EXPECT_EQ(static_cast<int>(cu), v) << "hipFile " << v;
    }
    EXPECT_EQ(HipOpError(cu), hip) << "hipFile " << v;
  }
}

TEST(CuFileErrorMapTest, EveryCuFileOpErrorMapsToAHipFileValue) {
  for (int v : OpValues(static_cast<int>(CU_FILE_IO_MAX_ERROR))) {
    const auto cu = static_cast<CUfileOpError>(v);
    const hipFileOpError_t hip = HipOpError(cu);
    if (v <= static_cast<int>(CU_FILE_ASYNC_NOT_SUPPORTED) || cu == CU_FILE_IO_MAX_ERROR) {
      EXPECT_EQ(CuOpError(hip), cu) << "cuFile " << v << " comes back";
    }
  }
  // cuFile's values past hipFile's: the nearest hipFile value.
  EXPECT_EQ(HipOpError(CU_FILE_INTERNAL_BATCH_SETUP_ERROR), hipFileInternalError);
  EXPECT_EQ(HipOpError(CU_FILE_INTERNAL_BATCH_SUBMIT_ERROR), hipFileBatchSubmitFailed);
  EXPECT_EQ(HipOpError(CU_FILE_INTERNAL_BATCH_GETSTATUS_ERROR), hipFileInternalError);
  EXPECT_EQ(HipOpError(CU_FILE_INTERNAL_BATCH_CANCEL_ERROR), hipFileInternalError);
  EXPECT_EQ(HipOpError(CU_FILE_NOMEM_ERROR), hipFileInternalError);
  EXPECT_EQ(HipOpError(CU_FILE_IO_ERROR), hipFileInternalError);
  EXPECT_EQ(HipOpError(CU_FILE_INTERNAL_BUF_REGISTER_ERROR), hipFileInternalError);
  EXPECT_EQ(HipOpError(CU_FILE_HASH_OPR_ERROR), hipFileInternalError);
  EXPECT_EQ(HipOpError(CU_FILE_INVALID_CONTEXT_ERROR), hipFileHipContextMismatch);
  EXPECT_EQ(HipOpError(CU_FILE_NVFS_INTERNAL_DRIVER_ERROR), hipFileDriverError);
  EXPECT_EQ(HipOpError(CU_FILE_BATCH_NOCOMPAT_ERROR), hipFileIONotSupported);
  EXPECT_EQ(HipOpError(CU_FILE_IO_MAX_ERROR), hipFileIOMaxError);
}

// Every named hipError_t (include/compat/hip/hip_runtime_api.h).
const hipError_t kHipErrors[] = {
    hipSuccess,
    hipErrorInvalidValue,
    hipErrorOutOfMemory,
    hipErrorNotInitialized,
    hipErrorDeinitialized,
    hipErrorInvalidConfiguration,
    hipErrorInvalidSymbol,
    hipErrorInvalidDevicePointer,
    hipErrorInvalidMemcpyDirection,
    hipErrorInsufficientDriver,
    hipErrorNoDevice,
    hipErrorInvalidDevice,
    hipErrorInvalidImage,
    hipErrorInvalidContext,
    hipErrorContextAlreadyCurrent,
    hipErrorMapFailed,
    hipErrorAlreadyMapped,
    hipErrorContextAlreadyInUse,
    hipErrorFileNotFound,
    hipErrorSharedObjectInitFailed,
    hipErrorOperatingSystem,
    hipErrorInvalidHandle,
    hipErrorIllegalState,
    hipErrorNotFound,
    hipErrorNotReady,
    hipErrorIllegalAddress,
    hipErrorLaunchOutOfResources,
    hipErrorLaunchTimeOut,
    hipErrorPeerAccessAlreadyEnabled,
    hipErrorPeerAccessNotEnabled,
    hipErrorSetOnActiveProcess,
    hipErrorContextIsDestroyed,
    hipErrorAssert,
    hipErrorHostMemoryAlreadyRegistered,
    hipErrorHostMemoryNotRegistered,
    hipErrorLaunchFailure,
    hipErrorNotSupported,
    hipErrorStreamCaptureUnsupported,
    hipErrorUnknown,
    hipErrorRuntimeMemory,
    hipErrorRuntimeOther,
    hipErrorTbd,
};

TEST(CuFileErrorMapTest, EveryHipErrorBecomesACuResultThatComesBack) {
  for (hipError_t h : kHipErrors) {
    const CUresult cu = CuResult(h);
    switch (h) {
      // The CUDA runtime API's codes and HIP's own: no CUresult of that number.
      case hipErrorInvalidConfiguration:
      case hipErrorInvalidDevicePointer:
      case hipErrorInvalidMemcpyDirection:
        EXPECT_EQ(static_cast<int>(cu), 1);  // CUDA_ERROR_INVALID_VALUE
        break;
      case hipErrorInvalidSymbol:
        EXPECT_EQ(static_cast<int>(cu), 500);  // CUDA_ERROR_NOT_FOUND
        break;
      case hipErrorRuntimeMemory:
        EXPECT_EQ(static_cast<int>(cu), 2);  // CUDA_ERROR_OUT_OF_MEMORY
        break;
      case hipErrorRuntimeOther:
      case hipErrorTbd:
        EXPECT_EQ(static_cast<int>(cu), 999);  // CUDA_ERROR_UNKNOWN
        break;
      default:
        EXPECT_EQ(static_cast<int>(cu), static_cast<int>(h)) << "hipError_t " << h;
        EXPECT_EQ(HipError(cu), h) << "hipError_t " << h << " comes back";
    }
  }
}

TEST(CuFileErrorMapTest, CuResultsComeBackThroughHip) {
  // The CUresult values cufile.h names without <cuda.h>, and some the driver returns that HIP
  // folds into one of its own.
  for (int c : {0, 1, 2, 3, 4, 100, 101, 201, 400, 500, 600, 700, 801, 999}) {
    EXPECT_EQ(static_cast<int>(CuResult(HipError(static_cast<CUresult>(c)))), c)
        << "CUresult " << c;
  }
  EXPECT_EQ(HipError(static_cast<CUresult>(34)), hipErrorInsufficientDriver);  // the stub library
  EXPECT_EQ(HipError(static_cast<CUresult>(46)), hipErrorNoDevice);            // device unavailable
  EXPECT_EQ(HipError(static_cast<CUresult>(12345)), hipErrorUnknown);
}

TEST(CuFileErrorMapTest, WholeResultsMapBothWays) {
  const hipFileError_t hip_cases[] = {
      {hipFileSuccess, hipSuccess},
      {hipFileInvalidValue, hipSuccess},
      {hipFileHandleNotRegistered, hipSuccess},
      {hipFileHipDriverError, hipErrorOutOfMemory},
      {hipFileHipDriverError, hipErrorInvalidContext},
      {hipFileHipDriverError, hipErrorNoDevice},
  };
  for (const hipFileError_t& h : hip_cases) {
    const CUfileError_t cu = ToCuFile(h);
    EXPECT_EQ(static_cast<int>(cu.err), static_cast<int>(h.err));
    EXPECT_EQ(static_cast<int>(cu.cu_err), static_cast<int>(h.hip_drv_err));
    const hipFileError_t back = ToHipFile(cu);
    EXPECT_EQ(back.err, h.err);
    EXPECT_EQ(back.hip_drv_err, h.hip_drv_err);
  }
  // cuFile's exhausted memory is hipFile's: a driver error with hipErrorOutOfMemory.
  const hipFileError_t nomem = ToHipFile({CU_FILE_NOMEM_ERROR, static_cast<CUresult>(0)});
  EXPECT_EQ(nomem.err, hipFileHipDriverError);
  EXPECT_EQ(nomem.hip_drv_err, hipErrorOutOfMemory);
  const CUfileError_t max = ToCuFile({hipFileIOMaxError, hipSuccess});
  EXPECT_EQ(max.err, CU_FILE_IO_MAX_ERROR);
}

TEST(CuFileErrorMapTest, ReadWriteResultsMapBothWays) {
  EXPECT_EQ(CuFileSsize(0), 0);
  EXPECT_EQ(CuFileSsize(4096), 4096);
  EXPECT_EQ(CuFileSsize(-1), -1);  // errno says the rest
  for (int v : OpValues(static_cast<int>(hipFileAsyncNotSupported))) {
    if (v == 0) continue;
    EXPECT_EQ(CuFileSsize(-v), -v);
    EXPECT_EQ(HipFileSsize(-v), -v);
  }
  EXPECT_EQ(CuFileSsize(-hipFileIOMaxError), -CU_FILE_IO_MAX_ERROR);
  EXPECT_EQ(HipFileSsize(-CU_FILE_IO_MAX_ERROR), -hipFileIOMaxError);
  EXPECT_EQ(HipFileSsize(-CU_FILE_NOMEM_ERROR), -hipFileInternalError);
  // A negated hipError_t: cuFile has one code for every GPU driver error.
  EXPECT_EQ(CuFileSsize(-hipErrorOutOfMemory), -CU_FILE_CUDA_DRIVER_ERROR);
  EXPECT_EQ(CuFileSsize(-hipErrorIllegalAddress), -CU_FILE_CUDA_DRIVER_ERROR);
  EXPECT_EQ(CuFileSsize(-hipFileHipDriverError), -CU_FILE_CUDA_DRIVER_ERROR);
  EXPECT_EQ(HipFileSsize(-CU_FILE_CUDA_DRIVER_ERROR), -hipFileHipDriverError);
}

TEST(CuFileErrorMapTest, EventResultsKeepErrnoAndMapOpErrors) {
  EXPECT_EQ(CuFileEventResult(8192), 8192);
  EXPECT_EQ(CuFileEventResult(-5), -5);    // -EIO
  EXPECT_EQ(CuFileEventResult(-12), -12);  // -ENOMEM
  EXPECT_EQ(CuFileEventResult(-hipFileInvalidValue), -CU_FILE_INVALID_VALUE);
  EXPECT_EQ(CuFileEventResult(-hipFileHipDriverError), -CU_FILE_CUDA_DRIVER_ERROR);
  EXPECT_EQ(CuFileEventResult(-hipFileIOMaxError), -CU_FILE_IO_MAX_ERROR);
}

}  // namespace
}  // namespace hipfile::cufile
