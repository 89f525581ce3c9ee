// SPDX-License-Identifier: MIT
#include "stress/user_kernel.h"

#include <dlfcn.h>
#include <hipfile_ext.h>

#include <cstdint>
#include <cstring>

namespace hipfile::testing {
namespace {

// The CUDA driver API's types, as far as this file uses them.
using CUresult = int;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;

class CudaKernel final : public UserKernel {
 public:
  bool Load(std::string* why) {
    lib_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib_ == nullptr) return Fail(why, std::string("dlopen libcuda.so.1: ") + dlerror());
    load_ = reinterpret_cast<decltype(load_)>(dlsym(lib_, "cuModuleLoadData"));
    get_ = reinterpret_cast<decltype(get_)>(dlsym(lib_, "cuModuleGetFunction"));
    launch_ = reinterpret_cast<decltype(launch_)>(dlsym(lib_, "cuLaunchKernel"));
    if (load_ == nullptr || get_ == nullptr || launch_ == nullptr) {
      return Fail(why,
                  "libcuda.so.1 lacks cuModuleLoadData, cuModuleGetFunction or cuLaunchKernel");
    }
    // The library's calls leave the device's primary context current on this thread.
    if (hipDeviceSynchronize() != hipSuccess) return Fail(why, "hipDeviceSynchronize failed");
    if (const CUresult r = load_(&module_, kUserKernelPtx); r != 0) {
      return Fail(why, "cuModuleLoadData: CUresult " + std::to_string(r));
    }
    if (const CUresult r = get_(&function_, module_, "hipfile_test_add_bytes"); r != 0) {
      return Fail(why, "cuModuleGetFunction: CUresult " + std::to_string(r));
    }
    return true;
  }
  // The module stays loaded with the primary context: unloading it would wait for the streams.
  ~CudaKernel() override = default;

  hipError_t AddBytes(void* p, size_t n, unsigned delta, hipStream_t stream) override {
    auto bytes = static_cast<unsigned long long>(n);
    void* args[] = {&p, &bytes, &delta};
    constexpr unsigned kThreads = 256;
    const auto blocks =
        static_cast<unsigned>(std::min<size_t>((n + kThreads - 1) / kThreads, 1024));
    const CUresult r = launch_(function_, blocks == 0 ? 1 : blocks, 1, 1, kThreads, 1, 1, 0,
                               reinterpret_cast<CUstream>(stream), args, nullptr);
    return r == 0 ? hipSuccess : hipErrorLaunchFailure;
  }

 private:
  static bool Fail(std::string* why, std::string what) {
    *why = std::move(what);
    return false;
  }
  void* lib_ = nullptr;  // never closed: the module lives in the driver
  CUresult (*load_)(CUmodule*, const void*) = nullptr;
  CUresult (*get_)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*launch_)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                      unsigned, CUstream, void**, void**) = nullptr;
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
};

// The CPU runtime's stand-in: a host function on the stream does it to the bytes.
class HostKernel final : public UserKernel {
 public:
  hipError_t AddBytes(void* p, size_t n, unsigned delta, hipStream_t stream) override {
    auto* call = new Call{static_cast<unsigned char*>(p), n, delta};
    const hipError_t e = hipLaunchHostFunc(stream, Run, call);
    if (e != hipSuccess) delete call;
    return e;
  }

 private:
  struct Call {
    unsigned char* p;
    size_t n;
    unsigned delta;
  };
  static void Run(void* arg) {
    std::unique_ptr<Call> call(static_cast<Call*>(arg));
    AddToBytes(call->p, call->n, call->delta);
  }
};

}  // namespace

void AddToBytes(void* p, size_t n, unsigned delta) {
  // Eight lanes of bytes added without carries between them: the low seven bits of each lane
  // added, then each lane's top bit set to the sum of the two top bits and that carry.
  constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full;
  constexpr uint64_t kTop = 0x8080808080808080ull;
  const uint64_t d = 0x0101010101010101ull * (delta & 0xffu);
  auto* bytes = static_cast<unsigned char*>(p);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    std::memcpy(&x, bytes + i, 8);
    x = ((x & kLow7) + (d & kLow7)) ^ ((x ^ d) & kTop);
    std::memcpy(bytes + i, &x, 8);
  }
  for (; i < n; ++i) bytes[i] = static_cast<unsigned char>(bytes[i] + delta);
}

std::unique_ptr<UserKernel> UserKernel::Load(std::string* why) {
  if (std::strcmp(hipFileExtRuntimeName(), "cuda") != 0) return std::make_unique<HostKernel>();
  auto kernel = std::make_unique<CudaKernel>();
  if (!kernel->Load(why)) return nullptr;
  return kernel;
}

}  // namespace hipfile::testing
