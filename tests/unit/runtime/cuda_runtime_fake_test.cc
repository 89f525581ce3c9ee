// SPDX-License-Identifier: MIT
// The CUDA runtime over a fake driver table: context handling, flag and attribute mapping, and
// the reasons creation fails. Runs without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/cuda_runtime.h"
#include "runtime/cuda/gather_kernel.h"
#include "runtime/device_attributes.h"

namespace hipfile::runtime {
namespace {

using cu::CUcontext;
using cu::CUdevice;
using cu::CUdeviceptr;
using cu::CUresult;

// Device handles differ from ordinals, as nothing promises they are equal.
constexpr CUdevice kHandleBase = 10;

CUcontext ContextOf(int ordinal) {
  return reinterpret_cast<CUcontext>(static_cast<uintptr_t>(0x1000 + ordinal));
}

struct FakeState {
  CUresult init_result = 0;
  int device_count = 2;
  int retains = 0;
  int releases = 0;
  int set_current_calls = 0;
  unsigned register_flags = 0;
  int register_calls = 0;
  CUresult alloc_result = 0;
  // What cuPointerGetAttributes reports.
  CUresult attributes_result = 0;
  unsigned memory_type = 0;
  bool is_managed = false;
  int ordinal = -1;
  CUdeviceptr range_start = 0;
  size_t range_size = 0;
  CUdeviceptr alloc_base = 0;  // cuMemGetAddressRange; 0: not found
  size_t alloc_size = 0;
  // Contexts made and destroyed (cuCtxCreate_v2: ContextOf(100 + n)), and the context current
  // at the last cuMemHostRegister / cuMemHostUnregister.
  CUresult create_result = 0;
  int creates = 0;
  int destroys = 0;
  CUcontext register_ctx = nullptr;
  int unregister_calls = 0;
  CUcontext unregister_ctx = nullptr;
};

FakeState g_fake;
thread_local CUcontext g_current = nullptr;
thread_local std::vector<CUcontext> g_pushed;  // contexts under g_current (push / pop)

CudaDriver FakeDriver() {
  CudaDriver d;
  d.cuInit = [](unsigned) { return g_fake.init_result; };
  d.cuGetErrorName = [](CUresult r, const char** name) -> CUresult {
    if (r != 100) return 1;
    *name = "CUDA_ERROR_NO_DEVICE";
    return 0;
  };
  d.cuDeviceGetCount = [](int* count) -> CUresult {
    *count = g_fake.device_count;
    return 0;
  };
  d.cuDeviceGet = [](CUdevice* device, int ordinal) -> CUresult {
    *device = kHandleBase + ordinal;
    return 0;
  };
  d.cuDevicePrimaryCtxRetain = [](CUcontext* ctx, CUdevice device) -> CUresult {
    ++g_fake.retains;
    *ctx = ContextOf(device - kHandleBase);
    return 0;
  };
  d.cuDevicePrimaryCtxRelease = [](CUdevice) -> CUresult {
    ++g_fake.releases;
    return 0;
  };
  d.cuCtxGetCurrent = [](CUcontext* ctx) -> CUresult {
    *ctx = g_current;
    return 0;
  };
  d.cuCtxSetCurrent = [](CUcontext ctx) -> CUresult {
    ++g_fake.set_current_calls;
    g_current = ctx;
    return 0;
  };
  d.cuCtxGetDevice = [](CUdevice* device) -> CUresult {
    if (g_current == nullptr) return 201;
    *device = kHandleBase + static_cast<int>(reinterpret_cast<uintptr_t>(g_current) - 0x1000);
    return 0;
  };
  // Required of a real driver (cuda_driver.cc): every stream is device 0's unless a test says
  // otherwise (AddKernels: stream 0x66 is device 1's).
  d.cuStreamGetCtx = [](cu::CUstream, CUcontext* ctx) -> CUresult {
    *ctx = ContextOf(0);
    return 0;
  };
  d.cuMemAlloc = [](CUdeviceptr* p, size_t) -> CUresult {
    if (g_fake.alloc_result != 0) return g_fake.alloc_result;
    *p = 0xd0000000;
    return 0;
  };
  d.cuMemHostRegister = [](void*, size_t, unsigned flags) -> CUresult {
    ++g_fake.register_calls;
    g_fake.register_flags = flags;
    g_fake.register_ctx = g_current;
    return 0;
  };
  d.cuMemHostUnregister = [](void*) -> CUresult {
    ++g_fake.unregister_calls;
    g_fake.unregister_ctx = g_current;
    return 0;
  };
  d.cuCtxPushCurrent = [](CUcontext ctx) -> CUresult {
    g_pushed.push_back(g_current);
    g_current = ctx;
    return 0;
  };
  d.cuCtxPopCurrent = [](CUcontext* ctx) -> CUresult {
    if (g_pushed.empty()) return 201;
    *ctx = g_current;
    g_current = g_pushed.back();
    g_pushed.pop_back();
    return 0;
  };
  d.cuCtxCreate = [](CUcontext* ctx, unsigned, CUdevice device) -> CUresult {
    if (g_fake.create_result != 0) return g_fake.create_result;
    ++g_fake.creates;
    *ctx = ContextOf(100 + static_cast<int>(device - kHandleBase));
    g_pushed.push_back(g_current);  // made current, as cuCtxCreate does
    g_current = *ctx;
    return 0;
  };
  d.cuCtxDestroy = [](CUcontext) -> CUresult {
    ++g_fake.destroys;
    return 0;
  };
  d.cuPointerGetAttributes = [](unsigned count, cu::CUpointer_attribute* attributes, void** data,
                                CUdeviceptr ptr) -> CUresult {
    if (g_fake.attributes_result != 0) return g_fake.attributes_result;
    for (unsigned i = 0; i < count; ++i) {
      switch (attributes[i]) {
        case cu::CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
          *static_cast<unsigned*>(data[i]) = g_fake.memory_type;
          break;
        case cu::CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
          *static_cast<CUdeviceptr*>(data[i]) = ptr;
          break;
        case cu::CU_POINTER_ATTRIBUTE_HOST_POINTER:
          *static_cast<void**>(data[i]) = nullptr;
          break;
        case cu::CU_POINTER_ATTRIBUTE_IS_MANAGED:
          *static_cast<bool*>(data[i]) = g_fake.is_managed;  // the driver writes one byte
          break;
        case cu::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
          *static_cast<int*>(data[i]) = g_fake.ordinal;
          break;
        case cu::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
          *static_cast<CUdeviceptr*>(data[i]) = g_fake.range_start;
          break;
        case cu::CU_POINTER_ATTRIBUTE_RANGE_SIZE:
          *static_cast<size_t*>(data[i]) = g_fake.range_size;
          break;
      }
    }
    return 0;
  };
  d.cuMemGetAddressRange = [](CUdeviceptr* base, size_t* size, CUdeviceptr) -> CUresult {
    if (g_fake.alloc_base == 0) return 500;
    *base = g_fake.alloc_base;
    *size = g_fake.alloc_size;
    return 0;
  };
  return d;
}

void* Ptr(uintptr_t address) { return reinterpret_cast<void*>(address); }

class CudaRuntimeFake : public ::testing::Test {
 protected:
  void SetUp() override {
    g_fake = FakeState{};
    g_current = nullptr;
    g_pushed.clear();
    driver_ = FakeDriver();
  }

  std::unique_ptr<GpuRuntime> Create(const CudaRuntimeOptions& options = {}) {
    std::string why_not;
    std::unique_ptr<GpuRuntime> rt = CreateCudaRuntimeWithDriver(driver_, &why_not, options);
    EXPECT_NE(rt, nullptr) << why_not;
    return rt;
  }
  // HIPFILE_COPY_KERNEL=0's runtime.
  std::unique_ptr<GpuRuntime> CreateWithoutCopyKernel() {
    CudaRuntimeOptions options;
    options.copy_kernel = false;
    return Create(options);
  }

  // Runs fn on a fresh thread, so the per-thread device it sets does not leak into other tests.
  template <class Fn>
  static void OnNewThread(Fn fn) {
    std::thread thread(fn);
    thread.join();
  }

  CudaDriver driver_;
};

TEST_F(CudaRuntimeFake, CuInitFailureIsTheReason) {
  g_fake.init_result = 100;
  std::string why_not;
  EXPECT_EQ(CreateCudaRuntimeWithDriver(driver_, &why_not), nullptr);
  EXPECT_EQ(why_not, "cuInit failed: CUDA_ERROR_NO_DEVICE (100)");
  g_fake.init_result = 4242;  // a code the driver cannot name
  EXPECT_EQ(CreateCudaRuntimeWithDriver(driver_, &why_not), nullptr);
  EXPECT_EQ(why_not, "cuInit failed: CUDA error 4242");
}

TEST_F(CudaRuntimeFake, NoDevicesIsTheReason) {
  g_fake.device_count = 0;
  std::string why_not;
  EXPECT_EQ(CreateCudaRuntimeWithDriver(driver_, &why_not), nullptr);
  EXPECT_EQ(why_not, "no CUDA devices");
}

TEST_F(CudaRuntimeFake, NameAndDeviceCount) {
  auto rt = Create();
  EXPECT_STREQ(rt->Name(), "cuda");
  int count = 0;
  ASSERT_EQ(rt->GetDeviceCount(&count), hipSuccess);
  EXPECT_EQ(count, 2);
  EXPECT_EQ(g_fake.retains, 0) << "contexts are retained on first use only";
}

TEST_F(CudaRuntimeFake, CallsRunInThePrimaryContextOfDeviceZeroByDefault) {
  auto rt = Create();
  void* p = nullptr;
  ASSERT_EQ(rt->Malloc(&p, 64), hipSuccess);
  EXPECT_EQ(p, Ptr(0xd0000000));
  EXPECT_EQ(g_current, ContextOf(0));
  EXPECT_EQ(g_fake.retains, 1);
  ASSERT_EQ(rt->Malloc(&p, 64), hipSuccess);
  EXPECT_EQ(g_fake.retains, 1);
  EXPECT_EQ(g_fake.set_current_calls, 1) << "an already current context is not set again";
  rt.reset();
  EXPECT_EQ(g_fake.releases, 1);
}

TEST_F(CudaRuntimeFake, ContextChangedBehindOurBackIsRestored) {
  auto rt = Create();
  OnNewThread([&] {
    ASSERT_EQ(rt->SetDevice(0), hipSuccess);
    g_current = ContextOf(1);  // e.g. cudaSetDevice(1) by other code on this thread
    void* p = nullptr;
    ASSERT_EQ(rt->Malloc(&p, 64), hipSuccess);
    EXPECT_EQ(g_current, ContextOf(0));
  });
}

TEST_F(CudaRuntimeFake, CurrentDeviceFollowsTheThreadsContextUntilSet) {
  auto rt = Create();
  OnNewThread([&] {
    g_current = ContextOf(1);
    int device = -1;
    ASSERT_EQ(rt->GetDevice(&device), hipSuccess);
    EXPECT_EQ(device, 1);
    ASSERT_EQ(rt->SetDevice(0), hipSuccess);
    EXPECT_EQ(g_current, ContextOf(0));
    g_current = ContextOf(1);
    ASSERT_EQ(rt->GetDevice(&device), hipSuccess);
    EXPECT_EQ(device, 0) << "SetDevice wins over other code's context";
  });
  OnNewThread([&] {
    int device = -1;
    ASSERT_EQ(rt->GetDevice(&device), hipSuccess);
    EXPECT_EQ(device, 0) << "no context current: device 0";
  });
}

TEST_F(CudaRuntimeFake, SetDeviceChecksTheOrdinal) {
  auto rt = Create();
  OnNewThread([&] {
    EXPECT_EQ(rt->SetDevice(2), hipErrorInvalidDevice);
    EXPECT_EQ(rt->SetDevice(-1), hipErrorInvalidDevice);
    ASSERT_EQ(rt->SetDevice(1), hipSuccess);
    EXPECT_EQ(g_current, ContextOf(1));
    int device = -1;
    ASSERT_EQ(rt->GetDevice(&device), hipSuccess);
    EXPECT_EQ(device, 1);
  });
  rt.reset();
  EXPECT_EQ(g_fake.releases, 1) << "only device 1 was retained";
}

TEST_F(CudaRuntimeFake, DriverErrorsComeBackAsHipErrors) {
  auto rt = Create();
  g_fake.alloc_result = 2;  // CUDA_ERROR_OUT_OF_MEMORY
  void* p = Ptr(1);
  EXPECT_EQ(rt->Malloc(&p, 64), hipErrorOutOfMemory);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(rt->Malloc(&p, 0), hipSuccess) << "a zero-byte allocation is a null pointer";
}

TEST_F(CudaRuntimeFake, HostRegisterIsAlwaysPortableAndMapped) {
  auto rt = Create();
  char buffer[64];
  ASSERT_EQ(rt->HostRegister(buffer, sizeof(buffer), hipHostRegisterDefault), hipSuccess);
  EXPECT_EQ(g_fake.register_flags, 0x1u | 0x2u);
  ASSERT_EQ(rt->HostRegister(buffer, sizeof(buffer), hipHostRegisterReadOnly), hipSuccess);
  EXPECT_EQ(g_fake.register_flags, 0x1u | 0x2u | 0x8u);
  ASSERT_EQ(rt->HostRegister(buffer, sizeof(buffer), hipHostRegisterIoMemory), hipSuccess);
  EXPECT_EQ(g_fake.register_flags, 0x1u | 0x2u | 0x4u);
  EXPECT_EQ(rt->HostRegister(buffer, sizeof(buffer), 0x100), hipErrorInvalidValue);
  EXPECT_EQ(rt->HostRegister(buffer, 0, 0), hipErrorInvalidValue);
  EXPECT_EQ(g_fake.register_calls, 3);
}

TEST_F(CudaRuntimeFake, AsidePinsAreMadeInAContextOfTheirOwnWhileAnyLasts) {
  auto rt = Create();
  char a[64], b[64];
  ASSERT_EQ(rt->HostRegisterAside(a, sizeof(a), hipHostRegisterReadOnly), hipSuccess);
  EXPECT_EQ(g_fake.creates, 1);
  EXPECT_EQ(g_fake.register_ctx, ContextOf(100)) << "pinned in the runtime's own context";
  EXPECT_EQ(g_fake.register_flags, 0x1u | 0x2u | 0x8u) << "portable: usable by every context";
  EXPECT_EQ(g_current, ContextOf(0)) << "the caller's context is current again";
  EXPECT_TRUE(g_pushed.empty());
  ASSERT_EQ(rt->HostRegisterAside(b, sizeof(b), hipHostRegisterReadOnly), hipSuccess);
  EXPECT_EQ(g_fake.creates, 1) << "one context for every pin";
  ASSERT_EQ(rt->HostUnregisterAside(a), hipSuccess);
  EXPECT_EQ(g_fake.unregister_ctx, ContextOf(100));
  EXPECT_EQ(g_fake.destroys, 0) << "b is still pinned through it";
  ASSERT_EQ(rt->HostUnregisterAside(b), hipSuccess);
  EXPECT_EQ(g_fake.destroys, 1) << "its device memory goes with the last pin";
  EXPECT_EQ(g_current, ContextOf(0));
  ASSERT_EQ(rt->HostRegisterAside(a, sizeof(a), hipHostRegisterReadOnly), hipSuccess);
  EXPECT_EQ(g_fake.creates, 2) << "made again when needed";
  rt.reset();
  EXPECT_EQ(g_fake.destroys, 2) << "and destroyed with the runtime";
}

TEST_F(CudaRuntimeFake, AsidePinsAreOrdinaryPinsWhereNoContextCanBeMade) {
  g_fake.create_result = 2;  // CUDA_ERROR_OUT_OF_MEMORY: a context takes device memory
  auto rt = Create();
  char a[64];
  ASSERT_EQ(rt->HostRegisterAside(a, sizeof(a), hipHostRegisterReadOnly), hipSuccess);
  EXPECT_EQ(g_fake.register_ctx, ContextOf(0)) << "pinned in the primary context";
  ASSERT_EQ(rt->HostRegisterAside(a + 32, 16, hipHostRegisterReadOnly), hipSuccess);
  ASSERT_EQ(rt->HostUnregisterAside(a), hipSuccess);
  EXPECT_EQ(g_fake.unregister_ctx, ContextOf(0));
  EXPECT_EQ(g_fake.creates, 0);
  EXPECT_EQ(g_fake.destroys, 0);

  driver_.cuCtxCreate = nullptr;  // a driver without cuCtxCreate_v2
  auto old = Create();
  ASSERT_EQ(old->HostRegisterAside(a, sizeof(a), hipHostRegisterReadOnly), hipSuccess);
  EXPECT_EQ(g_fake.register_ctx, ContextOf(0));
  EXPECT_EQ(old->HostRegisterAside(nullptr, 1, 0), hipErrorInvalidValue);
  EXPECT_EQ(old->HostUnregisterAside(nullptr), hipErrorInvalidValue);
}

TEST_F(CudaRuntimeFake, UnknownPointersAreUnregistered) {
  auto rt = Create();
  char host[16];
  PointerInfo info;
  info.device = 3;
  ASSERT_EQ(rt->PointerGetInfo(host, &info), hipSuccess);  // null attributes
  EXPECT_EQ(info.type, hipMemoryTypeUnregistered);
  EXPECT_EQ(info.device, -1);
  EXPECT_EQ(info.base, nullptr);

  g_fake.attributes_result = 1;  // CUDA_ERROR_INVALID_VALUE from some drivers
  info.device = 3;
  ASSERT_EQ(rt->PointerGetInfo(host, &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeUnregistered);
  EXPECT_EQ(info.device, -1);

  g_fake.attributes_result = 3;  // any other failure is an error
  EXPECT_EQ(rt->PointerGetInfo(host, &info), hipErrorNotInitialized);
}

TEST_F(CudaRuntimeFake, DeviceMemoryRangeComesFromTheMappedAllocation) {
  auto rt = Create();
  g_fake.memory_type = 2;  // CU_MEMORYTYPE_DEVICE
  g_fake.ordinal = 1;
  g_fake.range_start = 0x7000000;  // a larger reservation
  g_fake.range_size = 1 << 30;
  g_fake.alloc_base = 0x7100000;
  g_fake.alloc_size = 8192;
  PointerInfo info;
  ASSERT_EQ(rt->PointerGetInfo(Ptr(0x7100010), &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeDevice);
  EXPECT_EQ(info.device, 1);
  EXPECT_EQ(info.base, Ptr(0x7100000));
  EXPECT_EQ(info.size, 8192u);
  EXPECT_EQ(info.device_pointer, Ptr(0x7100010));
  EXPECT_FALSE(info.is_managed);
}

TEST_F(CudaRuntimeFake, PinnedHostRangeComesFromTheRangeAttributes) {
  auto rt = Create();
  g_fake.memory_type = 1;  // CU_MEMORYTYPE_HOST
  g_fake.ordinal = 0;
  g_fake.range_start = 0x5000000;
  g_fake.range_size = 4096;
  PointerInfo info;
  ASSERT_EQ(rt->PointerGetInfo(Ptr(0x5000100), &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeHost);
  EXPECT_EQ(info.base, Ptr(0x5000000));
  EXPECT_EQ(info.size, 4096u);
}

TEST_F(CudaRuntimeFake, ManagedMemoryIsManaged) {
  auto rt = Create();
  g_fake.memory_type = 2;
  g_fake.is_managed = true;
  g_fake.ordinal = 0;
  g_fake.alloc_base = 0x9000000;
  g_fake.alloc_size = 4096;
  PointerInfo info;
  ASSERT_EQ(rt->PointerGetInfo(Ptr(0x9000000), &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeManaged);
  EXPECT_TRUE(info.is_managed);
}

// What the device-query, managed-allocation and reset fakes saw.
struct DeviceState {
  int attribute_calls = 0;
  int last_attribute = -1;
  int managed_calls = 0;
  unsigned managed_flags = 0;
  size_t managed_size = 0;
  std::vector<std::string> calls;  // synchronize and reset, in order, with the device handle
};
DeviceState g_device;

// Attribute a of the device with ordinal n answers 1000 * a + n; the device has 80 GiB.
void AddDeviceQueries(CudaDriver& d) {
  d.cuDeviceGetName = [](char* name, int length, CUdevice device) -> CUresult {
    std::snprintf(name, static_cast<size_t>(length), "Fake GPU %d", device - kHandleBase);
    return 0;
  };
  d.cuDeviceTotalMem = [](size_t* bytes, CUdevice) -> CUresult {
    *bytes = size_t{80} << 30;
    return 0;
  };
  d.cuDeviceGetAttribute = [](int* value, int attribute, CUdevice device) -> CUresult {
    ++g_device.attribute_calls;
    g_device.last_attribute = attribute;
    *value = 1000 * attribute + (device - kHandleBase);
    return 0;
  };
  d.cuDriverGetVersion = [](int* version) -> CUresult {
    *version = 13000;
    return 0;
  };
  d.cuMemAllocManaged = [](CUdeviceptr* p, size_t size, unsigned flags) -> CUresult {
    ++g_device.managed_calls;
    g_device.managed_size = size;
    g_device.managed_flags = flags;
    *p = 0xe0000000;
    return 0;
  };
  d.cuCtxSynchronize = []() -> CUresult {
    g_device.calls.push_back("sync");
    return 719;  // a sticky error: the reset goes ahead anyway
  };
  d.cuDevicePrimaryCtxReset = [](CUdevice device) -> CUresult {
    g_device.calls.push_back("reset " + std::to_string(device));
    return 0;
  };
}

TEST_F(CudaRuntimeFake, DeviceQueriesComeFromTheDriverWithoutAContext) {
  g_device = DeviceState{};
  AddDeviceQueries(driver_);
  auto rt = Create();
  char name[32];
  ASSERT_EQ(rt->GetDeviceName(1, name, sizeof name), hipSuccess);
  EXPECT_STREQ(name, "Fake GPU 1");
  ASSERT_EQ(rt->GetDeviceName(0, name, 5), hipSuccess);
  EXPECT_STREQ(name, "Fake") << "cut to the buffer, terminated";
  size_t total = 0;
  ASSERT_EQ(rt->GetDeviceTotalMem(0, &total), hipSuccess);
  EXPECT_EQ(total, size_t{80} << 30);
  int value = 0;
  ASSERT_EQ(rt->GetDeviceAttribute(1, hipDeviceAttributeComputeCapabilityMajor, &value),
            hipSuccess);
  EXPECT_EQ(value, 75 * 1000 + 1);  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
  ASSERT_EQ(rt->GetDeviceAttribute(0, hipDeviceAttributePciDomainID, &value), hipSuccess);
  EXPECT_EQ(value, 50 * 1000);  // CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID
  ASSERT_EQ(rt->GetDeviceAttribute(0, hipDeviceAttributeMultiprocessorCount, &value), hipSuccess);
  EXPECT_EQ(value, 16 * 1000);  // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
  const int calls = g_device.attribute_calls;
  ASSERT_EQ(rt->GetDeviceAttribute(0, hipDeviceAttributeTotalGlobalMem, &value), hipSuccess);
  EXPECT_EQ(value, INT_MAX) << "80 GiB does not fit an int";
  EXPECT_EQ(rt->GetDeviceAttribute(0, hipDeviceAttributeMaxTexture1DWidth, &value),
            hipErrorInvalidValue);
  EXPECT_EQ(rt->GetDeviceAttribute(2, hipDeviceAttributeWarpSize, &value), hipErrorInvalidDevice);
  EXPECT_EQ(rt->GetDeviceAttribute(0, hipDeviceAttributeWarpSize, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(g_device.attribute_calls, calls) << "answered without asking the driver";
  EXPECT_EQ(rt->GetDeviceName(2, name, sizeof name), hipErrorInvalidDevice);
  EXPECT_EQ(rt->GetDeviceTotalMem(-1, &total), hipErrorInvalidDevice);
  int version = 0;
  ASSERT_EQ(rt->DriverGetVersion(&version), hipSuccess);
  EXPECT_EQ(version, 13000);
  EXPECT_EQ(rt->DriverGetVersion(nullptr), hipErrorInvalidValue);
  EXPECT_EQ(g_fake.retains, 0) << "device queries need no context";
}

// Each supported attribute but the total memory is one CUdevice_attribute of its own.
TEST_F(CudaRuntimeFake, EverySupportedAttributeHasItsOwnCudaAttribute) {
  g_device = DeviceState{};
  AddDeviceQueries(driver_);
  auto rt = Create();
  std::vector<int> seen;
  for (size_t i = 0; i < kSupportedDeviceAttributeCount; ++i) {
    const hipDeviceAttribute_t attribute = kSupportedDeviceAttributes[i];
    if (attribute == hipDeviceAttributeTotalGlobalMem) continue;
    SCOPED_TRACE(attribute);
    int value = -1;
    g_device.last_attribute = -1;
    ASSERT_EQ(rt->GetDeviceAttribute(0, attribute, &value), hipSuccess);
    ASSERT_GT(g_device.last_attribute, 0);
    EXPECT_EQ(value, 1000 * g_device.last_attribute);
    for (const int cu : seen) EXPECT_NE(cu, g_device.last_attribute);
    seen.push_back(g_device.last_attribute);
  }
  EXPECT_EQ(seen.size(), kSupportedDeviceAttributeCount - 1);
}

TEST_F(CudaRuntimeFake, MallocManagedPassesTheAttachFlag) {
  g_device = DeviceState{};
  AddDeviceQueries(driver_);
  auto rt = Create();
  void* p = nullptr;
  ASSERT_EQ(rt->MallocManaged(&p, 4096, hipMemAttachGlobal), hipSuccess);
  EXPECT_EQ(p, Ptr(0xe0000000));
  EXPECT_EQ(g_device.managed_flags, 0x1u);  // CU_MEM_ATTACH_GLOBAL
  EXPECT_EQ(g_device.managed_size, 4096u);
  EXPECT_EQ(g_current, ContextOf(0)) << "allocated in the current device's primary context";
  ASSERT_EQ(rt->MallocManaged(&p, 64, hipMemAttachHost), hipSuccess);
  EXPECT_EQ(g_device.managed_flags, 0x2u);  // CU_MEM_ATTACH_HOST
  EXPECT_EQ(rt->MallocManaged(&p, 64, 0), hipErrorInvalidValue);
  EXPECT_EQ(rt->MallocManaged(&p, 64, hipMemAttachGlobal | hipMemAttachHost), hipErrorInvalidValue);
  ASSERT_EQ(rt->MallocManaged(&p, 0, hipMemAttachGlobal), hipSuccess);
  EXPECT_EQ(p, nullptr) << "cuMemAllocManaged would refuse size 0";
  EXPECT_EQ(rt->MallocManaged(nullptr, 64, hipMemAttachGlobal), hipErrorInvalidValue);
  EXPECT_EQ(g_device.managed_calls, 2);
}

TEST_F(CudaRuntimeFake, StreamMemOpsNeedTheV2EntryPoints) {
  auto rt = Create();  // the fake has no cuStreamWaitValue32_v2
  EXPECT_FALSE(rt->SupportsStreamMemOps(0));
  uint32_t word = 0;
  EXPECT_EQ(rt->StreamWaitValue32(nullptr, &word, 1), hipErrorNotSupported);
  EXPECT_EQ(rt->StreamWriteValue32(nullptr, &word, 1), hipErrorNotSupported);
  EXPECT_EQ(rt->StreamWaitValue32(nullptr, nullptr, 1), hipErrorInvalidValue);
  EXPECT_FALSE(rt->SupportsStreamMemOps(5));
}

// A fake device whose stream memory operations work: a write stores into the pinned word at
// once, so the probe's wait and synchronize succeed.
struct ProbeState {
  int host_allocs = 0;
  int host_frees = 0;
  int streams_created = 0;
  int streams_destroyed = 0;
  std::vector<void*> live;  // pinned by the fake and not freed through it
};
ProbeState g_probe;

void AddStreamMemOps(CudaDriver& d) {
  d.cuMemHostAlloc = [](void** p, size_t size, unsigned) -> CUresult {
    ++g_probe.host_allocs;
    *p = std::calloc(1, size);
    g_probe.live.push_back(*p);
    return 0;
  };
  d.cuMemFreeHost = [](void* p) -> CUresult {
    ++g_probe.host_frees;
    g_probe.live.erase(std::remove(g_probe.live.begin(), g_probe.live.end(), p),
                       g_probe.live.end());
    std::free(p);
    return 0;
  };
  d.cuMemHostGetDevicePointer = [](CUdeviceptr* dptr, void* p, unsigned) -> CUresult {
    *dptr = reinterpret_cast<CUdeviceptr>(p);
    return 0;
  };
  d.cuStreamCreate = [](cu::CUstream* s, unsigned) -> CUresult {
    ++g_probe.streams_created;
    *s = reinterpret_cast<cu::CUstream>(0x77);
    return 0;
  };
  d.cuStreamDestroy = [](cu::CUstream) -> CUresult {
    ++g_probe.streams_destroyed;
    return 0;
  };
  d.cuStreamSynchronize = [](cu::CUstream) -> CUresult { return 0; };
  d.cuStreamWriteValue32 = [](cu::CUstream, CUdeviceptr addr, uint32_t value,
                              unsigned) -> CUresult {
    *reinterpret_cast<uint32_t*>(addr) = value;
    return 0;
  };
  d.cuStreamWaitValue32 = [](cu::CUstream, CUdeviceptr addr, uint32_t value, unsigned) -> CUresult {
    return *reinterpret_cast<uint32_t*>(addr) >= value ? 0 : 999;
  };
}

// Stream memory operations name pinned host words by their device address. Where every device
// uses pinned host memory at its host address (unified addressing, and host pointers usable for
// registered memory) that is the host address, with no driver lookup per call; elsewhere the
// driver says (cuMemHostGetDevicePointer) and its answer is used.
int g_lookups = 0;
int g_host_pointer_attribute = 1;
TEST_F(CudaRuntimeFake, StreamMemOpsLookUpDeviceAddressesOnlyWhereADeviceNeedsIt) {
  AddStreamMemOps(driver_);
  driver_.cuDeviceGetAttribute = [](int* value, int attribute, CUdevice) -> CUresult {
    *value = attribute == cu::CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM
                 ? g_host_pointer_attribute
                 : 1;
    return 0;
  };
  static uint32_t shadow = 0;  // where the fake driver maps every word when asked
  driver_.cuMemHostGetDevicePointer = [](CUdeviceptr* dptr, void*, unsigned) -> CUresult {
    ++g_lookups;
    *dptr = reinterpret_cast<CUdeviceptr>(&shadow);
    return 0;
  };
  uint32_t word = 0;
  {
    g_lookups = 0;
    auto rt = Create();
    ASSERT_EQ(rt->StreamWriteValue32(nullptr, &word, 7), hipSuccess);
    EXPECT_EQ(word, 7u) << "written at its host address";
    EXPECT_EQ(rt->StreamWaitValue32(nullptr, &word, 7), hipSuccess);
    EXPECT_EQ(g_lookups, 0);
  }
  {
    g_lookups = 0;
    g_host_pointer_attribute = 0;  // a device that cannot use host pointers of registered memory
    auto rt = Create();
    ASSERT_EQ(rt->StreamWriteValue32(nullptr, &word, 9), hipSuccess);
    EXPECT_EQ(shadow, 9u) << "written where the driver said";
    EXPECT_EQ(word, 7u);
    EXPECT_EQ(g_lookups, 1);
    g_host_pointer_attribute = 1;
  }
}

// The probe runs when the first stream-ordered operation arrives, maybe while the caller's
// streams are blocked; freeing pinned memory synchronizes the device, so the probe must not free
// its word until the runtime goes (on the H200 the first hipFileReadAsync behind a blocked host
// function hung in cuMemFreeHost).
TEST_F(CudaRuntimeFake, StreamMemOpsProbeFreesNothingUntilTheRuntimeGoes) {
  g_probe = ProbeState{};
  AddStreamMemOps(driver_);
  auto rt = Create();
  EXPECT_TRUE(rt->SupportsStreamMemOps(1));
  EXPECT_TRUE(rt->SupportsStreamMemOps(1));  // probed once, remembered
  EXPECT_EQ(g_probe.host_allocs, 1);
  EXPECT_EQ(g_probe.streams_created, 1);
  EXPECT_EQ(g_probe.streams_destroyed, 1);
  EXPECT_EQ(g_probe.host_frees, 0);
  EXPECT_EQ(g_current, nullptr) << "the caller's context is restored";
  rt.reset();
  EXPECT_EQ(g_probe.host_frees, 1);
  EXPECT_EQ(g_fake.releases, g_fake.retains);
  EXPECT_EQ(g_current, nullptr);
}

// The reset waits, then resets the primary context of the calling thread's device only; what it
// destroyed (the probe's pinned word) is not freed again, and the next call retains the context
// afresh.
TEST_F(CudaRuntimeFake, DeviceResetResetsOnlyTheCurrentDevice) {
  g_device = DeviceState{};
  g_probe = ProbeState{};
  AddDeviceQueries(driver_);
  AddStreamMemOps(driver_);
  auto rt = Create();
  OnNewThread([&] {
    void* p = nullptr;
    ASSERT_EQ(rt->Malloc(&p, 64), hipSuccess);  // device 0 retained
    ASSERT_EQ(rt->SetDevice(1), hipSuccess);
    EXPECT_TRUE(rt->SupportsStreamMemOps(1));  // a pinned word in device 1's context
    EXPECT_EQ(g_fake.retains, 2);
    ASSERT_EQ(rt->DeviceReset(), hipSuccess);
    EXPECT_EQ(g_device.calls,
              (std::vector<std::string>{"sync", "reset " + std::to_string(kHandleBase + 1)}));
    EXPECT_EQ(g_fake.releases, 1) << "device 1's retain is balanced";
    EXPECT_EQ(g_current, nullptr) << "the reset context is no longer current";
    ASSERT_EQ(rt->Malloc(&p, 64), hipSuccess);
    EXPECT_EQ(g_fake.retains, 3) << "retained afresh";
    EXPECT_EQ(g_current, ContextOf(1));
  });
  rt.reset();
  EXPECT_EQ(g_fake.releases, g_fake.retains);
  EXPECT_EQ(g_probe.host_frees, 0) << "the reset freed the probe's word already";
  // A real reset frees the context's pinned memory; the fake's is freed here.
  for (void* p : g_probe.live) std::free(p);
  g_probe.live.clear();
}

// What the fake batch and single copies saw.
struct CopyCalls {
  int batches = 0;
  int batches_v1 = 0;
  size_t batch_count = 0;
  int attrs_order = 0;
  size_t num_attrs = 0;
  int singles = 0;
  CUresult batch_result = 0;
  std::vector<CUdeviceptr> single_dsts;
};
CopyCalls g_copies;

CUresult FakeBatch(CUdeviceptr* dsts, CUdeviceptr*, size_t*, size_t count,
                   cu::CUmemcpyAttributes* attrs, size_t* idxs, size_t num_attrs) {
  g_copies.batch_count = count;
  g_copies.attrs_order = attrs[0].srcAccessOrder;
  g_copies.num_attrs = num_attrs;
  EXPECT_EQ(idxs[0], 0u);
  EXPECT_NE(dsts[0], 0u);
  return g_copies.batch_result;
}

void AddCopies(CudaDriver& d, bool v2, bool v1) {
  g_copies = CopyCalls{};
  d.cuMemcpyAsync = [](CUdeviceptr dst, CUdeviceptr, size_t, cu::CUstream) -> CUresult {
    ++g_copies.singles;
    g_copies.single_dsts.push_back(dst);
    return 0;
  };
  if (v2) {
    d.cuMemcpyBatchAsync = [](CUdeviceptr* dsts, CUdeviceptr* srcs, size_t* sizes, size_t count,
                              cu::CUmemcpyAttributes* attrs, size_t* idxs, size_t num_attrs,
                              cu::CUstream) -> CUresult {
      ++g_copies.batches;
      return FakeBatch(dsts, srcs, sizes, count, attrs, idxs, num_attrs);
    };
  }
  if (v1) {
    d.cuMemcpyBatchAsyncV1 = [](CUdeviceptr* dsts, CUdeviceptr* srcs, size_t* sizes, size_t count,
                                cu::CUmemcpyAttributes* attrs, size_t* idxs, size_t num_attrs,
                                size_t* fail_idx, cu::CUstream) -> CUresult {
      ++g_copies.batches_v1;
      EXPECT_NE(fail_idx, nullptr);
      return FakeBatch(dsts, srcs, sizes, count, attrs, idxs, num_attrs);
    };
  }
}

std::vector<CopyOp> FourCopies(char* base) {
  return {{base, base + 100, 8},
          {base + 8, base + 200, 8},
          {base + 16, base + 300, 0},
          {base + 24, base + 400, 8}};
}

TEST_F(CudaRuntimeFake, BatchCopiesAreOneDriverCall) {
  AddCopies(driver_, true, true);
  auto rt = Create();
  char buf[512];
  std::vector<CopyOp> copies = FourCopies(buf);
  copies[1].src = nullptr;
  hipError_t errors[4] = {hipErrorUnknown, hipErrorUnknown, hipErrorUnknown, hipErrorUnknown};
  const Stream s = reinterpret_cast<Stream>(0x55);
  EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), 4, hipMemcpyHostToDevice, s, errors),
            hipErrorInvalidValue);
  EXPECT_EQ(g_copies.batches, 1);
  EXPECT_EQ(g_copies.batches_v1, 0) << "CUDA 13's entry point first";
  EXPECT_EQ(g_copies.batch_count, 2u) << "the empty and the invalid copy stay out";
  EXPECT_EQ(g_copies.attrs_order, cu::CU_MEMCPY_SRC_ACCESS_ORDER_STREAM);
  EXPECT_EQ(g_copies.num_attrs, 1u);
  EXPECT_EQ(g_copies.singles, 0);
  EXPECT_EQ(errors[0], hipSuccess);
  EXPECT_EQ(errors[1], hipErrorInvalidValue);
  EXPECT_EQ(errors[2], hipSuccess);
  EXPECT_EQ(errors[3], hipSuccess);
}

TEST_F(CudaRuntimeFake, BatchCopiesUseCuda12EntryPointWhenAlone) {
  AddCopies(driver_, false, true);
  auto rt = Create();
  char buf[512];
  const std::vector<CopyOp> copies = FourCopies(buf);
  EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), 4, hipMemcpyHostToDevice,
                                 reinterpret_cast<Stream>(0x55), nullptr),
            hipSuccess);
  EXPECT_EQ(g_copies.batches_v1, 1);
  EXPECT_EQ(g_copies.batch_count, 3u);
  EXPECT_EQ(g_copies.singles, 0);
}

// A refused batch does not say which copies were queued: each is queued again on its own.
TEST_F(CudaRuntimeFake, RefusedBatchIsQueuedCopyByCopy) {
  AddCopies(driver_, true, false);
  g_copies.batch_result = 1;  // CUDA_ERROR_INVALID_VALUE
  auto rt = Create();
  char buf[512];
  const std::vector<CopyOp> copies = FourCopies(buf);
  hipError_t errors[4];
  EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), 4, hipMemcpyDeviceToHost,
                                 reinterpret_cast<Stream>(0x55), errors),
            hipSuccess);
  EXPECT_EQ(g_copies.batches, 1);
  EXPECT_EQ(g_copies.singles, 3);
  for (hipError_t e : errors) EXPECT_EQ(e, hipSuccess);
}

// Without a batch entry point, on the legacy default stream (which the batch call refuses) and
// for one copy, copies go one by one.
TEST_F(CudaRuntimeFake, BatchCopiesFallBackToSingleCopies) {
  char buf[512];
  const std::vector<CopyOp> copies = FourCopies(buf);
  {
    AddCopies(driver_, false, false);
    auto rt = Create();
    EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), 4, hipMemcpyHostToDevice,
                                   reinterpret_cast<Stream>(0x55), nullptr),
              hipSuccess);
    EXPECT_EQ(g_copies.singles, 3);
  }
  {
    AddCopies(driver_, true, true);
    auto rt = Create();
    EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), 4, hipMemcpyHostToDevice, nullptr, nullptr),
              hipSuccess);
    EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), 1, hipMemcpyHostToDevice,
                                   reinterpret_cast<Stream>(0x55), nullptr),
              hipSuccess);
    EXPECT_EQ(g_copies.batches + g_copies.batches_v1, 0);
    EXPECT_EQ(g_copies.singles, 4);
  }
}

// What the fake module API saw.
struct KernelCalls {
  int host_pointer_attribute = 1;  // CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM
  CUresult load_result = 0;
  int loads = 0;
  int unloads = 0;
  const char* ptx = nullptr;
  std::vector<std::string> function_names;
  std::vector<CUresult> launch_results;  // per launch, 0 past the end
  std::vector<unsigned> grids;           // grid x of each accepted launch
  std::vector<CopyTable> args;           // its parameter
  std::vector<unsigned> table_grids;     // grid x of each table-kernel launch
  std::vector<unsigned> table_tokens;    // the token each table-kernel launch copies for
  std::vector<CUdeviceptr> tables;       // its parameter
  // Each run-kernel launch's parameters: tables, head (its first table), first, last, ready,
  // copied; and grid x.
  struct Run {
    CUdeviceptr tables, head, ready, copied;
    unsigned first, last, grid;
  };
  std::vector<Run> runs;
  unsigned block = 0;
  std::vector<cu::CUstream> streams;
  std::vector<CUcontext> launch_contexts;  // the current context of each launch
};
KernelCalls g_kernel;

cu::CUmodule FakeModule() { return reinterpret_cast<cu::CUmodule>(0x600); }
cu::CUfunction FakeFunction() { return reinterpret_cast<cu::CUfunction>(0x700); }
cu::CUfunction FakeTableFunction() { return reinterpret_cast<cu::CUfunction>(0x800); }
cu::CUfunction FakeRunFunction() { return reinterpret_cast<cu::CUfunction>(0x900); }

void AddKernels(CudaDriver& d) {
  g_kernel = KernelCalls{};
  d.cuDeviceGetAttribute = [](int* value, int attribute, CUdevice) -> CUresult {
    *value = attribute == cu::CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM
                 ? g_kernel.host_pointer_attribute
                 : 1;
    return 0;
  };
  // Stream 0x66 is device 1's; every other stream device 0's.
  d.cuStreamGetDevice = [](cu::CUstream stream, CUdevice* device) -> CUresult {
    *device = kHandleBase + (stream == reinterpret_cast<cu::CUstream>(0x66) ? 1 : 0);
    return 0;
  };
  d.cuModuleLoadData = [](cu::CUmodule* module, const void* image) -> CUresult {
    ++g_kernel.loads;
    g_kernel.ptx = static_cast<const char*>(image);
    if (g_kernel.load_result != 0) return g_kernel.load_result;
    *module = FakeModule();
    return 0;
  };
  d.cuModuleUnload = [](cu::CUmodule module) -> CUresult {
    EXPECT_EQ(module, FakeModule());
    ++g_kernel.unloads;
    return 0;
  };
  d.cuModuleGetFunction = [](cu::CUfunction* function, cu::CUmodule module,
                             const char* name) -> CUresult {
    EXPECT_EQ(module, FakeModule());
    g_kernel.function_names.push_back(name);
    *function = std::string(name) == kCopyTableKernelName      ? FakeTableFunction()
                : std::string(name) == kCopyTableRunKernelName ? FakeRunFunction()
                                                               : FakeFunction();
    return 0;
  };
  d.cuLaunchKernel = [](cu::CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                        unsigned block_x, unsigned block_y, unsigned block_z, unsigned shared,
                        cu::CUstream stream, void** params, void** extra) -> CUresult {
    EXPECT_EQ(grid_y * grid_z * block_y * block_z, 1u);
    EXPECT_EQ(shared, 0u);
    EXPECT_EQ(extra, nullptr);
    const size_t launch = g_kernel.grids.size();
    const CUresult r =
        launch < g_kernel.launch_results.size() ? g_kernel.launch_results[launch] : 0;
    if (r != 0) {
      g_kernel.launch_results.erase(g_kernel.launch_results.begin() + launch);
      return r;
    }
    g_kernel.block = block_x;
    g_kernel.streams.push_back(stream);
    g_kernel.launch_contexts.push_back(g_current);
    if (function == FakeTableFunction()) {
      g_kernel.table_grids.push_back(grid_x);
      g_kernel.tables.push_back(*static_cast<const CUdeviceptr*>(params[0]));
      g_kernel.table_tokens.push_back(*static_cast<const unsigned*>(params[1]));
      return 0;
    }
    if (function == FakeRunFunction()) {
      g_kernel.runs.push_back(
          {*static_cast<const CUdeviceptr*>(params[0]), *static_cast<const CUdeviceptr*>(params[1]),
           *static_cast<const CUdeviceptr*>(params[4]), *static_cast<const CUdeviceptr*>(params[5]),
           *static_cast<const unsigned*>(params[2]), *static_cast<const unsigned*>(params[3]),
           grid_x});
      return 0;
    }
    EXPECT_EQ(function, FakeFunction());
    g_kernel.grids.push_back(grid_x);
    g_kernel.args.push_back(*static_cast<const CopyTable*>(params[0]));
    return 0;
  };
}

// n copies of `size` bytes, copy i from src + 100000 * i to dst + 100000 * i.
std::vector<CopyOp> ManyCopies(size_t n, size_t size) {
  std::vector<CopyOp> copies(n);
  for (size_t i = 0; i < n; ++i) {
    copies[i] = {reinterpret_cast<void*>(0xd0000000 + 100000 * i),
                 reinterpret_cast<const void*>(0x70000000 + 100000 * i), size};
  }
  return copies;
}

TEST_F(CudaRuntimeFake, SmallCopiesAreOneGatherLaunch) {
  AddCopies(driver_, true, true);
  AddKernels(driver_);
  auto rt = Create();
  char buf[512];
  std::vector<CopyOp> copies = FourCopies(buf);
  copies[1].src = nullptr;
  hipError_t errors[4] = {hipErrorUnknown, hipErrorUnknown, hipErrorUnknown, hipErrorUnknown};
  const Stream s = reinterpret_cast<Stream>(0x55);
  EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), 4, hipMemcpyHostToDevice, s, errors),
            hipErrorInvalidValue);
  ASSERT_EQ(g_kernel.grids, std::vector<unsigned>{2}) << "one block per copy to queue";
  EXPECT_EQ(g_kernel.block, kGatherThreadsPerBlock);
  EXPECT_EQ(g_kernel.streams[0], reinterpret_cast<cu::CUstream>(0x55));
  const CopyTable& args = g_kernel.args[0];
  EXPECT_EQ(args.count, 2u);
  EXPECT_EQ(args.copy[0].dst, reinterpret_cast<uintptr_t>(buf));
  EXPECT_EQ(args.copy[0].src, reinterpret_cast<uintptr_t>(buf + 100));
  EXPECT_EQ(args.copy[0].bytes, 8u);
  EXPECT_EQ(args.copy[1].dst, reinterpret_cast<uintptr_t>(buf + 24));
  EXPECT_EQ(args.copy[1].src, reinterpret_cast<uintptr_t>(buf + 400));
  EXPECT_EQ(g_copies.batches + g_copies.singles, 0);
  EXPECT_EQ(errors[0], hipSuccess);
  EXPECT_EQ(errors[1], hipErrorInvalidValue);
  EXPECT_EQ(errors[2], hipSuccess);
  EXPECT_EQ(errors[3], hipSuccess);
  // The module is loaded once, from our PTX, and unloaded with the runtime.
  EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), 1, hipMemcpyDeviceToHost, nullptr, nullptr),
            hipSuccess);
  EXPECT_EQ(g_kernel.grids.size(), 2u) << "a single copy, on the legacy stream too";
  EXPECT_EQ(g_kernel.loads, 1);
  EXPECT_STREQ(g_kernel.ptx, kGatherKernelPtx);
  EXPECT_EQ(
      g_kernel.function_names,
      (std::vector<std::string>{kGatherKernelName, kCopyTableKernelName, kCopyTableRunKernelName}));
  rt.reset();
  EXPECT_EQ(g_kernel.unloads, 1);
}

// Several GPUs: a batch's copies on a stream of device 1, queued by a thread on device 0 (an
// engine thread serving a buffer of device 1), launch device 1's gather kernel from device 1's
// context - a launch from another context fails - and the thread keeps its context.
TEST_F(CudaRuntimeFake, SmallCopiesOnAnotherDevicesStreamLaunchInItsContext) {
  AddCopies(driver_, true, true);
  AddKernels(driver_);
  auto rt = Create();
  const std::vector<CopyOp> copies = ManyCopies(4, 4096);
  EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), copies.size(), hipMemcpyHostToDevice,
                                 reinterpret_cast<Stream>(0x55), nullptr),
            hipSuccess);
  EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), copies.size(), hipMemcpyHostToDevice,
                                 reinterpret_cast<Stream>(0x66), nullptr),
            hipSuccess);
  ASSERT_EQ(g_kernel.launch_contexts.size(), 2u);
  EXPECT_EQ(g_kernel.launch_contexts[0], ContextOf(0));
  EXPECT_EQ(g_kernel.launch_contexts[1], ContextOf(1)) << "launched outside the stream's context";
  EXPECT_EQ(g_kernel.streams[1], reinterpret_cast<cu::CUstream>(0x66));
  EXPECT_EQ(g_kernel.loads, 2) << "one module per device";
  EXPECT_EQ(g_current, ContextOf(0)) << "the thread's context was not given back";
  EXPECT_EQ(g_copies.batches + g_copies.singles, 0);
}

TEST_F(CudaRuntimeFake, GatherLaunchesTakeAtMost128Copies) {
  AddCopies(driver_, true, true);
  AddKernels(driver_);
  auto rt = Create();
  const std::vector<CopyOp> copies = ManyCopies(300, kGatherMaxCopyBytes);
  EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), copies.size(), hipMemcpyDeviceToHost,
                                 reinterpret_cast<Stream>(0x55), nullptr),
            hipSuccess);
  EXPECT_EQ(g_kernel.grids, (std::vector<unsigned>{128, 128, 44}));
  ASSERT_EQ(g_kernel.args.size(), 3u);
  EXPECT_EQ(g_kernel.args[2].count, 44u);
  EXPECT_EQ(g_kernel.args[2].copy[43].dst, 0xd0000000 + 100000 * 299);
  EXPECT_EQ(g_kernel.args[1].copy[0].src, 0x70000000 + 100000 * 128);
  EXPECT_EQ(g_copies.batches + g_copies.singles, 0);
}

// Past 64 KiB a copy engine moves bytes as fast: the batch call takes them all; host-to-host
// copies are never the kernel's; nor are any copies when the option is off.
TEST_F(CudaRuntimeFake, LargeHostToHostOrOptedOutCopiesTakeTheBatchCall) {
  AddCopies(driver_, true, true);
  AddKernels(driver_);
  const Stream s = reinterpret_cast<Stream>(0x55);
  {
    auto rt = Create();
    std::vector<CopyOp> copies = ManyCopies(3, 4096);
    copies[2].size = kGatherMaxCopyBytes + 1;
    EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), 3, hipMemcpyHostToDevice, s, nullptr),
              hipSuccess);
    EXPECT_EQ(g_copies.batches, 1);
    EXPECT_EQ(g_copies.batch_count, 3u);
    EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), 2, hipMemcpyHostToHost, s, nullptr), hipSuccess);
    EXPECT_EQ(g_copies.batches, 2);
    EXPECT_TRUE(g_kernel.grids.empty());
  }
  {
    auto rt = CreateWithoutCopyKernel();
    ASSERT_NE(rt, nullptr);
    const std::vector<CopyOp> copies = ManyCopies(3, 4096);
    EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), 3, hipMemcpyHostToDevice, s, nullptr),
              hipSuccess);
    EXPECT_EQ(g_copies.batches, 3);
    EXPECT_TRUE(g_kernel.grids.empty());
    EXPECT_EQ(g_kernel.loads, 0);
  }
}

// A device that cannot use host pointers, or a driver that cannot load the PTX: the batch call,
// and the reason is remembered rather than asked again on every copy.
TEST_F(CudaRuntimeFake, WithoutTheKernelSmallCopiesTakeTheBatchCall) {
  const Stream s = reinterpret_cast<Stream>(0x55);
  const std::vector<CopyOp> copies = ManyCopies(4, 4096);
  for (const bool load_fails : {false, true}) {
    AddCopies(driver_, true, true);
    AddKernels(driver_);
    if (load_fails) {
      g_kernel.load_result = 218;  // CUDA_ERROR_INVALID_PTX
    } else {
      g_kernel.host_pointer_attribute = 0;
    }
    auto rt = Create();
    for (int round = 0; round < 3; ++round) {
      EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), 4, hipMemcpyHostToDevice, s, nullptr),
                hipSuccess);
    }
    EXPECT_EQ(g_copies.batches, 3);
    EXPECT_TRUE(g_kernel.grids.empty());
    EXPECT_EQ(g_kernel.loads, load_fails ? 1 : 0);
    rt.reset();
    EXPECT_EQ(g_kernel.unloads, 0) << "nothing was loaded";
  }
}

// A refused launch queued nothing: its copies and the later ones go through the batch call, none
// twice; the next call tries the kernel again.
TEST_F(CudaRuntimeFake, RefusedLaunchLeavesItsCopiesToTheBatchCall) {
  AddCopies(driver_, true, true);
  AddKernels(driver_);
  g_kernel.launch_results = {0, 700};  // the second launch is refused
  auto rt = Create();
  const std::vector<CopyOp> copies = ManyCopies(300, 4096);
  hipError_t errors[300];
  const Stream s = reinterpret_cast<Stream>(0x55);
  EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), copies.size(), hipMemcpyHostToDevice, s, errors),
            hipSuccess);
  EXPECT_EQ(g_kernel.grids, std::vector<unsigned>{128});
  EXPECT_EQ(g_copies.batches, 1);
  EXPECT_EQ(g_copies.batch_count, 172u);
  for (hipError_t e : errors) EXPECT_EQ(e, hipSuccess);
  EXPECT_EQ(rt->MemcpyBatchAsync(copies.data(), 2, hipMemcpyHostToDevice, s, nullptr), hipSuccess);
  EXPECT_EQ(g_kernel.grids, (std::vector<unsigned>{128, 2}));
}

// CopyTableAsync launches the table kernel with the table's address and the token; the grid
// strides over it.
TEST_F(CudaRuntimeFake, CopyTableIsOneLaunchOfTheTableKernel) {
  AddKernels(driver_);
  CopyTable table;
  const Stream s = reinterpret_cast<Stream>(0x55);
  {
    auto rt = Create();
    EXPECT_EQ(rt->CopyTableAsync(nullptr, 1, s), hipErrorInvalidValue);
    EXPECT_EQ(rt->CopyTableAsync(&table, 0xfffffff7u, s), hipSuccess);
    ASSERT_EQ(g_kernel.tables.size(), 1u);
    EXPECT_EQ(g_kernel.tables[0], reinterpret_cast<uintptr_t>(&table));
    EXPECT_EQ(g_kernel.table_tokens[0], 0xfffffff7u);
    EXPECT_EQ(g_kernel.table_grids[0], kCopyTableBlocks);
    EXPECT_EQ(g_kernel.block, kGatherThreadsPerBlock);
    EXPECT_EQ(g_kernel.streams[0], reinterpret_cast<cu::CUstream>(0x55));
    EXPECT_TRUE(g_kernel.grids.empty());
    EXPECT_EQ(g_kernel.launch_contexts.back(), ContextOf(0));
    // A stream of device 1 from a thread on device 0: launched in device 1's context (its own
    // module), and the thread's context given back.
    EXPECT_EQ(rt->CopyTableAsync(&table, 2, reinterpret_cast<Stream>(0x66)), hipSuccess);
    EXPECT_EQ(g_kernel.launch_contexts.back(), ContextOf(1));
    EXPECT_EQ(g_kernel.loads, 2) << "one module per device";
    EXPECT_EQ(g_current, ContextOf(0));
  }
  {
    auto rt = CreateWithoutCopyKernel();
    ASSERT_NE(rt, nullptr);
    EXPECT_EQ(rt->CopyTableAsync(&table, 1, s), hipErrorNotSupported);
  }
  {
    AddKernels(driver_);
    g_kernel.load_result = 218;  // CUDA_ERROR_INVALID_PTX
    auto rt = Create();
    EXPECT_EQ(rt->CopyTableAsync(&table, 1, s), hipErrorNotSupported);
    EXPECT_TRUE(g_kernel.tables.empty());
  }
}

// A copy the stream makes, and how many run-kernel launches came before it.
struct MirrorCopy {
  CUdeviceptr dst, src;
  size_t bytes;
  size_t runs_before;
};
std::vector<MirrorCopy> g_mirror_copies;

// CopyTableRunAsync launches the run kernel with the tables, its first table, the run's tokens
// and the words, on the table kernel's grid; with a mirror, after a copy of the first table
// there, which the launch then reads as its first. A run that ends before it begins, or a
// missing address, is refused.
TEST_F(CudaRuntimeFake, CopyTableRunIsOneLaunchOfTheRunKernel) {
  AddKernels(driver_);
  g_mirror_copies.clear();
  driver_.cuMemcpyAsync = [](CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                             cu::CUstream) -> CUresult {
    g_mirror_copies.push_back({dst, src, bytes, g_kernel.runs.size()});
    return 0;
  };
  CopyTable tables[2];
  CopyTable mirror[2];  // device memory, as far as the fake driver knows
  uint32_t words[2] = {};
  const Stream s = reinterpret_cast<Stream>(0x55);
  {
    auto rt = Create();
    EXPECT_EQ(rt->CopyTableRunAsync(nullptr, 1, 2, &words[0], &words[1], nullptr, s),
              hipErrorInvalidValue);
    EXPECT_EQ(rt->CopyTableRunAsync(tables, 1, 2, nullptr, &words[1], nullptr, s),
              hipErrorInvalidValue);
    EXPECT_EQ(rt->CopyTableRunAsync(tables, 1, 2, &words[0], nullptr, nullptr, s),
              hipErrorInvalidValue);
    EXPECT_EQ(rt->CopyTableRunAsync(tables, 5, 4, &words[0], &words[1], mirror, s),
              hipErrorInvalidValue);
    EXPECT_TRUE(g_kernel.runs.empty());
    EXPECT_TRUE(g_mirror_copies.empty());
    // Across the wrap: 0xfffffffe to 5 is a run of 8 tokens.
    EXPECT_EQ(rt->CopyTableRunAsync(tables, 0xfffffffeu, 5, &words[0], &words[1], nullptr, s),
              hipSuccess);
    ASSERT_EQ(g_kernel.runs.size(), 1u);
    EXPECT_TRUE(g_mirror_copies.empty()) << "no mirror, no copy";
    const KernelCalls::Run& run = g_kernel.runs[0];
    EXPECT_EQ(run.tables, reinterpret_cast<uintptr_t>(tables));
    EXPECT_EQ(run.head, reinterpret_cast<uintptr_t>(&tables[0])) << "0xfffffffe % 2";
    EXPECT_EQ(run.first, 0xfffffffeu);
    EXPECT_EQ(run.last, 5u);
    EXPECT_EQ(run.ready, reinterpret_cast<uintptr_t>(&words[0]));
    EXPECT_EQ(run.copied, reinterpret_cast<uintptr_t>(&words[1]));
    EXPECT_EQ(run.grid, kCopyTableBlocks);
    EXPECT_EQ(g_kernel.block, kGatherThreadsPerBlock);
    EXPECT_TRUE(g_kernel.tables.empty()) << "not the table kernel";
    EXPECT_EQ(rt->CopyTableRunAsync(tables, 2, 2, &words[0], &words[1], nullptr,
                                    reinterpret_cast<Stream>(0x66)),
              hipSuccess);
    EXPECT_EQ(g_kernel.launch_contexts.back(), ContextOf(1)) << "the stream's device";
    EXPECT_EQ(g_current, ContextOf(0));
    // With a mirror: token 7's table copied into mirror[1], before the launch that reads it.
    EXPECT_EQ(rt->CopyTableRunAsync(tables, 7, 9, &words[0], &words[1], mirror, s), hipSuccess);
    ASSERT_EQ(g_mirror_copies.size(), 1u);
    EXPECT_EQ(g_mirror_copies[0].dst, reinterpret_cast<uintptr_t>(&mirror[1]));
    EXPECT_EQ(g_mirror_copies[0].src, reinterpret_cast<uintptr_t>(&tables[1]));
    EXPECT_EQ(g_mirror_copies[0].bytes, sizeof(CopyTable));
    ASSERT_EQ(g_kernel.runs.size(), 3u);
    EXPECT_EQ(g_mirror_copies[0].runs_before, 2u) << "the copy after the launch";
    EXPECT_EQ(g_kernel.runs[2].head, reinterpret_cast<uintptr_t>(&mirror[1]));
    EXPECT_EQ(g_kernel.runs[2].tables, reinterpret_cast<uintptr_t>(tables))
        << "later tokens' tables from host memory";
  }
  {
    auto rt = CreateWithoutCopyKernel();
    ASSERT_NE(rt, nullptr);
    EXPECT_EQ(rt->CopyTableRunAsync(tables, 1, 2, &words[0], &words[1], mirror, s),
              hipErrorNotSupported);
  }
}

// HIPFILE_ASYNC_RUN_BLOCKS: the run kernel's grid is the option's (0 taken as 1); the table
// kernel's stays kCopyTableBlocks.
TEST_F(CudaRuntimeFake, TheRunKernelsGridIsTheOptions) {
  AddKernels(driver_);
  CopyTable tables[2];
  uint32_t words[2] = {};
  const Stream s = reinterpret_cast<Stream>(0x55);
  for (const unsigned blocks : {1024u, 1u, 0u}) {
    g_kernel = KernelCalls{};
    CudaRuntimeOptions options;
    options.run_blocks = blocks;
    auto rt = Create(options);
    ASSERT_EQ(rt->CopyTableRunAsync(tables, 3, 4, &words[0], &words[1], nullptr, s), hipSuccess);
    ASSERT_EQ(rt->CopyTableAsync(&tables[1], 3, s), hipSuccess);
    ASSERT_EQ(g_kernel.runs.size(), 1u);
    EXPECT_EQ(g_kernel.runs[0].grid, std::max(blocks, 1u)) << blocks;
    ASSERT_EQ(g_kernel.table_grids.size(), 1u);
    EXPECT_EQ(g_kernel.table_grids[0], kCopyTableBlocks) << blocks;
  }
}

TEST_F(CudaRuntimeFake, FlagsOutsideTheContractAreInvalid) {
  auto rt = Create();
  Stream s = nullptr;
  EXPECT_EQ(rt->StreamCreate(&s, 0x10), hipErrorInvalidValue);
  Event e = nullptr;
  EXPECT_EQ(rt->EventCreate(&e, 0x80), hipErrorInvalidValue);
  void* p = nullptr;
  EXPECT_EQ(rt->HostMalloc(&p, 64, 0x40000000), hipErrorInvalidValue);
  EXPECT_EQ(rt->StreamDestroy(nullptr), hipErrorInvalidHandle);
  EXPECT_EQ(rt->EventDestroy(nullptr), hipErrorInvalidHandle);
  char a[4], b[4];
  EXPECT_EQ(rt->Memcpy(a, b, 4, static_cast<hipMemcpyKind>(5)), hipErrorInvalidMemcpyDirection);
}

}  // namespace
}  // namespace hipfile::runtime
