// SPDX-License-Identifier: MIT
#include "api/status_map.h"

#include <errno.h>
#include <gtest/gtest.h>

namespace hipfile::api {
namespace {

TEST(ToErrorTest, EachChannel) {
  hipFileError_t e = ToError(Status::Ok());
  EXPECT_EQ(e.err, hipFileSuccess);
  EXPECT_EQ(e.hip_drv_err, hipSuccess);
  e = ToError(Status::Op(hipFileInvalidValue));
  EXPECT_EQ(e.err, hipFileInvalidValue);
  EXPECT_EQ(e.hip_drv_err, hipSuccess);
  e = ToError(Status::Gpu(hipErrorOutOfMemory));
  EXPECT_EQ(e.err, hipFileHipDriverError);
  EXPECT_EQ(e.hip_drv_err, hipErrorOutOfMemory);
  e = ToError(Status::Errno(EIO));
  EXPECT_EQ(e.err, hipFileInternalError);
  EXPECT_EQ(e.hip_drv_err, hipSuccess);
}

TEST(ToSsizeTest, EachChannel) {
  EXPECT_EQ(ToSsize(Result<size_t>(size_t{42})), 42);
  errno = 0;
  EXPECT_EQ(ToSsize(Result<size_t>(Status::Errno(ENOSPC))), -1);
  EXPECT_EQ(errno, ENOSPC);
  EXPECT_EQ(ToSsize(Result<size_t>(Status::Op(hipFileHandleNotRegistered))),
            -static_cast<ssize_t>(hipFileHandleNotRegistered));
  EXPECT_EQ(ToSsize(Result<size_t>(Status::Gpu(hipErrorIllegalAddress))),
            -static_cast<ssize_t>(hipErrorIllegalAddress));
}

TEST(ToSsizeTest, GpuInvalidValueIsNotMistakenForAnErrnoResult) {
  // -hipErrorInvalidValue is -1, the errno convention's value.
  EXPECT_EQ(ToSsize(Result<size_t>(Status::Gpu(hipErrorInvalidValue))),
            -static_cast<ssize_t>(hipFileHipDriverError));
}

}  // namespace
}  // namespace hipfile::api
