// SPDX-License-Identifier: MIT
// The GpuRuntime contract, run against every runtime: "cpu" always, "cpu-4" (the CPU runtime
// presenting 4 devices), "cuda" where a CUDA device is usable (skipped otherwise). Device memory
// is only ever touched through the runtime's copies. The tests of several devices skip, saying
// so, on a runtime with one (a machine with one GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fakes/temp_dir.h"
#include "runtime/cpu/cpu_runtime.h"
#include "runtime/cuda/cuda_runtime.h"
#include "runtime/device_attributes.h"
#include "runtime/gpu_runtime.h"
#include "unit/runtime/runtime_test_util.h"
#include "util/align.h"
#include "util/mutex.h"

namespace hipfile::runtime {
namespace {

using hipfile::testing::Gate;
using hipfile::testing::Gates;
using hipfile::testing::PatternBytes;
using hipfile::testing::StreamDrains;
using hipfile::testing::WaitUntil;

class RuntimeConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "cpu") {
      rt_ = CreateCpuRuntime();
    } else if (GetParam() == "cpu-4") {
      CpuRuntimeOptions options;
      options.devices = 4;
      rt_ = CreateCpuRuntime(options);
    } else {
      std::string why_not;
      rt_ = CreateCudaRuntime(&why_not);
      if (!rt_) GTEST_SKIP() << "CUDA runtime unavailable: " << why_not;
    }
    ASSERT_NE(rt_, nullptr);
    ASSERT_EQ(rt_->SetDevice(0), hipSuccess);
  }

  void TearDown() override {
    gates_.OpenAll();
    if (!rt_) return;
    // Streams and memory are destroyed from the device they were made on (device 0 unless a
    // test says otherwise), as a GPU program would.
    EXPECT_EQ(rt_->SetDevice(0), hipSuccess);
    for (Stream s : streams_) EXPECT_EQ(rt_->StreamDestroy(s), hipSuccess);
    for (const Allocation& a : allocations_) {
      EXPECT_EQ(a.pinned ? rt_->HostFree(a.p) : rt_->Free(a.p), hipSuccess);
    }
  }

  // Device memory, freed in TearDown.
  void* DeviceAlloc(size_t size) {
    void* p = nullptr;
    EXPECT_EQ(rt_->Malloc(&p, size), hipSuccess);
    EXPECT_NE(p, nullptr);
    allocations_.push_back({p, false});
    return p;
  }
  // Pinned host memory, freed in TearDown.
  void* PinnedAlloc(size_t size) {
    void* p = nullptr;
    EXPECT_EQ(rt_->HostMalloc(&p, size, hipHostMallocDefault), hipSuccess);
    EXPECT_NE(p, nullptr);
    allocations_.push_back({p, true});
    return p;
  }
  // A stream destroyed in TearDown.
  Stream NewStream(unsigned flags = hipStreamNonBlocking) {
    Stream s = nullptr;
    EXPECT_EQ(rt_->StreamCreate(&s, flags), hipSuccess);
    streams_.push_back(s);
    return s;
  }

  Gates gates_;  // declared before rt_ so that it outlives the runtime's workers
  std::unique_ptr<GpuRuntime> rt_;

 private:
  struct Allocation {
    void* p;
    bool pinned;
  };
  std::vector<Allocation> allocations_;
  std::vector<Stream> streams_;
};

TEST_P(RuntimeConformance, HasADevice) {
  int count = 0;
  ASSERT_EQ(rt_->GetDeviceCount(&count), hipSuccess);
  EXPECT_GE(count, 1);
  int device = -1;
  ASSERT_EQ(rt_->GetDevice(&device), hipSuccess);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(rt_->SetDevice(count), hipErrorInvalidDevice);
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(rt_->MemGetInfo(&free_bytes, &total_bytes), hipSuccess);
  EXPECT_GT(total_bytes, 0u);
  EXPECT_LE(free_bytes, total_bytes);
  char uuid[16] = {};
  char again[16] = {};
  ASSERT_EQ(rt_->GetDeviceUuid(0, uuid), hipSuccess);
  ASSERT_EQ(rt_->GetDeviceUuid(0, again), hipSuccess);
  EXPECT_EQ(memcmp(uuid, again, sizeof(uuid)), 0);
  EXPECT_NE(std::string(rt_->Name()), "");
}

TEST_P(RuntimeConformance, DeviceDescribesItself) {
  char name[256];
  std::memset(name, 'x', sizeof name);
  ASSERT_EQ(rt_->GetDeviceName(0, name, sizeof name), hipSuccess);
  EXPECT_GT(strnlen(name, sizeof name), 0u);
  EXPECT_LT(strnlen(name, sizeof name), sizeof name);
  size_t total = 0;
  ASSERT_EQ(rt_->GetDeviceTotalMem(0, &total), hipSuccess);
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(rt_->MemGetInfo(&free_bytes, &total_bytes), hipSuccess);
  EXPECT_GE(total, free_bytes);
  for (size_t i = 0; i < kSupportedDeviceAttributeCount; ++i) {
    int value = -1;
    ASSERT_EQ(rt_->GetDeviceAttribute(0, kSupportedDeviceAttributes[i], &value), hipSuccess)
        << kSupportedDeviceAttributes[i];
    EXPECT_GE(value, 0) << kSupportedDeviceAttributes[i];
  }
  int value = 0;
  ASSERT_EQ(rt_->GetDeviceAttribute(0, hipDeviceAttributeMultiprocessorCount, &value), hipSuccess);
  EXPECT_GT(value, 0);
  EXPECT_EQ(rt_->GetDeviceAttribute(0, hipDeviceAttributeLuid, &value), hipErrorInvalidValue);
  int count = 0;
  ASSERT_EQ(rt_->GetDeviceCount(&count), hipSuccess);
  EXPECT_EQ(rt_->GetDeviceAttribute(count, hipDeviceAttributeWarpSize, &value),
            hipErrorInvalidDevice);
  EXPECT_EQ(rt_->GetDeviceName(count, name, sizeof name), hipErrorInvalidDevice);
  EXPECT_EQ(rt_->GetDeviceTotalMem(count, &total), hipErrorInvalidDevice);
  int version = 0;
  ASSERT_EQ(rt_->DriverGetVersion(&version), hipSuccess);
  EXPECT_GT(version, 0);
}

TEST_P(RuntimeConformance, ManagedMemoryIsManagedAndHostAccessible) {
  constexpr size_t kSize = 2 * 4096 + 7;
  void* p = nullptr;
  ASSERT_EQ(rt_->MallocManaged(&p, kSize, hipMemAttachGlobal), hipSuccess);
  ASSERT_NE(p, nullptr);
  auto* bytes = static_cast<unsigned char*>(p);
  PointerInfo info;
  ASSERT_EQ(rt_->PointerGetInfo(bytes + 4096, &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeManaged);
  EXPECT_TRUE(info.is_managed);
  EXPECT_EQ(info.device, 0);
  EXPECT_EQ(info.base, p);
  EXPECT_GE(info.size, kSize);
  EXPECT_EQ(info.device_pointer, bytes + 4096);
  EXPECT_EQ(info.host_pointer, bytes + 4096);
  const std::vector<unsigned char> source = PatternBytes(kSize, 9);
  ASSERT_EQ(rt_->Memcpy(p, source.data(), kSize, hipMemcpyHostToDevice), hipSuccess);
  EXPECT_EQ(std::memcmp(p, source.data(), kSize), 0) << "the host reads what the copy wrote";
  ASSERT_EQ(rt_->Free(p), hipSuccess);
  EXPECT_EQ(rt_->MallocManaged(&p, 64, 0), hipErrorInvalidValue);
}

// After a reset the device works again (on CUDA, in a primary context initialized afresh).
TEST_P(RuntimeConformance, DeviceResetLeavesTheDeviceUsable) {
  ASSERT_EQ(rt_->DeviceReset(), hipSuccess);
  void* p = nullptr;
  ASSERT_EQ(rt_->Malloc(&p, 4096), hipSuccess);
  const std::vector<unsigned char> source = PatternBytes(4096, 10);
  std::vector<unsigned char> back(4096);
  ASSERT_EQ(rt_->Memcpy(p, source.data(), 4096, hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(rt_->Memcpy(back.data(), p, 4096, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back, source);
  ASSERT_EQ(rt_->Free(p), hipSuccess);
}

TEST_P(RuntimeConformance, DevicePointerInfoCoversInteriorPointers) {
  constexpr size_t kSize = 3 * 4096 + 100;
  auto* p = static_cast<char*>(DeviceAlloc(kSize));
  for (size_t offset : {size_t{0}, size_t{1}, size_t{4096}, kSize - 1}) {
    PointerInfo info;
    ASSERT_EQ(rt_->PointerGetInfo(p + offset, &info), hipSuccess) << offset;
    EXPECT_EQ(info.type, hipMemoryTypeDevice) << offset;
    EXPECT_EQ(info.device, 0) << offset;
    EXPECT_EQ(info.base, p) << offset;
    EXPECT_GE(info.size, kSize) << offset;  // a GPU may round the allocation up
  }
}

TEST_P(RuntimeConformance, PinnedHostMemoryIsHostType) {
  auto* p = static_cast<char*>(PinnedAlloc(8192));
  PointerInfo info;
  ASSERT_EQ(rt_->PointerGetInfo(p + 10, &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeHost);
  EXPECT_EQ(info.base, p);
  EXPECT_GE(info.size, 8192u);
  EXPECT_NE(info.host_pointer, nullptr);
}

TEST_P(RuntimeConformance, RegisteredHostMemoryIsHostTypeUntilUnregistered) {
  std::vector<char> buffer(1 << 16);
  ASSERT_EQ(rt_->HostRegister(buffer.data(), buffer.size(), hipHostRegisterDefault), hipSuccess);
  PointerInfo info;
  ASSERT_EQ(rt_->PointerGetInfo(buffer.data() + 100, &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeHost);
  // The range holding the pointer covers the registration: I/O into unregistered pinned memory
  // may touch up to its end (core/buffer_registry.h).
  const auto base = reinterpret_cast<uintptr_t>(info.base);
  const auto start = reinterpret_cast<uintptr_t>(buffer.data());
  EXPECT_LE(base, start) << "range " << info.base << " + " << info.size;
  EXPECT_GE(base + info.size, start + buffer.size()) << "range " << info.base << " + " << info.size;
  EXPECT_EQ(rt_->HostRegister(buffer.data(), buffer.size(), hipHostRegisterDefault),
            hipErrorHostMemoryAlreadyRegistered);
  ASSERT_EQ(rt_->HostUnregister(buffer.data()), hipSuccess);
  ASSERT_EQ(rt_->PointerGetInfo(buffer.data() + 100, &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeUnregistered);
  EXPECT_EQ(rt_->HostUnregister(buffer.data()), hipErrorHostMemoryNotRegistered);
}

TEST_P(RuntimeConformance, PlainHostMemoryIsUnregistered) {
  std::unique_ptr<char[]> heap(new char[4096]);
  PointerInfo info;
  info.device = 7;
  ASSERT_EQ(rt_->PointerGetInfo(heap.get(), &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeUnregistered);
  EXPECT_EQ(info.device, -1);
}

TEST_P(RuntimeConformance, SynchronousCopiesRoundTrip) {
  constexpr size_t kSize = (1 << 20) + 13;
  const std::vector<unsigned char> pattern = PatternBytes(kSize, 42);
  void* a = DeviceAlloc(kSize);
  void* b = DeviceAlloc(kSize);
  ASSERT_EQ(rt_->Memcpy(a, pattern.data(), kSize, hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(rt_->Memcpy(b, a, kSize, hipMemcpyDeviceToDevice), hipSuccess);
  std::vector<unsigned char> back(kSize, 0);
  ASSERT_EQ(rt_->Memcpy(back.data(), b, kSize, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back, pattern);

  // hipMemcpyDefault infers the direction; Memset fills device memory.
  ASSERT_EQ(rt_->Memset(b, 0x5a, kSize / 2), hipSuccess);
  ASSERT_EQ(rt_->Memcpy(back.data(), b, kSize, hipMemcpyDefault), hipSuccess);
  for (size_t i = 0; i < kSize; ++i) {
    ASSERT_EQ(back[i], i < kSize / 2 ? 0x5a : pattern[i]) << i;
  }
}

TEST_P(RuntimeConformance, AsyncFillAndCopyOnAStream) {
  constexpr size_t kSize = 1 << 20;
  Stream s = NewStream();
  void* dev = DeviceAlloc(kSize);
  auto* pinned = static_cast<unsigned char*>(PinnedAlloc(kSize));
  memset(pinned, 0, kSize);
  ASSERT_EQ(rt_->MemsetAsync(dev, 0xab, kSize, s), hipSuccess);
  ASSERT_EQ(rt_->MemsetAsync(dev, 0xcd, kSize / 4, s), hipSuccess);
  ASSERT_EQ(rt_->MemcpyAsync(pinned, dev, kSize, hipMemcpyDeviceToHost, s), hipSuccess);
  ASSERT_EQ(rt_->StreamSynchronize(s), hipSuccess);
  EXPECT_EQ(rt_->StreamQuery(s), hipSuccess);
  for (size_t i = 0; i < kSize; ++i) ASSERT_EQ(pinned[i], i < kSize / 4 ? 0xcd : 0xab) << i;
  int device = -1;
  ASSERT_EQ(rt_->StreamGetDevice(s, &device), hipSuccess);
  EXPECT_EQ(device, 0);
}

// Scattered slices both ways in one call each: every copy lands, in stream order after earlier
// work; an invalid copy is reported in its own slot while the others are still queued.
TEST_P(RuntimeConformance, BatchCopiesLandAndReportEachCopy) {
  constexpr size_t kSlice = 4096, kCopies = 16;
  Stream s = NewStream();
  auto* dev = static_cast<unsigned char*>(DeviceAlloc(kSlice * kCopies * 2));
  auto* up = static_cast<unsigned char*>(PinnedAlloc(kSlice * kCopies));
  auto* down = static_cast<unsigned char*>(PinnedAlloc(kSlice * kCopies * 2));
  const std::vector<unsigned char> pattern = PatternBytes(kSlice * kCopies);
  memcpy(up, pattern.data(), pattern.size());
  memset(down, 0, kSlice * kCopies * 2);
  ASSERT_EQ(rt_->MemsetAsync(dev, 0x5a, kSlice * kCopies * 2, s), hipSuccess);
  // Host slice i goes to device slot 2 * (kCopies - 1 - i): reversed, with gaps.
  std::vector<CopyOp> h2d(kCopies);
  for (size_t i = 0; i < kCopies; ++i) {
    h2d[i] = {dev + 2 * (kCopies - 1 - i) * kSlice, up + i * kSlice, kSlice};
  }
  h2d[3].size = 0;  // nothing to copy: succeeds
  std::vector<hipError_t> errors(kCopies, hipErrorUnknown);
  ASSERT_EQ(rt_->MemcpyBatchAsync(h2d.data(), kCopies, hipMemcpyHostToDevice, s, errors.data()),
            hipSuccess);
  for (size_t i = 0; i < kCopies; ++i) EXPECT_EQ(errors[i], hipSuccess) << i;
  CopyOp whole{down, dev, kSlice * kCopies * 2};
  ASSERT_EQ(rt_->MemcpyBatchAsync(&whole, 1, hipMemcpyDeviceToHost, s, nullptr), hipSuccess);
  ASSERT_EQ(rt_->StreamSynchronize(s), hipSuccess);
  for (size_t i = 0; i < kCopies; ++i) {
    const unsigned char* slot = down + 2 * (kCopies - 1 - i) * kSlice;
    for (size_t k = 0; k < kSlice; ++k) {
      ASSERT_EQ(slot[k], i == 3 ? 0x5a : pattern[i * kSlice + k]) << "copy " << i << " byte " << k;
      ASSERT_EQ(slot[kSlice + k], 0x5a) << "gap after copy " << i;
    }
  }
  // Back to the host in one call, one copy invalid.
  std::vector<CopyOp> d2h(kCopies);
  memset(down, 0, kSlice * kCopies);
  for (size_t i = 0; i < kCopies; ++i) d2h[i] = {down + i * kSlice, dev + 2 * i * kSlice, kSlice};
  d2h[5].dst = nullptr;
  EXPECT_EQ(rt_->MemcpyBatchAsync(d2h.data(), kCopies, hipMemcpyDeviceToHost, s, errors.data()),
            hipErrorInvalidValue);
  ASSERT_EQ(rt_->StreamSynchronize(s), hipSuccess);
  for (size_t i = 0; i < kCopies; ++i) {
    EXPECT_EQ(errors[i], i == 5 ? hipErrorInvalidValue : hipSuccess) << i;
    if (i == 5) continue;
    const size_t from = kCopies - 1 - i;  // the host slice that went to device slot 2 * i
    for (size_t k = 0; k < kSlice; ++k) {
      ASSERT_EQ(down[i * kSlice + k], from == 3 ? 0x5a : pattern[from * kSlice + k]) << i;
    }
  }
}

// Copies of every size up to the gather kernel's limit and past it, at every alignment, more
// than one launch holds, in all three directions a batch takes; every byte checked, and the bytes
// around each destination untouched.
TEST_P(RuntimeConformance, BatchCopiesOfAnySizeAndAlignmentLand) {
  static constexpr size_t kSizes[] = {1, 3, 15, 16, 17, 255, 4095, 4096, 4097, 65535, 65536};
  for (const bool with_large : {false, true}) {  // a copy past 64 KiB changes how CUDA queues them
    SCOPED_TRACE(with_large ? "with a copy past 64 KiB" : "all copies up to 64 KiB");
    constexpr size_t kCopies = 300;
    constexpr size_t kSlot = 70 * 1024;  // room for the largest copy at any offset below 64
    const size_t total = kSlot * kCopies;
    Stream s = NewStream();
    auto* host = static_cast<unsigned char*>(PinnedAlloc(total));
    auto* dev = static_cast<unsigned char*>(DeviceAlloc(total));
    auto* dev2 = static_cast<unsigned char*>(DeviceAlloc(total));
    auto* back = static_cast<unsigned char*>(PinnedAlloc(total));
    const std::vector<unsigned char> pattern = PatternBytes(total, 7);
    memcpy(host, pattern.data(), total);
    ASSERT_EQ(rt_->MemsetAsync(dev, 0xa5, total, s), hipSuccess);
    ASSERT_EQ(rt_->MemsetAsync(dev2, 0x3c, total, s), hipSuccess);
    std::vector<CopyOp> h2d(kCopies), d2d(kCopies), d2h(kCopies);
    for (size_t i = 0; i < kCopies; ++i) {
      const size_t size = with_large && i == 7 ? 69 * 1024 : kSizes[i % std::size(kSizes)];
      const size_t src_off = i % 17, dst_off = (i * 5) % 64;
      h2d[i] = {dev + i * kSlot + dst_off, host + i * kSlot + src_off, size};
      d2d[i] = {dev2 + i * kSlot, dev + i * kSlot + dst_off, size};
      d2h[i] = {back + i * kSlot + 1, dev2 + i * kSlot, size};
    }
    std::vector<hipError_t> errors(kCopies, hipErrorUnknown);
    ASSERT_EQ(rt_->MemcpyBatchAsync(h2d.data(), kCopies, hipMemcpyHostToDevice, s, errors.data()),
              hipSuccess);
    ASSERT_EQ(rt_->MemcpyBatchAsync(d2d.data(), kCopies, hipMemcpyDeviceToDevice, s, nullptr),
              hipSuccess);
    memset(back, 0, total);
    ASSERT_EQ(rt_->MemcpyBatchAsync(d2h.data(), kCopies, hipMemcpyDeviceToHost, s, errors.data()),
              hipSuccess);
    ASSERT_EQ(rt_->StreamSynchronize(s), hipSuccess);
    for (size_t i = 0; i < kCopies; ++i) {
      EXPECT_EQ(errors[i], hipSuccess) << i;
      const unsigned char* got = back + i * kSlot;
      const unsigned char* want = host + i * kSlot + i % 17;
      ASSERT_EQ(got[0], 0) << "copy " << i << ": byte before its destination";
      ASSERT_EQ(memcmp(got + 1, want, h2d[i].size), 0)
          << "copy " << i << ", " << h2d[i].size << " bytes";
      ASSERT_EQ(got[1 + h2d[i].size], 0) << "copy " << i << ": byte after its destination";
    }
    // Around the device destinations of the first step: untouched.
    std::vector<unsigned char> image(total);
    ASSERT_EQ(rt_->Memcpy(image.data(), dev, total, hipMemcpyDeviceToHost), hipSuccess);
    for (size_t i = 0; i < kCopies; ++i) {
      const size_t begin = i * kSlot + (i * 5) % 64;
      if (begin > i * kSlot) {
        ASSERT_EQ(image[begin - 1], 0xa5) << "copy " << i;
      }
      ASSERT_EQ(image[begin + h2d[i].size], 0xa5) << "copy " << i;
    }
  }
}

// The stream copies what the table holds when the stream gets there: the table is filled after
// the call, while the stream waits on a value ahead of it. Copies past `count` are not made, and
// a launch for another token than the table's copies nothing.
TEST_P(RuntimeConformance, CopyTableCopiesWhatItHoldsWhenTheStreamGetsThere) {
  constexpr size_t kBytes = 3 * 4096 + 5;
  // Asked before the stream waits, as the interface requires (loading the kernel while a stream
  // waits on this thread would never return).
  int device = -1;
  ASSERT_EQ(rt_->GetDevice(&device), hipSuccess);
  ASSERT_TRUE(rt_->SupportsCopyTable(device));
  Stream s = NewStream();
  auto* host = static_cast<unsigned char*>(PinnedAlloc(kBytes));
  auto* dev = static_cast<unsigned char*>(DeviceAlloc(2 * kBytes));
  auto* back = static_cast<unsigned char*>(PinnedAlloc(2 * kBytes));
  auto* table = static_cast<CopyTable*>(PinnedAlloc(sizeof(CopyTable)));
  auto* word = static_cast<uint32_t*>(PinnedAlloc(sizeof(uint32_t)));
  __atomic_store_n(word, 0u, __ATOMIC_RELEASE);
  table->count = 0;
  const std::vector<unsigned char> pattern = PatternBytes(kBytes, 11);
  memcpy(host, pattern.data(), kBytes);
  ASSERT_EQ(rt_->MemsetAsync(dev, 0x77, 2 * kBytes, s), hipSuccess);
  ASSERT_EQ(rt_->StreamWaitValue32(s, word, 1), hipSuccess);
  ASSERT_EQ(rt_->CopyTableAsync(table, 7, s), hipSuccess);
  ASSERT_EQ(rt_->CopyTableAsync(nullptr, 7, s), hipErrorInvalidValue);
  // After the copies, 16 bytes of the first are set again, and a launch for another token reads
  // the same table: it copies nothing, so they stay.
  ASSERT_EQ(rt_->MemsetAsync(dev + 3, 0x55, 16, s), hipSuccess);
  ASSERT_EQ(rt_->CopyTableAsync(table, 9, s), hipSuccess);
  // Filled now, while the stream waits: host -> device at an odd offset, then device -> device;
  // a third entry past count.
  const auto at = [](const void* p) {
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
  };
  table->copy[0] = {at(dev + 3), at(host), kBytes - 3};
  table->copy[1] = {at(dev + kBytes + 1), at(host + 100), 4096};
  table->copy[2] = {at(dev), at(host), 64};
  table->count = 2;
  table->token = 7;
  __atomic_store_n(word, 1u, __ATOMIC_RELEASE);
  ASSERT_EQ(rt_->StreamSynchronize(s), hipSuccess);
  ASSERT_EQ(rt_->Memcpy(back, dev, 2 * kBytes, hipMemcpyDeviceToHost), hipSuccess);
  for (size_t i = 0; i < 3; ++i) ASSERT_EQ(back[i], 0x77) << "entry 2 is past count";
  for (size_t i = 3; i < 19; ++i) ASSERT_EQ(back[i], 0x55) << "the launch for token 9 copied";
  ASSERT_EQ(memcmp(back + 19, pattern.data() + 16, kBytes - 19), 0);
  ASSERT_EQ(back[kBytes], 0x77);
  ASSERT_EQ(memcmp(back + kBytes + 1, pattern.data() + 100, 4096), 0);
  ASSERT_EQ(back[kBytes + 1 + 4096], 0x77);
}

// One copy of a table may read on through host registrations that follow one another in memory
// (the page-cache windows of one file: engine/stream_staging.cc joins their pieces into one
// copy): a kernel's loads go through each page as the device maps it.
TEST_P(RuntimeConformance, CopyTableReadsOnThroughAdjacentRegistrations) {
  constexpr size_t kHalf = 65536;
  int device = -1;
  ASSERT_EQ(rt_->GetDevice(&device), hipSuccess);
  ASSERT_TRUE(rt_->SupportsCopyTable(device));
  Stream s = NewStream();
  std::vector<unsigned char> host(2 * kHalf + 4096);
  auto* base =
      reinterpret_cast<unsigned char*>(AlignUp(reinterpret_cast<uintptr_t>(host.data()), 4096));
  const std::vector<unsigned char> pattern = PatternBytes(2 * kHalf, 15);
  memcpy(base, pattern.data(), 2 * kHalf);
  ASSERT_EQ(rt_->HostRegister(base, kHalf, hipHostRegisterDefault), hipSuccess);
  ASSERT_EQ(rt_->HostRegister(base + kHalf, kHalf, hipHostRegisterDefault), hipSuccess);
  auto* dev = static_cast<unsigned char*>(DeviceAlloc(2 * kHalf));
  auto* back = static_cast<unsigned char*>(PinnedAlloc(2 * kHalf));
  auto* table = static_cast<CopyTable*>(PinnedAlloc(sizeof(CopyTable)));
  ASSERT_EQ(rt_->MemsetAsync(dev, 0x77, 2 * kHalf, s), hipSuccess);
  // On words from the start (both addresses 16-byte aligned), and off them.
  table->copy[0] = {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(dev + 16)),
                    static_cast<uint64_t>(reinterpret_cast<uintptr_t>(base + 16)), 2 * kHalf - 32};
  table->count = 1;
  table->token = 2;
  ASSERT_EQ(rt_->CopyTableAsync(table, 2, s), hipSuccess);
  ASSERT_EQ(rt_->StreamSynchronize(s), hipSuccess);
  ASSERT_EQ(rt_->Memcpy(back, dev, 2 * kHalf, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back[15], 0x77);
  EXPECT_EQ(memcmp(back + 16, pattern.data() + 16, 2 * kHalf - 32), 0);
  EXPECT_EQ(back[2 * kHalf - 16], 0x77);
  table->copy[0] = {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(dev + 3)),
                    static_cast<uint64_t>(reinterpret_cast<uintptr_t>(base + 5)), 2 * kHalf - 10};
  table->token = 3;
  ASSERT_EQ(rt_->CopyTableAsync(table, 3, s), hipSuccess);
  ASSERT_EQ(rt_->StreamSynchronize(s), hipSuccess);
  ASSERT_EQ(rt_->Memcpy(back, dev, 2 * kHalf, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(memcmp(back + 3, pattern.data() + 5, 2 * kHalf - 10), 0);
  EXPECT_EQ(rt_->HostUnregister(base + kHalf), hipSuccess);
  EXPECT_EQ(rt_->HostUnregister(base), hipSuccess);
}

// A run of tokens in one launch (CopyTableRunAsync). Where the first table is filled for the
// first token and says `last`, its copies are made and nothing more: the later tokens are never
// released, and `copied` is left to the stream's own write. Otherwise the launch takes each
// token in turn as the host releases it - copying what its table holds then, from a slot the
// host refills for every other token - and stores `copied` after each; a token whose table is
// not filled for it copies nothing. The tokens wrap past 0xffffffff. Each way without a mirror
// and with one (the first table copied into device memory by the stream once it passed `ready`:
// the host fills it after the call).
TEST_P(RuntimeConformance, CopyTableRunCopiesItsTokensAsTheHostReleasesThem) {
  constexpr size_t kChunk = 64 * 1024 + 3;
  constexpr uint32_t kFirst = 0xfffffffeu;
  constexpr uint32_t kTokens = 6;  // 0xfffffffe .. 3
  int device = -1;
  ASSERT_EQ(rt_->GetDevice(&device), hipSuccess);
  ASSERT_TRUE(rt_->SupportsCopyTable(device));
  Stream s = NewStream();
  auto* slots = static_cast<unsigned char*>(PinnedAlloc(2 * kChunk));
  auto* dev = static_cast<unsigned char*>(DeviceAlloc(kTokens * kChunk));
  auto* back = static_cast<unsigned char*>(PinnedAlloc(kTokens * kChunk));
  auto* tables = static_cast<CopyTable*>(PinnedAlloc(2 * sizeof(CopyTable)));
  auto* words = static_cast<uint32_t*>(PinnedAlloc(2 * sizeof(uint32_t)));
  uint32_t* ready = &words[0];
  uint32_t* copied = &words[1];
  const auto at = [](const void* p) {
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
  };
  const auto fill = [&](uint32_t t, size_t k, bool last) {  // token t copies chunk k from its slot
    const std::vector<unsigned char> bytes = PatternBytes(kChunk, static_cast<int>(20 + k));
    memcpy(slots + (t % 2) * kChunk, bytes.data(), kChunk);
    CopyTable* table = tables + t % 2;
    table->copy[0] = {at(dev + k * kChunk), at(slots + (t % 2) * kChunk), kChunk};
    table->count = 1;
    table->token = t;
    table->last = last ? 1 : 0;
  };
  const auto wait_copied = [&](uint32_t t) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (static_cast<int32_t>(__atomic_load_n(copied, __ATOMIC_ACQUIRE) - t) < 0) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    return true;
  };
  auto* device_mirror = static_cast<CopyTable*>(DeviceAlloc(2 * sizeof(CopyTable)));
  for (CopyTable* mirror : {static_cast<CopyTable*>(nullptr), device_mirror}) {
    SCOPED_TRACE(mirror != nullptr ? "with a mirror" : "without");
    // Ends with the first table.
    tables[0] = CopyTable{};
    tables[1] = CopyTable{};
    __atomic_store_n(ready, kFirst - 1, __ATOMIC_RELEASE);
    __atomic_store_n(copied, 7u, __ATOMIC_RELEASE);
    ASSERT_EQ(rt_->MemsetAsync(dev, 0x77, kTokens * kChunk, s), hipSuccess);
    ASSERT_EQ(rt_->StreamWaitValue32(s, ready, kFirst), hipSuccess);
    ASSERT_EQ(
        rt_->CopyTableRunAsync(tables, kFirst, kFirst + kTokens - 1, ready, copied, mirror, s),
        hipSuccess);
    fill(kFirst, 0, true);
    __atomic_store_n(ready, kFirst, __ATOMIC_RELEASE);
    ASSERT_EQ(rt_->StreamSynchronize(s), hipSuccess);
    EXPECT_EQ(__atomic_load_n(copied, __ATOMIC_ACQUIRE), 7u) << "the launch wrote `copied`";
    ASSERT_EQ(rt_->Memcpy(back, dev, kTokens * kChunk, hipMemcpyDeviceToHost), hipSuccess);
    const std::vector<unsigned char> first_chunk = PatternBytes(kChunk, 20);
    ASSERT_EQ(memcmp(back, first_chunk.data(), kChunk), 0);
    ASSERT_EQ(back[kChunk], 0x77) << "only the first table was copied";
    if (mirror != nullptr) {  // the table as the host filled it, copied there after `ready`
      CopyTable seen;
      ASSERT_EQ(rt_->Memcpy(&seen, mirror + kFirst % 2, sizeof(CopyTable), hipMemcpyDeviceToHost),
                hipSuccess);
      EXPECT_EQ(seen.token, kFirst);
      EXPECT_EQ(seen.last, 1u);
      EXPECT_EQ(seen.count, 1u);
      EXPECT_EQ(seen.copy[0].dst, at(dev));
    }

    // Goes on: each token released once the launch has copied the one that used its slot last;
    // the fourth token's table is left alone (its copies are another token's), so chunk 3 stays.
    __atomic_store_n(ready, kFirst - 1, __ATOMIC_RELEASE);
    __atomic_store_n(copied, kFirst - 1, __ATOMIC_RELEASE);
    ASSERT_EQ(rt_->MemsetAsync(dev, 0x77, kTokens * kChunk, s), hipSuccess);
    ASSERT_EQ(rt_->StreamWaitValue32(s, ready, kFirst), hipSuccess);
    ASSERT_EQ(
        rt_->CopyTableRunAsync(tables, kFirst, kFirst + kTokens - 1, ready, copied, mirror, s),
        hipSuccess);
    for (uint32_t k = 0; k < kTokens; ++k) {
      const uint32_t t = kFirst + k;
      if (k >= 2) {
        ASSERT_TRUE(wait_copied(t - 2)) << "token " << t - 2 << " never copied";
      }
      if (k != 3) fill(t, k, k + 1 == kTokens);
      __atomic_store_n(ready, t, __ATOMIC_RELEASE);
    }
    ASSERT_EQ(rt_->StreamSynchronize(s), hipSuccess);
    EXPECT_EQ(__atomic_load_n(copied, __ATOMIC_ACQUIRE), kFirst + kTokens - 1);
    ASSERT_EQ(rt_->Memcpy(back, dev, kTokens * kChunk, hipMemcpyDeviceToHost), hipSuccess);
    for (size_t k = 0; k < kTokens; ++k) {
      if (k == 3) {
        for (size_t i = 0; i < kChunk; ++i) ASSERT_EQ(back[3 * kChunk + i], 0x77) << i;
        continue;
      }
      const std::vector<unsigned char> chunk = PatternBytes(kChunk, static_cast<int>(20 + k));
      ASSERT_EQ(memcmp(back + k * kChunk, chunk.data(), kChunk), 0) << "chunk " << k;
    }
    tables[0] = CopyTable{};  // for the next way: nothing filled
    tables[1] = CopyTable{};
  }
  EXPECT_EQ(rt_->CopyTableRunAsync(tables, 5, 4, ready, copied, nullptr, s), hipErrorInvalidValue);
}

struct HostFnLog {
  Mutex mu;
  std::vector<int> order GUARDED_BY(mu);
  const unsigned char* watched = nullptr;  // pinned memory the stream writes before each call
  std::vector<unsigned char> seen GUARDED_BY(mu);
};

struct HostFnCall {
  HostFnLog* log;
  int id;
};

void RecordCall(void* arg) {
  auto* call = static_cast<HostFnCall*>(arg);
  MutexLock lock(call->log->mu);
  call->log->order.push_back(call->id);
  call->log->seen.push_back(*call->log->watched);
}

TEST_P(RuntimeConformance, HostFunctionsRunInStreamOrderAfterEarlierWork) {
  constexpr int kCalls = 50;
  Stream s = NewStream();
  void* dev = DeviceAlloc(64);
  auto* pinned = static_cast<unsigned char*>(PinnedAlloc(64));
  HostFnLog log;
  log.watched = pinned;
  std::vector<HostFnCall> calls;
  for (int i = 0; i < kCalls; ++i) calls.push_back(HostFnCall{&log, i});
  for (int i = 0; i < kCalls; ++i) {
    ASSERT_EQ(rt_->MemsetAsync(dev, i + 1, 64, s), hipSuccess);
    ASSERT_EQ(rt_->MemcpyAsync(pinned, dev, 64, hipMemcpyDeviceToHost, s), hipSuccess);
    ASSERT_EQ(rt_->LaunchHostFunc(s, RecordCall, &calls[i]), hipSuccess);
  }
  ASSERT_EQ(rt_->StreamSynchronize(s), hipSuccess);
  MutexLock lock(log.mu);
  ASSERT_EQ(log.order.size(), size_t{kCalls});
  for (int i = 0; i < kCalls; ++i) {
    EXPECT_EQ(log.order[i], i);
    EXPECT_EQ(log.seen[i], i + 1);
  }
}

TEST_P(RuntimeConformance, EventsMarkStreamPoints) {
  Stream s = NewStream();
  Event start = nullptr, stop = nullptr, untimed = nullptr;
  ASSERT_EQ(rt_->EventCreate(&start, hipEventDefault), hipSuccess);
  ASSERT_EQ(rt_->EventCreate(&stop, hipEventDefault), hipSuccess);
  ASSERT_EQ(rt_->EventCreate(&untimed, hipEventDisableTiming), hipSuccess);

  // Never recorded: complete; no elapsed time.
  EXPECT_EQ(rt_->EventQuery(stop), hipSuccess);
  EXPECT_EQ(rt_->EventSynchronize(stop), hipSuccess);
  float ms = -1;
  EXPECT_EQ(rt_->EventElapsedTime(&ms, start, stop), hipErrorInvalidHandle);

  auto* gate = gates_.New();
  ASSERT_EQ(rt_->EventRecord(start, s), hipSuccess);
  ASSERT_EQ(rt_->LaunchHostFunc(s, hipfile::testing::Gate::Wait, gate), hipSuccess);
  ASSERT_EQ(rt_->EventRecord(stop, s), hipSuccess);
  ASSERT_EQ(rt_->EventRecord(untimed, s), hipSuccess);
  ASSERT_TRUE(WaitUntil([&] { return rt_->EventQuery(start) == hipSuccess; }));
  EXPECT_EQ(rt_->EventQuery(stop), hipErrorNotReady);
  EXPECT_EQ(rt_->EventElapsedTime(&ms, start, stop), hipErrorNotReady);

  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  gate->Open();
  ASSERT_EQ(rt_->EventSynchronize(stop), hipSuccess);
  EXPECT_EQ(rt_->EventQuery(stop), hipSuccess);
  ASSERT_EQ(rt_->EventElapsedTime(&ms, start, stop), hipSuccess);
  EXPECT_GE(ms, 15.0f);
  EXPECT_LT(ms, 10000.0f);
  ASSERT_EQ(rt_->EventSynchronize(untimed), hipSuccess);
  EXPECT_EQ(rt_->EventElapsedTime(&ms, start, untimed), hipErrorInvalidHandle);

  EXPECT_EQ(rt_->EventDestroy(start), hipSuccess);
  EXPECT_EQ(rt_->EventDestroy(stop), hipSuccess);
  EXPECT_EQ(rt_->EventDestroy(untimed), hipSuccess);
}

TEST_P(RuntimeConformance, StreamWaitsForAnEventOnAnotherStream) {
  Stream producer = NewStream();
  Stream consumer = NewStream();
  Event event = nullptr;
  ASSERT_EQ(rt_->EventCreate(&event, hipEventDisableTiming), hipSuccess);
  auto* pinned = static_cast<unsigned char*>(PinnedAlloc(16));
  memset(pinned, 0, 16);
  void* dev = DeviceAlloc(16);
  ASSERT_EQ(rt_->Memset(dev, 9, 16), hipSuccess);

  auto* gate = gates_.New();
  ASSERT_EQ(rt_->LaunchHostFunc(producer, hipfile::testing::Gate::Wait, gate), hipSuccess);
  ASSERT_EQ(rt_->EventRecord(event, producer), hipSuccess);
  ASSERT_EQ(rt_->StreamWaitEvent(consumer, event, 0), hipSuccess);
  ASSERT_EQ(rt_->MemcpyAsync(pinned, dev, 16, hipMemcpyDeviceToHost, consumer), hipSuccess);

  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(rt_->StreamQuery(consumer), hipErrorNotReady);
  EXPECT_EQ(__atomic_load_n(&pinned[0], __ATOMIC_ACQUIRE), 0);
  gate->Open();
  ASSERT_EQ(rt_->StreamSynchronize(consumer), hipSuccess);
  EXPECT_EQ(pinned[0], 9);
  EXPECT_EQ(pinned[15], 9);
  EXPECT_EQ(rt_->EventDestroy(event), hipSuccess);
}

// A stream's flags are those it was made with; the null stream's are 0 (it is a blocking one).
TEST_P(RuntimeConformance, StreamFlagsAreTheCreationFlags) {
  for (const unsigned flags : {0u, static_cast<unsigned>(hipStreamNonBlocking)}) {
    Stream stream = nullptr;
    ASSERT_EQ(rt_->StreamCreate(&stream, flags), hipSuccess);
    unsigned got = 99;
    EXPECT_EQ(rt_->StreamGetFlags(stream, &got), hipSuccess);
    EXPECT_EQ(got, flags);
    EXPECT_EQ(rt_->StreamGetFlags(stream, nullptr), hipErrorInvalidValue);
    EXPECT_EQ(rt_->StreamDestroy(stream), hipSuccess);
  }
  unsigned null_flags = 99;
  EXPECT_EQ(rt_->StreamGetFlags(nullptr, &null_flags), hipSuccess);
  EXPECT_EQ(null_flags, 0u);
}

TEST_P(RuntimeConformance, StreamWaitValueIsReleasedByAHostWrite) {
  if (!rt_->SupportsStreamMemOps(0)) GTEST_SKIP() << "device has no stream memory operations";
  Stream s = NewStream();
  auto* word = static_cast<uint32_t*>(PinnedAlloc(sizeof(uint32_t) * 2));
  word[0] = 0;
  word[1] = 0;
  ASSERT_EQ(rt_->StreamWaitValue32(s, &word[0], 2), hipSuccess);
  ASSERT_EQ(rt_->StreamWriteValue32(s, &word[1], 77), hipSuccess);

  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(rt_->StreamQuery(s), hipErrorNotReady);
  std::thread writer([word] { __atomic_store_n(&word[0], 1u, __ATOMIC_RELEASE); });
  writer.join();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(rt_->StreamQuery(s), hipErrorNotReady) << "1 is not >= 2";
  EXPECT_EQ(__atomic_load_n(&word[1], __ATOMIC_ACQUIRE), 0u);

  writer = std::thread([word] { __atomic_store_n(&word[0], 3u, __ATOMIC_RELEASE); });
  writer.join();
  // The host sees the stream's write without synchronizing, as a GPU's write to pinned memory.
  EXPECT_TRUE(WaitUntil([&] { return __atomic_load_n(&word[1], __ATOMIC_ACQUIRE) == 77u; }));
  EXPECT_TRUE(StreamDrains(*rt_, s));
}

// The stream-ordered I/O channels count on it: their sequence numbers wrap (docs/async.md).
TEST_P(RuntimeConformance, StreamWaitValueComparesCyclically) {
  if (!rt_->SupportsStreamMemOps(0)) GTEST_SKIP() << "device has no stream memory operations";
  Stream s = NewStream();
  auto* word = static_cast<uint32_t*>(PinnedAlloc(sizeof(uint32_t) * 2));
  word[0] = 5;
  word[1] = 0;
  // 5 is past 0xfffffff0 in a ring of 2^32 (21 after it), so this wait passes at once...
  ASSERT_EQ(rt_->StreamWaitValue32(s, &word[0], 0xfffffff0u), hipSuccess);
  ASSERT_EQ(rt_->StreamWriteValue32(s, &word[1], 1), hipSuccess);
  EXPECT_TRUE(WaitUntil([&] { return __atomic_load_n(&word[1], __ATOMIC_ACQUIRE) == 1u; }));
  // ...and one for 0x10 waits while the word is 0xffffffff (17 before it).
  ASSERT_EQ(rt_->StreamWaitValue32(s, &word[0], 0x10), hipSuccess);
  ASSERT_EQ(rt_->StreamWriteValue32(s, &word[1], 2), hipSuccess);
  __atomic_store_n(&word[0], 0xffffffffu, __ATOMIC_RELEASE);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(rt_->StreamQuery(s), hipErrorNotReady) << "0xffffffff is not past 0x10";
  EXPECT_EQ(__atomic_load_n(&word[1], __ATOMIC_ACQUIRE), 1u);
  __atomic_store_n(&word[0], 0x10u, __ATOMIC_RELEASE);
  EXPECT_TRUE(WaitUntil([&] { return __atomic_load_n(&word[1], __ATOMIC_ACQUIRE) == 2u; }));
  EXPECT_TRUE(StreamDrains(*rt_, s));
}

TEST_P(RuntimeConformance, NullPointersAreInvalidValues) {
  PointerInfo info;
  EXPECT_EQ(rt_->PointerGetInfo(nullptr, &info), hipErrorInvalidValue);
  EXPECT_EQ(rt_->Malloc(nullptr, 16), hipErrorInvalidValue);
  EXPECT_EQ(rt_->HostRegister(nullptr, 4096, 0), hipErrorInvalidValue);
  void* dev = DeviceAlloc(64);
  char host[64] = {};
  EXPECT_EQ(rt_->Memcpy(nullptr, host, 64, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT_EQ(rt_->Memcpy(dev, nullptr, 64, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT_EQ(rt_->Memcpy(host, dev, 64, static_cast<hipMemcpyKind>(17)),
            hipErrorInvalidMemcpyDirection);
  EXPECT_EQ(rt_->Memset(nullptr, 0, 64), hipErrorInvalidValue);
  EXPECT_EQ(rt_->LaunchHostFunc(nullptr, nullptr, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(rt_->Free(nullptr), hipSuccess);
  EXPECT_EQ(rt_->HostFree(nullptr), hipSuccess);
}

// hipStreamPerThread names the calling thread's default stream: one thread's, held in a host
// function, holds up no other thread's, and each runs its own work in order.
TEST_P(RuntimeConformance, ThePerThreadStreamIsEachThreadsOwn) {
  const Stream own = hipStreamPerThread;
  constexpr size_t kHalf = 2048;
  auto* dev = static_cast<unsigned char*>(DeviceAlloc(2 * kHalf));
  auto* pinned = static_cast<unsigned char*>(PinnedAlloc(2 * kHalf));
  std::memset(pinned, 0, 2 * kHalf);
  Gate* gate = gates_.New();
  ASSERT_EQ(rt_->LaunchHostFunc(own, Gate::Wait, gate), hipSuccess);
  ASSERT_EQ(rt_->MemsetAsync(dev, 7, kHalf, own), hipSuccess);
  ASSERT_EQ(rt_->MemcpyAsync(pinned, dev, kHalf, hipMemcpyDeviceToHost, own), hipSuccess);
  std::thread other([&] {
    EXPECT_EQ(rt_->SetDevice(0), hipSuccess);
    EXPECT_EQ(rt_->MemsetAsync(dev + kHalf, 9, kHalf, own), hipSuccess);
    EXPECT_EQ(rt_->MemcpyAsync(pinned + kHalf, dev + kHalf, kHalf, hipMemcpyDeviceToHost, own),
              hipSuccess);
    EXPECT_EQ(rt_->StreamSynchronize(own), hipSuccess);
    EXPECT_EQ(rt_->StreamQuery(own), hipSuccess);
  });
  other.join();
  EXPECT_EQ(pinned[kHalf], 9);
  EXPECT_EQ(pinned[2 * kHalf - 1], 9);
  EXPECT_EQ(rt_->StreamQuery(own), hipErrorNotReady);
  EXPECT_EQ(pinned[0], 0);
  gate->Open();
  ASSERT_EQ(rt_->StreamSynchronize(own), hipSuccess);
  EXPECT_EQ(pinned[0], 7);
  EXPECT_EQ(pinned[kHalf - 1], 7);
}

// It is a blocking stream of the current device, not the caller's to destroy, and it orders with
// the legacy default stream both ways.
TEST_P(RuntimeConformance, ThePerThreadStreamOrdersWithTheLegacyStream) {
  const Stream own = hipStreamPerThread;
  unsigned flags = 99;
  EXPECT_EQ(rt_->StreamGetFlags(own, &flags), hipSuccess);
  EXPECT_EQ(flags, 0u);
  int device = -1;
  EXPECT_EQ(rt_->StreamGetDevice(own, &device), hipSuccess);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(rt_->StreamDestroy(own), hipErrorInvalidHandle);
  void* dev = DeviceAlloc(64);
  auto* pinned = static_cast<unsigned char*>(PinnedAlloc(64));
  pinned[0] = 0;
  // Held, it holds up the legacy stream's later work...
  Gate* gate = gates_.New();
  ASSERT_EQ(rt_->LaunchHostFunc(own, Gate::Wait, gate), hipSuccess);
  ASSERT_EQ(rt_->MemsetAsync(dev, 1, 64, nullptr), hipSuccess);
  ASSERT_EQ(rt_->MemcpyAsync(pinned, dev, 64, hipMemcpyDeviceToHost, nullptr), hipSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(__atomic_load_n(&pinned[0], __ATOMIC_ACQUIRE), 0);
  gate->Open();
  ASSERT_EQ(rt_->StreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(pinned[0], 1);
  // ...and the legacy stream held holds up its later work.
  gate = gates_.New();
  ASSERT_EQ(rt_->LaunchHostFunc(nullptr, Gate::Wait, gate), hipSuccess);
  ASSERT_EQ(rt_->MemsetAsync(dev, 2, 64, own), hipSuccess);
  ASSERT_EQ(rt_->MemcpyAsync(pinned, dev, 64, hipMemcpyDeviceToHost, own), hipSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(rt_->StreamQuery(own), hipErrorNotReady);
  EXPECT_EQ(__atomic_load_n(&pinned[0], __ATOMIC_ACQUIRE), 1);
  gate->Open();
  ASSERT_EQ(rt_->StreamSynchronize(own), hipSuccess);
  EXPECT_EQ(pinned[0], 2);
}

// Several devices (issue 23): what a program using two GPUs from one process relies on.
class RuntimeDevices : public RuntimeConformance {
 protected:
  void SetUp() override {
    RuntimeConformance::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_EQ(rt_->GetDeviceCount(&devices_), hipSuccess);
    if (devices_ < 2) GTEST_SKIP() << "needs 2 devices; the " << GetParam() << " runtime has 1";
  }
  int devices_ = 0;
};

// The current device is the calling thread's: another thread starts on device 0.
TEST_P(RuntimeDevices, TheCurrentDeviceIsPerThread) {
  ASSERT_EQ(rt_->SetDevice(1), hipSuccess);
  int device = -1;
  ASSERT_EQ(rt_->GetDevice(&device), hipSuccess);
  EXPECT_EQ(device, 1);
  std::thread other([&] {
    int seen = -1;
    EXPECT_EQ(rt_->GetDevice(&seen), hipSuccess);
    EXPECT_EQ(seen, 0);
    EXPECT_EQ(rt_->SetDevice(devices_ - 1), hipSuccess);
  });
  other.join();
  ASSERT_EQ(rt_->GetDevice(&device), hipSuccess);
  EXPECT_EQ(device, 1) << "another thread's SetDevice changed this thread's device";
  EXPECT_EQ(rt_->SetDevice(-1), hipErrorInvalidDevice);
  EXPECT_EQ(rt_->SetDevice(devices_), hipErrorInvalidDevice);
  ASSERT_EQ(rt_->GetDevice(&device), hipSuccess);
  EXPECT_EQ(device, 1) << "a refused SetDevice changed the device";
}

TEST_P(RuntimeDevices, EachDeviceHasItsOwnUuidAndDescribesItself) {
  std::vector<std::string> uuids;
  for (int d = 0; d < devices_; ++d) {
    char uuid[16] = {};
    ASSERT_EQ(rt_->GetDeviceUuid(d, uuid), hipSuccess);
    uuids.emplace_back(uuid, sizeof(uuid));
    char name[64] = {};
    EXPECT_EQ(rt_->GetDeviceName(d, name, sizeof(name)), hipSuccess);
    EXPECT_NE(name[0], '\0');
    size_t total = 0;
    EXPECT_EQ(rt_->GetDeviceTotalMem(d, &total), hipSuccess);
    EXPECT_GT(total, 0u);
    EXPECT_TRUE(rt_->SupportsStreamMemOps(d) || GetParam() == "cuda");
  }
  for (size_t i = 0; i < uuids.size(); ++i) {
    for (size_t j = i + 1; j < uuids.size(); ++j) EXPECT_NE(uuids[i], uuids[j]);
  }
  char uuid[16] = {};
  EXPECT_EQ(rt_->GetDeviceUuid(devices_, uuid), hipErrorInvalidDevice);
}

// Memory and streams belong to the device current when they were made, and a stream of device 1
// does its work while device 0 is current.
TEST_P(RuntimeDevices, MemoryAndStreamsBelongToTheirDeviceWhateverIsCurrent) {
  ASSERT_EQ(rt_->SetDevice(1), hipSuccess);
  void* dev1 = nullptr;
  ASSERT_EQ(rt_->Malloc(&dev1, 1 << 16), hipSuccess);
  Stream s1 = nullptr;
  ASSERT_EQ(rt_->StreamCreate(&s1, hipStreamNonBlocking), hipSuccess);
  ASSERT_EQ(rt_->SetDevice(0), hipSuccess);
  void* dev0 = DeviceAlloc(1 << 16);

  PointerInfo info;
  ASSERT_EQ(rt_->PointerGetInfo(static_cast<char*>(dev1) + 100, &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeDevice);
  EXPECT_EQ(info.device, 1);
  EXPECT_EQ(info.base, dev1);
  ASSERT_EQ(rt_->PointerGetInfo(dev0, &info), hipSuccess);
  EXPECT_EQ(info.device, 0);
  int device = -1;
  ASSERT_EQ(rt_->StreamGetDevice(s1, &device), hipSuccess);
  EXPECT_EQ(device, 1);

  // Device 0 current, device 1's stream: fill, copy to host, in stream order.
  std::vector<unsigned char> host(1 << 16, 0);
  ASSERT_EQ(rt_->MemsetAsync(dev1, 0x5a, host.size(), s1), hipSuccess);
  ASSERT_EQ(rt_->MemcpyAsync(host.data(), dev1, host.size(), hipMemcpyDeviceToHost, s1),
            hipSuccess);
  ASSERT_EQ(rt_->StreamSynchronize(s1), hipSuccess);
  EXPECT_EQ(std::count(host.begin(), host.end(), 0x5a), static_cast<long>(host.size()));
  ASSERT_EQ(rt_->GetDevice(&device), hipSuccess);
  EXPECT_EQ(device, 0) << "using device 1's stream changed the current device";

  ASSERT_EQ(rt_->SetDevice(1), hipSuccess);
  EXPECT_EQ(rt_->StreamDestroy(s1), hipSuccess);
  EXPECT_EQ(rt_->Free(dev1), hipSuccess);
}

// DeviceSynchronize waits for the current device's work only: device 1 held by a host function
// does not hold device 0's synchronize.
TEST_P(RuntimeDevices, DeviceSynchronizeWaitsForTheCurrentDeviceOnly) {
  ASSERT_EQ(rt_->SetDevice(1), hipSuccess);
  Stream s1 = nullptr;
  ASSERT_EQ(rt_->StreamCreate(&s1, hipStreamNonBlocking), hipSuccess);
  hipfile::testing::Gate* gate = gates_.New();
  ASSERT_EQ(rt_->LaunchHostFunc(s1, hipfile::testing::Gate::Wait, gate), hipSuccess);
  ASSERT_EQ(rt_->SetDevice(0), hipSuccess);
  Stream s0 = NewStream();
  ASSERT_EQ(rt_->MemsetAsync(DeviceAlloc(4096), 1, 4096, s0), hipSuccess);
  std::atomic<bool> returned{false};
  std::thread sync([&] {
    EXPECT_EQ(rt_->SetDevice(0), hipSuccess);
    EXPECT_EQ(rt_->DeviceSynchronize(), hipSuccess);
    returned = true;
  });
  EXPECT_TRUE(WaitUntil([&] { return returned.load(); }))
      << "device 0's synchronize waited for device 1";
  EXPECT_EQ(rt_->StreamQuery(s1), hipErrorNotReady);
  gate->Open();
  sync.join();
  EXPECT_TRUE(StreamDrains(*rt_, s1));
  ASSERT_EQ(rt_->SetDevice(1), hipSuccess);
  EXPECT_EQ(rt_->StreamDestroy(s1), hipSuccess);
}

// Events: recorded on a stream of their own device; a stream of another device may wait for one.
TEST_P(RuntimeDevices, EventsRecordOnTheirDeviceAndOrderStreamsAcrossDevices) {
  ASSERT_EQ(rt_->SetDevice(1), hipSuccess);
  Event e1 = nullptr;
  ASSERT_EQ(rt_->EventCreate(&e1, hipEventDefault), hipSuccess);
  Stream s1 = nullptr;
  ASSERT_EQ(rt_->StreamCreate(&s1, hipStreamNonBlocking), hipSuccess);
  ASSERT_EQ(rt_->SetDevice(0), hipSuccess);
  Stream s0 = NewStream();
  EXPECT_NE(rt_->EventRecord(e1, s0), hipSuccess) << "an event recorded on another device's stream";

  hipfile::testing::Gate* gate = gates_.New();
  ASSERT_EQ(rt_->LaunchHostFunc(s1, hipfile::testing::Gate::Wait, gate), hipSuccess);
  ASSERT_EQ(rt_->EventRecord(e1, s1), hipSuccess);
  ASSERT_EQ(rt_->StreamWaitEvent(s0, e1, 0), hipSuccess);
  std::atomic<int> ran{0};
  ASSERT_EQ(rt_->LaunchHostFunc(
                s0, [](void* p) { static_cast<std::atomic<int>*>(p)->fetch_add(1); }, &ran),
            hipSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(ran.load(), 0) << "device 0's stream did not wait for device 1's event";
  gate->Open();
  EXPECT_TRUE(StreamDrains(*rt_, s0));
  EXPECT_EQ(ran.load(), 1);
  ASSERT_EQ(rt_->SetDevice(1), hipSuccess);
  EXPECT_EQ(rt_->EventDestroy(e1), hipSuccess);
  EXPECT_EQ(rt_->StreamDestroy(s1), hipSuccess);
}

INSTANTIATE_TEST_SUITE_P(Runtimes, RuntimeConformance, ::testing::Values("cpu", "cpu-4", "cuda"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.param == "cpu-4" ? std::string("cpu4") : param.param;
                         });
INSTANTIATE_TEST_SUITE_P(Runtimes, RuntimeDevices, ::testing::Values("cpu", "cpu-4", "cuda"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.param == "cpu-4" ? std::string("cpu4") : param.param;
                         });

}  // namespace
}  // namespace hipfile::runtime
