// SPDX-License-Identifier: MIT
#include "runtime/cuda/cuda_errors.h"

#include <gtest/gtest.h>

namespace hipfile::runtime {
namespace {

TEST(HipErrorFromCuda, CodesHipSharesKeepTheirNumber) {
  // CUDA numbers from cuda.h; HIP chose the same ones.
  const int shared[] = {0,   1,   2,   3,   4,   100, 101, 200, 201, 202, 205,
                        208, 216, 301, 303, 304, 400, 401, 500, 600, 700, 701,
                        702, 704, 705, 709, 710, 712, 713, 719, 801, 900, 999};
  for (int code : shared) EXPECT_EQ(HipErrorFromCuda(code), static_cast<hipError_t>(code)) << code;
}

TEST(HipErrorFromCuda, CudaOnlyCodesMapToTheNearestHipError) {
  EXPECT_EQ(HipErrorFromCuda(34), hipErrorInsufficientDriver);   // STUB_LIBRARY
  EXPECT_EQ(HipErrorFromCuda(36), hipErrorInsufficientDriver);   // CALL_REQUIRES_NEWER_DRIVER
  EXPECT_EQ(HipErrorFromCuda(803), hipErrorInsufficientDriver);  // SYSTEM_DRIVER_MISMATCH
  EXPECT_EQ(HipErrorFromCuda(46), hipErrorNoDevice);             // DEVICE_UNAVAILABLE
  EXPECT_EQ(HipErrorFromCuda(206), hipErrorMapFailed);           // UNMAP_FAILED
  EXPECT_EQ(HipErrorFromCuda(708), hipErrorSetOnActiveProcess);  // PRIMARY_CONTEXT_ACTIVE
  EXPECT_EQ(HipErrorFromCuda(716), hipErrorLaunchFailure);       // MISALIGNED_ADDRESS
  EXPECT_EQ(HipErrorFromCuda(800), hipErrorNotSupported);        // NOT_PERMITTED
  EXPECT_EQ(HipErrorFromCuda(901), hipErrorStreamCaptureUnsupported);
}

TEST(HipErrorFromCuda, UnknownCodesAreUnknown) {
  for (int code : {5, 214, 302, 909, 916, 1000, -1, 123456}) {
    EXPECT_EQ(HipErrorFromCuda(code), hipErrorUnknown) << code;
  }
}

}  // namespace
}  // namespace hipfile::runtime
