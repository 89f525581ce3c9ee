// SPDX-License-Identifier: MIT
// Loading the CUDA driver; these run on machines without a GPU.
#include "runtime/cuda/cuda_driver.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "runtime/cuda/cuda_runtime.h"

namespace hipfile::runtime {
namespace {

bool HaveLibcuda() {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (handle == nullptr) handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
}

TEST(LoadCudaDriver, AMissingLibraryIsNamedWithTheLoaderError) {
  CudaDriver driver;
  std::string why_not;
  EXPECT_FALSE(LoadCudaDriver("libhipfile-no-such-driver.so.1", &driver, &why_not));
  EXPECT_EQ(why_not.rfind("libhipfile-no-such-driver.so.1 not found: ", 0), 0u) << why_not;
  EXPECT_NE(why_not.find("No such file"), std::string::npos) << why_not;
  EXPECT_EQ(driver.cuInit, nullptr);
}

TEST(LoadCudaDriver, ALibraryWithoutTheEntryPointsIsRefused) {
  CudaDriver driver;
  std::string why_not;
  EXPECT_FALSE(LoadCudaDriver("libc.so.6", &driver, &why_not));
  EXPECT_EQ(why_not, "libc.so.6 lacks cuInit (driver too old?)");
  EXPECT_EQ(driver.cuInit, nullptr);
}

TEST(CreateCudaRuntime, WithoutLibcudaIsNullWithAReason) {
  if (HaveLibcuda()) GTEST_SKIP() << "libcuda.so.1 is installed here";
  std::string why_not;
  EXPECT_EQ(CreateCudaRuntime(&why_not), nullptr);
  EXPECT_EQ(why_not.rfind("libcuda.so.1 not found: ", 0), 0u) << why_not;
  EXPECT_EQ(CreateCudaRuntime(nullptr), nullptr);  // no reason wanted: still no crash
}

TEST(CreateCudaRuntime, IsNullOnlyWithAReason) {
  std::string why_not;
  std::unique_ptr<GpuRuntime> rt = CreateCudaRuntime(&why_not);
  if (rt == nullptr) {
    EXPECT_FALSE(why_not.empty());
  } else {
    EXPECT_STREQ(rt->Name(), "cuda");
  }
}

}  // namespace
}  // namespace hipfile::runtime
