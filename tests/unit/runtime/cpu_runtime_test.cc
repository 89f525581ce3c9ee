// SPDX-License-Identifier: MIT
// The CPU runtime's own rules: what conformance_test.cc cannot check on a GPU (host access to
// "device" memory, exact ranges, the legacy default stream, error codes, shutdown).
#include "runtime/cpu/cpu_runtime.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "fakes/process_threads.h"
#include "unit/runtime/runtime_test_util.h"
#include "util/align.h"

namespace hipfile::runtime {
namespace {

using hipfile::testing::Gate;
using hipfile::testing::Gates;
using hipfile::testing::StreamDrains;
using hipfile::testing::WaitUntil;
using namespace std::chrono_literals;

void Increment(void* counter) { static_cast<std::atomic<int>*>(counter)->fetch_add(1); }

class CpuRuntimeTest : public ::testing::Test {
 protected:
  void TearDown() override { gates_.OpenAll(); }

  Stream NewStream(unsigned flags) {
    Stream s = nullptr;
    EXPECT_EQ(rt_->StreamCreate(&s, flags), hipSuccess);
    return s;
  }
  // Queues a host function that holds the stream until the returned gate opens.
  Gate* Block(Stream s) {
    Gate* gate = gates_.New();
    EXPECT_EQ(rt_->LaunchHostFunc(s, Gate::Wait, gate), hipSuccess);
    return gate;
  }

  Gates gates_;  // declared before rt_ so that it outlives the runtime's workers
  std::unique_ptr<GpuRuntime> rt_ = CreateCpuRuntime();
};

TEST_F(CpuRuntimeTest, OneEmulatedDevice) {
  EXPECT_STREQ(rt_->Name(), "cpu");
  int count = 0;
  ASSERT_EQ(rt_->GetDeviceCount(&count), hipSuccess);
  EXPECT_EQ(count, 1);
  EXPECT_EQ(rt_->SetDevice(0), hipSuccess);
  EXPECT_EQ(rt_->SetDevice(1), hipErrorInvalidDevice);
  EXPECT_EQ(rt_->SetDevice(-1), hipErrorInvalidDevice);
  int device = -1;
  std::thread([&] { EXPECT_EQ(rt_->GetDevice(&device), hipSuccess); }).join();
  EXPECT_EQ(device, 0);
  EXPECT_EQ(rt_->GetDeviceCount(nullptr), hipErrorInvalidValue);
  EXPECT_EQ(rt_->GetDevice(nullptr), hipErrorInvalidValue);
}

TEST_F(CpuRuntimeTest, MemGetInfoReportsPhysicalMemory) {
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(rt_->MemGetInfo(&free_bytes, &total_bytes), hipSuccess);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  EXPECT_EQ(total_bytes, static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * page);
  EXPECT_GT(free_bytes, 0u);
  EXPECT_LE(free_bytes, total_bytes);
  EXPECT_EQ(rt_->MemGetInfo(nullptr, &total_bytes), hipErrorInvalidValue);
}

TEST_F(CpuRuntimeTest, UuidIsFixed) {
  char uuid[16];
  ASSERT_EQ(rt_->GetDeviceUuid(0, uuid), hipSuccess);
  EXPECT_EQ(std::string(uuid, 16), "hipfile-cpu-dev0");
  EXPECT_EQ(rt_->GetDeviceUuid(1, uuid), hipErrorInvalidDevice);
  EXPECT_EQ(rt_->GetDeviceUuid(0, nullptr), hipErrorInvalidValue);
}

TEST_F(CpuRuntimeTest, MallocIsPageAlignedAndTrackedExactly) {
  constexpr size_t kSize = 10000;
  char* p = nullptr;
  ASSERT_EQ(rt_->Malloc(reinterpret_cast<void**>(&p), kSize), hipSuccess);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % sysconf(_SC_PAGESIZE), 0u);
  memset(p, 1, kSize);  // host-accessible in this runtime

  PointerInfo info;
  ASSERT_EQ(rt_->PointerGetInfo(p + kSize - 1, &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeDevice);
  EXPECT_EQ(info.device, 0);
  EXPECT_EQ(info.base, p);
  EXPECT_EQ(info.size, kSize);
  EXPECT_EQ(info.device_pointer, p + kSize - 1);
  EXPECT_EQ(info.host_pointer, nullptr);
  EXPECT_FALSE(info.is_managed);

  ASSERT_EQ(rt_->PointerGetInfo(p + kSize, &info), hipSuccess);  // one past the end
  EXPECT_EQ(info.type, hipMemoryTypeUnregistered);
  EXPECT_EQ(info.base, nullptr);

  EXPECT_EQ(rt_->Free(p + 1), hipErrorInvalidValue);  // interior pointer
  EXPECT_EQ(rt_->HostFree(p), hipErrorInvalidValue);  // wrong kind
  EXPECT_EQ(rt_->Free(p), hipSuccess);
  EXPECT_EQ(rt_->Free(p), hipErrorInvalidValue);  // already freed
}

TEST_F(CpuRuntimeTest, MallocOfZeroBytesGivesNull) {
  void* p = reinterpret_cast<void*>(0x1234);
  ASSERT_EQ(rt_->Malloc(&p, 0), hipSuccess);
  EXPECT_EQ(p, nullptr);
  p = reinterpret_cast<void*>(0x1234);
  ASSERT_EQ(rt_->HostMalloc(&p, 0, 0), hipSuccess);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(rt_->Free(nullptr), hipSuccess);
  int local = 0;
  EXPECT_EQ(rt_->Free(&local), hipErrorInvalidValue);
  EXPECT_EQ(rt_->HostFree(&local), hipErrorInvalidValue);
}

TEST_F(CpuRuntimeTest, MallocFailureIsOutOfMemory) {
  void* p = nullptr;
  EXPECT_EQ(rt_->Malloc(&p, SIZE_MAX - 4096), hipErrorOutOfMemory);
  EXPECT_EQ(p, nullptr);
}

TEST_F(CpuRuntimeTest, HostMallocIsHostTypeWithFlags) {
  char* p = nullptr;
  ASSERT_EQ(rt_->HostMalloc(reinterpret_cast<void**>(&p), 5000, hipHostMallocMapped), hipSuccess);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % sysconf(_SC_PAGESIZE), 0u);
  PointerInfo info;
  ASSERT_EQ(rt_->PointerGetInfo(p + 4999, &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeHost);
  EXPECT_EQ(info.device, 0);
  EXPECT_EQ(info.base, p);
  EXPECT_EQ(info.size, 5000u);
  EXPECT_EQ(info.host_pointer, p + 4999);
  EXPECT_EQ(info.flags, unsigned{hipHostMallocMapped});
  EXPECT_EQ(rt_->Free(p), hipErrorInvalidValue);  // wrong kind
  EXPECT_EQ(rt_->HostFree(p), hipSuccess);
}

TEST_F(CpuRuntimeTest, HostRegisterRanges) {
  std::vector<char> buffer(3 * 4096);
  char* b = buffer.data();
  EXPECT_EQ(rt_->HostRegister(nullptr, 4096, 0), hipErrorInvalidValue);
  EXPECT_EQ(rt_->HostRegister(b, 0, 0), hipErrorInvalidValue);
  ASSERT_EQ(rt_->HostRegister(b + 4096, 4096, hipHostRegisterReadOnly), hipSuccess);

  PointerInfo info;
  ASSERT_EQ(rt_->PointerGetInfo(b + 4096 + 17, &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeHost);
  EXPECT_EQ(info.base, b + 4096);
  EXPECT_EQ(info.size, 4096u);
  EXPECT_EQ(info.flags, unsigned{hipHostRegisterReadOnly});
  ASSERT_EQ(rt_->PointerGetInfo(b + 4095, &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeUnregistered);

  // Overlaps from either side, and the same range again.
  EXPECT_EQ(rt_->HostRegister(b, 4097, 0), hipErrorHostMemoryAlreadyRegistered);
  EXPECT_EQ(rt_->HostRegister(b + 8191, 10, 0), hipErrorHostMemoryAlreadyRegistered);
  EXPECT_EQ(rt_->HostRegister(b + 4096, 4096, 0), hipErrorHostMemoryAlreadyRegistered);
  // Neighbours that only touch are fine.
  ASSERT_EQ(rt_->HostRegister(b, 4096, 0), hipSuccess);
  ASSERT_EQ(rt_->HostRegister(b + 8192, 4096, 0), hipSuccess);

  EXPECT_EQ(rt_->HostUnregister(b + 1), hipErrorHostMemoryNotRegistered);
  EXPECT_EQ(rt_->HostUnregister(nullptr), hipErrorInvalidValue);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(rt_->HostUnregister(b + i * 4096), hipSuccess);
  EXPECT_EQ(rt_->HostUnregister(b), hipErrorHostMemoryNotRegistered);
}

TEST_F(CpuRuntimeTest, PointerInfoOfUnknownAndNullPointers) {
  int local = 0;
  PointerInfo info;
  info.base = &local;
  ASSERT_EQ(rt_->PointerGetInfo(&local, &info), hipSuccess);
  EXPECT_EQ(info.type, hipMemoryTypeUnregistered);
  EXPECT_EQ(info.device, -1);
  EXPECT_EQ(info.base, nullptr);
  EXPECT_EQ(info.size, 0u);
  EXPECT_EQ(rt_->PointerGetInfo(nullptr, &info), hipErrorInvalidValue);
  EXPECT_EQ(rt_->PointerGetInfo(&local, nullptr), hipErrorInvalidValue);
}

TEST_F(CpuRuntimeTest, CopyChecks) {
  char* dev = nullptr;
  ASSERT_EQ(rt_->Malloc(reinterpret_cast<void**>(&dev), 100), hipSuccess);
  char host[200] = {};
  // Any valid kind on any pointers (unified addressing).
  for (int kind = 0; kind <= 4; ++kind) {
    EXPECT_EQ(rt_->Memcpy(host, dev, 100, static_cast<hipMemcpyKind>(kind)), hipSuccess) << kind;
  }
  EXPECT_EQ(rt_->Memcpy(host, dev, 100, static_cast<hipMemcpyKind>(5)),
            hipErrorInvalidMemcpyDirection);
  EXPECT_EQ(rt_->MemcpyAsync(host, dev, 100, static_cast<hipMemcpyKind>(-1), nullptr),
            hipErrorInvalidMemcpyDirection);
  // Past the end of the allocation, on either side.
  EXPECT_EQ(rt_->Memcpy(dev, host, 101, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT_EQ(rt_->Memcpy(host, dev + 50, 51, hipMemcpyDeviceToHost), hipErrorInvalidValue);
  EXPECT_EQ(rt_->MemcpyAsync(dev + 99, host, 2, hipMemcpyHostToDevice, nullptr),
            hipErrorInvalidValue);
  EXPECT_EQ(rt_->Memset(dev + 1, 0, 100), hipErrorInvalidValue);
  EXPECT_EQ(rt_->MemsetAsync(dev, 0, 101, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(rt_->Memcpy(host, dev + 50, 50, hipMemcpyDeviceToHost), hipSuccess);
  // Null pointers are fine for empty copies only.
  EXPECT_EQ(rt_->Memcpy(nullptr, nullptr, 0, hipMemcpyDefault), hipSuccess);
  EXPECT_EQ(rt_->MemcpyAsync(nullptr, host, 1, hipMemcpyDefault, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(rt_->MemsetAsync(nullptr, 0, 1, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(rt_->Memset(nullptr, 0, 0), hipSuccess);

  ASSERT_EQ(rt_->Memset(dev, 0x11, 100), hipSuccess);
  EXPECT_EQ(dev[0], 0x11);
  EXPECT_EQ(dev[99], 0x11);
  EXPECT_EQ(rt_->Free(dev), hipSuccess);
}

// Each step writes the whole buffer, copies one byte out and logs from a host function: the
// result is right only if the 3000 operations ran exactly in submission order.
struct Step {
  std::vector<int>* log;
  const unsigned char* dev;
  unsigned char expected;
  bool ok = false;
};

void CheckStep(void* arg) {
  auto* step = static_cast<Step*>(arg);
  step->ok = step->dev[0] == step->expected && step->dev[511] == step->expected;
  step->log->push_back(static_cast<int>(step->expected));
}

TEST_F(CpuRuntimeTest, OneStreamRunsInSubmissionOrder) {
  constexpr int kSteps = 1000;
  Stream s = NewStream(hipStreamDefault);
  unsigned char* dev = nullptr;
  ASSERT_EQ(rt_->Malloc(reinterpret_cast<void**>(&dev), 512), hipSuccess);
  std::vector<unsigned char> out(kSteps);
  std::vector<int> log;  // written only by the stream's worker
  std::vector<Step> steps(kSteps);
  for (int i = 0; i < kSteps; ++i) {
    const auto value = static_cast<unsigned char>(i * 7 + 1);
    steps[i] = Step{&log, dev, value};
    ASSERT_EQ(rt_->MemsetAsync(dev, value, 512, s), hipSuccess);
    ASSERT_EQ(rt_->MemcpyAsync(&out[i], dev + i % 512, 1, hipMemcpyDeviceToHost, s), hipSuccess);
    ASSERT_EQ(rt_->LaunchHostFunc(s, CheckStep, &steps[i]), hipSuccess);
  }
  ASSERT_EQ(rt_->StreamSynchronize(s), hipSuccess);
  ASSERT_EQ(log.size(), size_t{kSteps});
  for (int i = 0; i < kSteps; ++i) {
    const auto value = static_cast<unsigned char>(i * 7 + 1);
    ASSERT_EQ(out[i], value) << i;
    ASSERT_EQ(log[i], value) << i;
    ASSERT_TRUE(steps[i].ok) << i;
  }
  EXPECT_EQ(rt_->StreamDestroy(s), hipSuccess);
  EXPECT_EQ(rt_->Free(dev), hipSuccess);
}

TEST_F(CpuRuntimeTest, BlockedHostFunctionBlocksOnlyItsStream) {
  Stream a = NewStream(hipStreamNonBlocking);
  Stream b = NewStream(hipStreamNonBlocking);
  std::atomic<int> a_done{0}, b_done{0};
  Gate* gate = Block(a);
  ASSERT_EQ(rt_->LaunchHostFunc(a, Increment, &a_done), hipSuccess);
  char dev_b[64];
  ASSERT_EQ(rt_->MemsetAsync(dev_b, 3, sizeof(dev_b), b), hipSuccess);
  ASSERT_EQ(rt_->LaunchHostFunc(b, Increment, &b_done), hipSuccess);

  ASSERT_TRUE(StreamDrains(*rt_, b));
  EXPECT_EQ(b_done.load(), 1);
  EXPECT_EQ(dev_b[63], 3);
  EXPECT_EQ(rt_->StreamQuery(a), hipErrorNotReady);
  EXPECT_EQ(a_done.load(), 0);

  gate->Open();
  ASSERT_EQ(rt_->StreamSynchronize(a), hipSuccess);
  EXPECT_EQ(a_done.load(), 1);
  EXPECT_EQ(rt_->StreamQuery(a), hipSuccess);
  EXPECT_EQ(rt_->StreamDestroy(a), hipSuccess);
  EXPECT_EQ(rt_->StreamDestroy(b), hipSuccess);
}

TEST_F(CpuRuntimeTest, NullStreamWaitsForBlockingStreamsOnly) {
  Stream blocking = NewStream(hipStreamDefault);
  Stream non_blocking = NewStream(hipStreamNonBlocking);
  std::atomic<int> null_done{0};

  Gate* free_running = Block(non_blocking);  // does not hold the null stream back
  Gate* gate = Block(blocking);
  ASSERT_EQ(rt_->LaunchHostFunc(nullptr, Increment, &null_done), hipSuccess);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(null_done.load(), 0);
  EXPECT_EQ(rt_->StreamQuery(nullptr), hipErrorNotReady);

  gate->Open();
  ASSERT_EQ(rt_->StreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(null_done.load(), 1);
  EXPECT_EQ(rt_->StreamQuery(non_blocking), hipErrorNotReady);
  free_running->Open();
  EXPECT_EQ(rt_->StreamDestroy(blocking), hipSuccess);
  EXPECT_EQ(rt_->StreamDestroy(non_blocking), hipSuccess);
}

TEST_F(CpuRuntimeTest, BlockingStreamWaitsForEarlierNullStreamWork) {
  Stream blocking = NewStream(hipStreamDefault);
  Stream non_blocking = NewStream(hipStreamNonBlocking);
  std::atomic<int> blocking_done{0}, non_blocking_done{0};
  Gate* gate = Block(nullptr);
  ASSERT_EQ(rt_->LaunchHostFunc(blocking, Increment, &blocking_done), hipSuccess);
  ASSERT_EQ(rt_->LaunchHostFunc(non_blocking, Increment, &non_blocking_done), hipSuccess);

  ASSERT_TRUE(StreamDrains(*rt_, non_blocking));
  EXPECT_EQ(non_blocking_done.load(), 1);
  EXPECT_EQ(rt_->StreamQuery(blocking), hipErrorNotReady);
  EXPECT_EQ(blocking_done.load(), 0);
  gate->Open();
  ASSERT_EQ(rt_->StreamSynchronize(blocking), hipSuccess);
  EXPECT_EQ(blocking_done.load(), 1);
  EXPECT_EQ(rt_->StreamDestroy(blocking), hipSuccess);
  EXPECT_EQ(rt_->StreamDestroy(non_blocking), hipSuccess);
}

TEST_F(CpuRuntimeTest, SynchronousCopyWaitsForNullStreamWork) {
  char* dev = nullptr;
  ASSERT_EQ(rt_->Malloc(reinterpret_cast<void**>(&dev), 256), hipSuccess);
  ASSERT_EQ(rt_->Memset(dev, 0, 256), hipSuccess);
  Gate* gate = Block(nullptr);
  ASSERT_EQ(rt_->MemsetAsync(dev, 7, 256, nullptr), hipSuccess);

  char host[256] = {};
  std::atomic<bool> copied{false};
  std::thread copier([&] {
    EXPECT_EQ(rt_->Memcpy(host, dev, 256, hipMemcpyDeviceToHost), hipSuccess);
    copied = true;
  });
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(copied.load());
  gate->Open();
  copier.join();
  EXPECT_EQ(host[0], 7);
  EXPECT_EQ(host[255], 7);
  EXPECT_EQ(rt_->Free(dev), hipSuccess);
}

TEST_F(CpuRuntimeTest, FreeWaitsForQueuedWork) {
  Stream s = NewStream(hipStreamNonBlocking);
  void* dev = nullptr;
  ASSERT_EQ(rt_->Malloc(&dev, 4096), hipSuccess);
  Gate* gate = Block(s);
  ASSERT_EQ(rt_->MemsetAsync(dev, 1, 4096, s), hipSuccess);
  std::atomic<bool> freed{false};
  std::thread freer([&] {
    EXPECT_EQ(rt_->Free(dev), hipSuccess);
    freed = true;
  });
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(freed.load());
  gate->Open();
  freer.join();
  EXPECT_TRUE(freed.load());
  EXPECT_EQ(rt_->StreamQuery(s), hipSuccess);
  EXPECT_EQ(rt_->StreamDestroy(s), hipSuccess);
}

// CUDA's driver lock (runtime/cpu/driver_lock.h): while Free, HostFree or HostUnregister waits
// for queued work, every other thread's call waits with it - a copy queued, a pointer asked about,
// memory pinned - and goes on once it returns.
TEST_F(CpuRuntimeTest, CallsWaitWhileAFreeWaitsForQueuedWork) {
  Stream s = NewStream(hipStreamNonBlocking);
  void* dev = nullptr;
  ASSERT_EQ(rt_->Malloc(&dev, 4096), hipSuccess);
  void* pinned = nullptr;
  ASSERT_EQ(rt_->HostMalloc(&pinned, 4096, 0), hipSuccess);
  std::vector<char> registered(8192);
  ASSERT_EQ(rt_->HostRegister(registered.data(), registered.size(), 0), hipSuccess);
  for (int waiter = 0; waiter < 3; ++waiter) {
    Gate* gate = Block(s);
    std::atomic<bool> released{false};
    std::thread releaser([&] {
      switch (waiter) {
        case 0:
          EXPECT_EQ(rt_->Free(dev), hipSuccess);
          break;
        case 1:
          EXPECT_EQ(rt_->HostFree(pinned), hipSuccess);
          break;
        default:
          EXPECT_EQ(rt_->HostUnregister(registered.data()), hipSuccess);
          break;
      }
      released = true;
    });
    std::this_thread::sleep_for(20ms);  // the releaser waits for the stream, holding the lock
    std::atomic<int> calls_done{0};
    std::thread caller([&] {
      int count = 0;
      EXPECT_EQ(rt_->GetDeviceCount(&count), hipSuccess);
      PointerInfo info;
      EXPECT_EQ(rt_->PointerGetInfo(registered.data(), &info), hipSuccess);
      void* more = nullptr;
      EXPECT_EQ(rt_->HostMalloc(&more, 4096, 0), hipSuccess);
      EXPECT_EQ(rt_->HostFree(more), hipSuccess);
      calls_done = 3;
    });
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(released.load()) << "waiter " << waiter;
    EXPECT_EQ(calls_done.load(), 0) << "a call went on while waiter " << waiter << " waited";
    gate->Open();
    releaser.join();
    caller.join();
    EXPECT_TRUE(released.load());
    EXPECT_EQ(calls_done.load(), 3);
  }
  EXPECT_EQ(rt_->StreamDestroy(s), hipSuccess);
}

// Without the lock (CpuRuntimeOptions::driver_lock false) other calls do not wait.
TEST(CpuRuntimeDriverLock, OffLetsCallsThroughWhileAFreeWaits) {
  Gates gates;
  CpuRuntimeOptions options;
  options.driver_lock = false;
  std::unique_ptr<GpuRuntime> rt = CreateCpuRuntime(options);
  Stream s = nullptr;
  ASSERT_EQ(rt->StreamCreate(&s, hipStreamNonBlocking), hipSuccess);
  void* dev = nullptr;
  ASSERT_EQ(rt->Malloc(&dev, 4096), hipSuccess);
  Gate* gate = gates.New();
  ASSERT_EQ(rt->LaunchHostFunc(s, Gate::Wait, gate), hipSuccess);
  std::thread freer([&] { EXPECT_EQ(rt->Free(dev), hipSuccess); });
  std::this_thread::sleep_for(20ms);
  int count = 0;
  EXPECT_EQ(rt->GetDeviceCount(&count), hipSuccess);  // returns while the free waits
  EXPECT_EQ(count, 1);
  gate->Open();
  freer.join();
  EXPECT_EQ(rt->StreamDestroy(s), hipSuccess);
}

TEST_F(CpuRuntimeTest, DeviceSynchronizeWaitsForEveryStream) {
  Stream a = NewStream(hipStreamNonBlocking);
  Stream b = NewStream(hipStreamDefault);
  std::atomic<int> done{0};
  Gate* gate_a = Block(a);
  Gate* gate_b = Block(b);
  for (Stream s : {a, b, Stream{nullptr}}) {
    ASSERT_EQ(rt_->LaunchHostFunc(s, Increment, &done), hipSuccess);
  }
  std::atomic<bool> synced{false};
  std::thread syncer([&] {
    EXPECT_EQ(rt_->DeviceSynchronize(), hipSuccess);
    synced = true;
  });
  gate_b->Open();
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(synced.load());
  gate_a->Open();
  syncer.join();
  EXPECT_EQ(done.load(), 3);
  EXPECT_EQ(rt_->StreamDestroy(a), hipSuccess);
  EXPECT_EQ(rt_->StreamDestroy(b), hipSuccess);
}

TEST_F(CpuRuntimeTest, StreamHandles) {
  Stream s = nullptr;
  EXPECT_EQ(rt_->StreamCreate(nullptr, 0), hipErrorInvalidValue);
  EXPECT_EQ(rt_->StreamCreate(&s, 0x4), hipErrorInvalidValue);
  ASSERT_EQ(rt_->StreamCreate(&s, hipStreamNonBlocking), hipSuccess);
  ASSERT_NE(s, nullptr);
  int device = -1;
  EXPECT_EQ(rt_->StreamGetDevice(s, &device), hipSuccess);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(rt_->StreamGetDevice(nullptr, &device), hipSuccess);
  EXPECT_EQ(rt_->StreamGetDevice(s, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(rt_->StreamDestroy(s), hipSuccess);

  // A destroyed handle is dead everywhere, and is not handed out again.
  std::atomic<int> done{0};
  EXPECT_EQ(rt_->StreamDestroy(s), hipErrorInvalidHandle);
  EXPECT_EQ(rt_->StreamSynchronize(s), hipErrorInvalidHandle);
  EXPECT_EQ(rt_->StreamQuery(s), hipErrorInvalidHandle);
  EXPECT_EQ(rt_->StreamGetDevice(s, &device), hipErrorInvalidHandle);
  EXPECT_EQ(rt_->LaunchHostFunc(s, Increment, &done), hipErrorInvalidHandle);
  char buf[8];
  EXPECT_EQ(rt_->MemsetAsync(buf, 0, 8, s), hipErrorInvalidHandle);
  EXPECT_EQ(rt_->StreamDestroy(nullptr), hipErrorInvalidHandle);
  Stream again = NewStream(0);
  EXPECT_NE(again, s);
  EXPECT_EQ(rt_->StreamDestroy(again), hipSuccess);
  EXPECT_EQ(done.load(), 0);
}

TEST_F(CpuRuntimeTest, StreamDestroyReturnsAtOnceAndQueuedWorkStillRuns) {
  Stream s = NewStream(hipStreamNonBlocking);
  std::atomic<int> done{0};
  Gate* gate = Block(s);
  ASSERT_EQ(rt_->LaunchHostFunc(s, Increment, &done), hipSuccess);
  ASSERT_EQ(rt_->StreamDestroy(s), hipSuccess);
  EXPECT_EQ(done.load(), 0);
  gate->Open();
  ASSERT_EQ(rt_->DeviceSynchronize(), hipSuccess);
  EXPECT_EQ(done.load(), 1);
}

TEST_F(CpuRuntimeTest, StreamWaitEventUsesTheLatestRecordAtTheTimeOfTheCall) {
  Stream a = NewStream(hipStreamNonBlocking);
  Stream b = NewStream(hipStreamNonBlocking);
  Stream c = NewStream(hipStreamNonBlocking);
  Event e = nullptr;
  ASSERT_EQ(rt_->EventCreate(&e, hipEventDefault), hipSuccess);

  // A never-recorded event is no wait at all.
  std::atomic<int> b_done{0};
  ASSERT_EQ(rt_->StreamWaitEvent(b, e, 0), hipSuccess);
  ASSERT_EQ(rt_->LaunchHostFunc(b, Increment, &b_done), hipSuccess);
  ASSERT_TRUE(StreamDrains(*rt_, b));
  EXPECT_EQ(b_done.load(), 1);

  Gate* gate = Block(a);
  ASSERT_EQ(rt_->EventRecord(e, a), hipSuccess);
  ASSERT_EQ(rt_->StreamWaitEvent(b, e, 0), hipSuccess);
  ASSERT_EQ(rt_->LaunchHostFunc(b, Increment, &b_done), hipSuccess);
  // Re-recording on an idle stream moves the event; b still waits for the record on a.
  ASSERT_EQ(rt_->EventRecord(e, c), hipSuccess);
  ASSERT_EQ(rt_->EventSynchronize(e), hipSuccess);
  EXPECT_EQ(rt_->EventQuery(e), hipSuccess);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(b_done.load(), 1);
  EXPECT_EQ(rt_->StreamQuery(b), hipErrorNotReady);

  gate->Open();
  ASSERT_EQ(rt_->StreamSynchronize(b), hipSuccess);
  EXPECT_EQ(b_done.load(), 2);
  EXPECT_EQ(rt_->StreamWaitEvent(b, e, 1), hipErrorInvalidValue);
  EXPECT_EQ(rt_->EventDestroy(e), hipSuccess);
  EXPECT_EQ(rt_->StreamWaitEvent(b, e, 0), hipErrorInvalidHandle);
  for (Stream s : {a, b, c}) EXPECT_EQ(rt_->StreamDestroy(s), hipSuccess);
}

TEST_F(CpuRuntimeTest, EventRules) {
  Event e = nullptr;
  EXPECT_EQ(rt_->EventCreate(nullptr, 0), hipErrorInvalidValue);
  EXPECT_EQ(rt_->EventCreate(&e, 0x100), hipErrorInvalidValue);
  ASSERT_EQ(rt_->EventCreate(&e, hipEventBlockingSync), hipSuccess);
  float ms = 0;
  EXPECT_EQ(rt_->EventElapsedTime(&ms, e, e), hipErrorInvalidHandle);  // never recorded
  EXPECT_EQ(rt_->EventElapsedTime(nullptr, e, e), hipErrorInvalidValue);
  ASSERT_EQ(rt_->EventRecord(e, nullptr), hipSuccess);
  ASSERT_EQ(rt_->EventSynchronize(e), hipSuccess);
  ASSERT_EQ(rt_->EventElapsedTime(&ms, e, e), hipSuccess);
  EXPECT_EQ(ms, 0.0f);

  Stream dead = NewStream(0);
  ASSERT_EQ(rt_->StreamDestroy(dead), hipSuccess);
  EXPECT_EQ(rt_->EventRecord(e, dead), hipErrorInvalidHandle);
  EXPECT_EQ(rt_->EventDestroy(e), hipSuccess);
  for (hipError_t err :
       {rt_->EventDestroy(e), rt_->EventQuery(e), rt_->EventSynchronize(e),
        rt_->EventRecord(e, nullptr), rt_->EventElapsedTime(&ms, e, e), rt_->EventQuery(nullptr)}) {
    EXPECT_EQ(err, hipErrorInvalidHandle);
  }
}

TEST_F(CpuRuntimeTest, ElapsedTimeMeasuresBetweenCompletions) {
  Stream s = NewStream(hipStreamNonBlocking);
  Event start = nullptr, stop = nullptr;
  ASSERT_EQ(rt_->EventCreate(&start, 0), hipSuccess);
  ASSERT_EQ(rt_->EventCreate(&stop, 0), hipSuccess);
  ASSERT_EQ(rt_->EventRecord(start, s), hipSuccess);
  ASSERT_EQ(rt_->LaunchHostFunc(
                s, [](void*) { std::this_thread::sleep_for(30ms); }, nullptr),
            hipSuccess);
  ASSERT_EQ(rt_->EventRecord(stop, s), hipSuccess);
  ASSERT_EQ(rt_->EventSynchronize(stop), hipSuccess);
  float ms = 0;
  ASSERT_EQ(rt_->EventElapsedTime(&ms, start, stop), hipSuccess);
  EXPECT_GE(ms, 29.0f);
  EXPECT_LT(ms, 5000.0f);
  ASSERT_EQ(rt_->EventElapsedTime(&ms, stop, start), hipSuccess);
  EXPECT_LE(ms, -29.0f);
  EXPECT_EQ(rt_->EventDestroy(start), hipSuccess);
  EXPECT_EQ(rt_->EventDestroy(stop), hipSuccess);
  EXPECT_EQ(rt_->StreamDestroy(s), hipSuccess);
}

TEST_F(CpuRuntimeTest, StreamWaitValueStallsUntilGreaterOrEqual) {
  EXPECT_TRUE(rt_->SupportsStreamMemOps(0));
  EXPECT_FALSE(rt_->SupportsStreamMemOps(1));
  Stream s = NewStream(hipStreamNonBlocking);
  uint32_t* words = nullptr;
  ASSERT_EQ(rt_->HostMalloc(reinterpret_cast<void**>(&words), 64, 0), hipSuccess);
  memset(words, 0, 64);
  std::atomic<int> done{0};
  ASSERT_EQ(rt_->StreamWaitValue32(s, &words[0], 5), hipSuccess);
  ASSERT_EQ(rt_->LaunchHostFunc(s, Increment, &done), hipSuccess);
  ASSERT_EQ(rt_->StreamWriteValue32(s, &words[1], 0xfeed), hipSuccess);

  __atomic_store_n(&words[0], 4u, __ATOMIC_RELEASE);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(done.load(), 0);
  EXPECT_EQ(__atomic_load_n(&words[1], __ATOMIC_ACQUIRE), 0u);
  __atomic_store_n(&words[0], 6u, __ATOMIC_RELEASE);  // greater than 5 releases too
  ASSERT_TRUE(StreamDrains(*rt_, s));
  EXPECT_EQ(done.load(), 1);
  EXPECT_EQ(__atomic_load_n(&words[1], __ATOMIC_ACQUIRE), 0xfeedu);
  EXPECT_EQ(rt_->StreamDestroy(s), hipSuccess);
  EXPECT_EQ(rt_->HostFree(words), hipSuccess);
}

// Times this process's stream threads (named hf-cpu-stream) gave up the CPU of their own accord
// so far: each sleep between two looks at a waited-for word is one (/proc/self/task/*/status).
long StreamThreadSleeps() {
  long total = 0;
  for (const auto& [tid, name] : testing::ProcessThreads()) {
    if (name == "hf-cpu-stream")
      total += testing::ThreadStatusField(tid, "voluntary_ctxt_switches");
  }
  return total;
}

void StampNow(void* at) {
  static_cast<std::atomic<int64_t>*>(at)->store(
      std::chrono::steady_clock::now().time_since_epoch().count());
}

// A stream held for long by a word (as one waiting for a large write is) looks at it a few hundred
// times, not every 100 us (thousands of wake-ups that a small machine's disk I/O paid for), and is
// still let go soon after the word is stored.
TEST_F(CpuRuntimeTest, AStreamWaitingLongForAWordWakesRarelyAndGoesOnSoon) {
  Stream s = NewStream(hipStreamNonBlocking);
  uint32_t* words = nullptr;
  ASSERT_EQ(rt_->HostMalloc(reinterpret_cast<void**>(&words), 64, 0), hipSuccess);
  memset(words, 0, 64);
  std::atomic<int64_t> went_on{0};
  ASSERT_FALSE(testing::ProcessThreads().empty()) << "/proc/self/task is not readable";
  const long before = StreamThreadSleeps();
  ASSERT_EQ(rt_->StreamWaitValue32(s, &words[0], 1), hipSuccess);
  ASSERT_EQ(rt_->LaunchHostFunc(s, StampNow, &went_on), hipSuccess);

  std::this_thread::sleep_for(600ms);
  const long slept = StreamThreadSleeps() - before;
  // 600 ms at the old 100 us cap (150 us with the timer's slack): 3,882 looks measured; ~370 now.
  EXPECT_LT(slept, 1000) << "the waiting stream thread woke " << slept << " times in 600 ms";
  EXPECT_EQ(went_on.load(), 0);
  const auto stored = std::chrono::steady_clock::now();
  __atomic_store_n(&words[0], 1u, __ATOMIC_RELEASE);
  ASSERT_TRUE(StreamDrains(*rt_, s));
  const auto late =
      std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(went_on.load())) -
      stored;
  // A 32nd of the 600 ms waited (~19 ms) and the timer's slack; loose for a loaded machine.
  EXPECT_LT(late, 250ms) << "released "
                         << std::chrono::duration_cast<std::chrono::milliseconds>(late).count()
                         << " ms after the word was stored";
  EXPECT_EQ(rt_->StreamDestroy(s), hipSuccess);
  EXPECT_EQ(rt_->HostFree(words), hipSuccess);
}

TEST_F(CpuRuntimeTest, StreamMemOpsNeedAnAlignedTrackedWord) {
  uint32_t plain = 0;
  EXPECT_EQ(rt_->StreamWaitValue32(nullptr, nullptr, 1), hipErrorInvalidValue);
  EXPECT_EQ(rt_->StreamWriteValue32(nullptr, &plain, 1), hipErrorInvalidValue);  // untracked
  char* pinned = nullptr;
  ASSERT_EQ(rt_->HostMalloc(reinterpret_cast<void**>(&pinned), 8, 0), hipSuccess);
  EXPECT_EQ(rt_->StreamWriteValue32(nullptr, reinterpret_cast<uint32_t*>(pinned + 2), 1),
            hipErrorInvalidValue);  // misaligned
  EXPECT_EQ(rt_->StreamWriteValue32(nullptr, reinterpret_cast<uint32_t*>(pinned + 4), 1),
            hipSuccess);
  ASSERT_EQ(rt_->StreamSynchronize(nullptr), hipSuccess);
  uint32_t value = 0;
  memcpy(&value, pinned + 4, 4);
  EXPECT_EQ(value, 1u);
  // Registered memory works too.
  ASSERT_EQ(rt_->HostRegister(&plain, sizeof(plain), 0), hipSuccess);
  EXPECT_EQ(rt_->StreamWriteValue32(nullptr, &plain, 9), hipSuccess);
  ASSERT_EQ(rt_->StreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(plain, 9u);
  EXPECT_EQ(rt_->HostUnregister(&plain), hipSuccess);
  EXPECT_EQ(rt_->HostFree(pinned), hipSuccess);
}

TEST_F(CpuRuntimeTest, ConcurrentUseFromManyThreads) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 200;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Stream s = nullptr;
      if (rt_->StreamCreate(&s, t % 2 ? hipStreamNonBlocking : hipStreamDefault) != hipSuccess) {
        ++failures;
        return;
      }
      for (int r = 0; r < kRounds; ++r) {
        unsigned char* dev = nullptr;
        unsigned char out[128] = {};
        if (rt_->Malloc(reinterpret_cast<void**>(&dev), 128) != hipSuccess) ++failures;
        PointerInfo info;
        if (rt_->PointerGetInfo(dev + 64, &info) != hipSuccess || info.base != dev) ++failures;
        const auto value = static_cast<unsigned char>(t * 31 + r);
        rt_->MemsetAsync(dev, value, 128, s);
        rt_->MemcpyAsync(out, dev, 128, hipMemcpyDeviceToHost, s);
        if (rt_->StreamSynchronize(s) != hipSuccess || out[127] != value) ++failures;
        if (rt_->Free(dev) != hipSuccess) ++failures;
      }
      if (rt_->StreamDestroy(s) != hipSuccess) ++failures;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(CpuRuntimeShutdown, DestructorFinishesQueuedWorkAndFreesMemory) {
  std::atomic<int> done{0};
  {
    auto rt = CreateCpuRuntime();
    Stream s = nullptr;
    ASSERT_EQ(rt->StreamCreate(&s, 0), hipSuccess);
    void* dev = nullptr;
    ASSERT_EQ(rt->Malloc(&dev, 1 << 20), hipSuccess);  // leak sanitizer checks it is freed
    void* pinned = nullptr;
    ASSERT_EQ(rt->HostMalloc(&pinned, 1 << 20, 0), hipSuccess);
    ASSERT_EQ(rt->LaunchHostFunc(
                  s, [](void*) { std::this_thread::sleep_for(10ms); }, nullptr),
              hipSuccess);
    ASSERT_EQ(rt->LaunchHostFunc(s, Increment, &done), hipSuccess);
    ASSERT_EQ(rt->LaunchHostFunc(nullptr, Increment, &done), hipSuccess);
  }
  EXPECT_EQ(done.load(), 2);
}

// With hardware queues, a stream stalled on a value wait stalls the streams that share its queue
// (their later work, whatever it is), and only those: the hazard a GPU has with more streams
// than hardware queues.
TEST(CpuRuntimeHardwareQueues, AStalledStreamStallsOnlyTheStreamsSharingItsQueue) {
  for (const unsigned queues : {0u, 2u}) {
    SCOPED_TRACE(queues == 0 ? "independent streams" : "2 hardware queues");
    CpuRuntimeOptions options;
    options.hardware_queues = queues;
    auto rt = CreateCpuRuntime(options);
    uint32_t* words = nullptr;
    ASSERT_EQ(rt->HostMalloc(reinterpret_cast<void**>(&words), 64, 0), hipSuccess);
    memset(words, 0, 64);
    Stream s[4] = {};
    for (Stream& stream : s) ASSERT_EQ(rt->StreamCreate(&stream, hipStreamNonBlocking), hipSuccess);
    ASSERT_EQ(rt->StreamWaitValue32(s[0], &words[0], 1), hipSuccess);  // stalls (queue 0)
    for (int i = 1; i < 4; ++i) {
      ASSERT_EQ(rt->StreamWriteValue32(s[i], &words[i], 7), hipSuccess);
    }
    EXPECT_TRUE(StreamDrains(*rt, s[1]));  // queue 1
    EXPECT_TRUE(StreamDrains(*rt, s[3]));  // queue 1
    std::this_thread::sleep_for(20ms);
    if (queues == 0) {
      EXPECT_EQ(rt->StreamQuery(s[2]), hipSuccess);
      EXPECT_EQ(__atomic_load_n(&words[2], __ATOMIC_ACQUIRE), 7u);
    } else {
      EXPECT_EQ(rt->StreamQuery(s[2]), hipErrorNotReady) << "queue 0, behind stream 0's wait";
      EXPECT_EQ(__atomic_load_n(&words[2], __ATOMIC_ACQUIRE), 0u);
    }
    __atomic_store_n(&words[0], 1u, __ATOMIC_RELEASE);
    EXPECT_TRUE(StreamDrains(*rt, s[2]));
    EXPECT_EQ(__atomic_load_n(&words[2], __ATOMIC_ACQUIRE), 7u);
    for (Stream stream : s) EXPECT_EQ(rt->StreamDestroy(stream), hipSuccess);
    EXPECT_EQ(rt->HostFree(words), hipSuccess);
  }
}

// Several devices (CpuRuntimeOptions::devices): how many, named how, and what each one's streams
// order with.
TEST(CpuRuntimeDevices, CountIsClampedAndEachUuidEndsInItsHexDigit) {
  for (const auto& [asked, presented] : {std::pair{0u, 1}, std::pair{1u, 1}, std::pair{3u, 3},
                                         std::pair{16u, 16}, std::pair{17u, 16}}) {
    CpuRuntimeOptions options;
    options.devices = asked;
    auto rt = CreateCpuRuntime(options);
    int count = 0;
    ASSERT_EQ(rt->GetDeviceCount(&count), hipSuccess);
    EXPECT_EQ(count, presented) << asked << " asked";
    char uuid[16] = {};
    ASSERT_EQ(rt->GetDeviceUuid(count - 1, uuid), hipSuccess);
    EXPECT_EQ(std::string(uuid, 15), "hipfile-cpu-dev");
    EXPECT_EQ(uuid[15], "0123456789abcdef"[count - 1]);
    EXPECT_TRUE(rt->SupportsCopyTable(count - 1));
    EXPECT_FALSE(rt->SupportsCopyTable(count));
    EXPECT_FALSE(rt->SupportsStreamMemOps(count));
    int value = 0;
    EXPECT_EQ(rt->GetDeviceAttribute(count, hipDeviceAttributeWarpSize, &value),
              hipErrorInvalidDevice);
  }
}

// A thread remembers its device for the 8 newest runtimes it set one on; an older runtime's
// entry is the one reused, and a runtime made later never inherits a destroyed one's.
TEST(CpuRuntimeDevices, AThreadRemembersItsDeviceForItsNewestRuntimes) {
  std::thread([] {
    CpuRuntimeOptions options;
    options.devices = 2;
    std::vector<std::unique_ptr<GpuRuntime>> rts;
    for (int i = 0; i < 10; ++i) {
      rts.push_back(CreateCpuRuntime(options));
      ASSERT_EQ(rts.back()->SetDevice(1), hipSuccess);
    }
    for (int i = 0; i < 10; ++i) {
      int device = -1;
      ASSERT_EQ(rts[static_cast<size_t>(i)]->GetDevice(&device), hipSuccess);
      EXPECT_EQ(device, i < 2 ? 0 : 1) << "runtime " << i;
    }
    rts.clear();
    auto fresh = CreateCpuRuntime(options);
    int device = -1;
    ASSERT_EQ(fresh->GetDevice(&device), hipSuccess);
    EXPECT_EQ(device, 0);
  }).join();
}

// Pinned and registered host memory report the device current when they were made, as
// cuPointerGetAttribute's device ordinal does; plain host memory none.
TEST(CpuRuntimeDevices, HostMemoryRemembersItsDevice) {
  CpuRuntimeOptions options;
  options.devices = 2;
  auto rt = CreateCpuRuntime(options);
  ASSERT_EQ(rt->SetDevice(1), hipSuccess);
  void* pinned = nullptr;
  ASSERT_EQ(rt->HostMalloc(&pinned, 4096, 0), hipSuccess);
  std::vector<char> plain(4096);
  ASSERT_EQ(rt->HostRegister(plain.data(), plain.size(), 0), hipSuccess);
  void* managed = nullptr;
  ASSERT_EQ(rt->MallocManaged(&managed, 4096, hipMemAttachGlobal), hipSuccess);
  ASSERT_EQ(rt->SetDevice(0), hipSuccess);
  for (const void* p : {static_cast<const void*>(pinned), static_cast<const void*>(plain.data()),
                        static_cast<const void*>(managed)}) {
    PointerInfo info;
    ASSERT_EQ(rt->PointerGetInfo(p, &info), hipSuccess);
    EXPECT_EQ(info.device, 1);
  }
  int on_stack = 0;
  PointerInfo info;
  ASSERT_EQ(rt->PointerGetInfo(&on_stack, &info), hipSuccess);
  EXPECT_EQ(info.device, -1);
  EXPECT_EQ(rt->HostUnregister(plain.data()), hipSuccess);
  EXPECT_EQ(rt->HostFree(pinned), hipSuccess);
  EXPECT_EQ(rt->Free(managed), hipSuccess);
}

// Each device has its own legacy default stream: device 0's null stream does not wait for a
// blocking stream of device 1, and a synchronous copy on device 0 does not either.
TEST(CpuRuntimeDevices, EachDeviceHasItsOwnLegacyDefaultStream) {
  Gates gates;
  CpuRuntimeOptions options;
  options.devices = 2;
  auto rt = CreateCpuRuntime(options);
  ASSERT_EQ(rt->SetDevice(1), hipSuccess);
  Stream blocking1 = nullptr;
  ASSERT_EQ(rt->StreamCreate(&blocking1, 0), hipSuccess);
  Gate* gate = gates.New();
  ASSERT_EQ(rt->LaunchHostFunc(blocking1, Gate::Wait, gate), hipSuccess);
  // Device 1's null stream waits for it...
  std::atomic<int> on_null1{0};
  ASSERT_EQ(rt->LaunchHostFunc(nullptr, Increment, &on_null1), hipSuccess);
  ASSERT_EQ(rt->SetDevice(0), hipSuccess);
  // ...device 0's does not.
  std::atomic<int> on_null0{0};
  ASSERT_EQ(rt->LaunchHostFunc(nullptr, Increment, &on_null0), hipSuccess);
  EXPECT_TRUE(WaitUntil([&] { return on_null0.load() == 1; }));
  char a[64] = {1};
  char b[64] = {};
  EXPECT_EQ(rt->Memcpy(b, a, sizeof(a), hipMemcpyHostToHost), hipSuccess);
  EXPECT_EQ(rt->StreamSynchronize(nullptr), hipSuccess);
  std::this_thread::sleep_for(10ms);
  EXPECT_EQ(on_null1.load(), 0) << "device 1's null stream ran past its blocking stream";
  gate->Open();
  ASSERT_EQ(rt->SetDevice(1), hipSuccess);
  EXPECT_EQ(rt->StreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(on_null1.load(), 1);
  EXPECT_EQ(rt->StreamDestroy(blocking1), hipSuccess);
  gates.OpenAll();
}

// Hardware queues are per device, as each GPU has its own: a stall on device 0's only queue does
// not stall device 1's streams.
TEST(CpuRuntimeDevices, HardwareQueuesArePerDevice) {
  CpuRuntimeOptions options;
  options.devices = 2;
  options.hardware_queues = 1;
  auto rt = CreateCpuRuntime(options);
  uint32_t* words = nullptr;
  ASSERT_EQ(rt->HostMalloc(reinterpret_cast<void**>(&words), 64, 0), hipSuccess);
  memset(words, 0, 64);
  Stream stalled = nullptr;
  Stream behind = nullptr;
  ASSERT_EQ(rt->StreamCreate(&stalled, hipStreamNonBlocking), hipSuccess);
  ASSERT_EQ(rt->StreamCreate(&behind, hipStreamNonBlocking), hipSuccess);
  ASSERT_EQ(rt->SetDevice(1), hipSuccess);
  Stream other = nullptr;
  ASSERT_EQ(rt->StreamCreate(&other, hipStreamNonBlocking), hipSuccess);
  ASSERT_EQ(rt->StreamWaitValue32(stalled, &words[0], 1), hipSuccess);
  ASSERT_EQ(rt->StreamWriteValue32(behind, &words[1], 7), hipSuccess);
  ASSERT_EQ(rt->StreamWriteValue32(other, &words[2], 7), hipSuccess);
  EXPECT_TRUE(StreamDrains(*rt, other)) << "device 1's stream waited on device 0's queue";
  EXPECT_EQ(rt->StreamQuery(behind), hipErrorNotReady);
  __atomic_store_n(&words[0], 1u, __ATOMIC_RELEASE);
  EXPECT_TRUE(StreamDrains(*rt, behind));
  for (Stream s : {stalled, behind, other}) EXPECT_EQ(rt->StreamDestroy(s), hipSuccess);
  EXPECT_EQ(rt->HostFree(words), hipSuccess);
}

// Freeing memory waits for every device's queued work (a superset of a GPU's wait).
TEST(CpuRuntimeDevices, FreeWaitsForEveryDevice) {
  Gates gates;
  CpuRuntimeOptions options;
  options.devices = 2;
  options.driver_lock = false;
  auto rt = CreateCpuRuntime(options);
  ASSERT_EQ(rt->SetDevice(1), hipSuccess);
  Stream s1 = nullptr;
  ASSERT_EQ(rt->StreamCreate(&s1, hipStreamNonBlocking), hipSuccess);
  Gate* gate = gates.New();
  ASSERT_EQ(rt->LaunchHostFunc(s1, Gate::Wait, gate), hipSuccess);
  ASSERT_EQ(rt->SetDevice(0), hipSuccess);
  void* p = nullptr;
  ASSERT_EQ(rt->Malloc(&p, 4096), hipSuccess);
  std::atomic<bool> freed{false};
  std::thread freer([&] {
    EXPECT_EQ(rt->Free(p), hipSuccess);
    freed = true;
  });
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(freed.load());
  gate->Open();
  freer.join();
  EXPECT_TRUE(freed.load());
  EXPECT_EQ(rt->StreamDestroy(s1), hipSuccess);
}

// The staged mode: the same runtime, saying device memory is not host memory so that the library
// takes a GPU's data paths.
TEST(CpuRuntimeStaged, SaysDeviceMemoryIsNotHostMemory) {
  CpuRuntimeOptions options;
  options.device_memory_is_host_memory = false;
  auto rt = CreateCpuRuntime(options);
  EXPECT_STREQ(rt->Name(), "cpu-staged");
  EXPECT_FALSE(rt->DeviceMemoryIsHostMemory());
  EXPECT_TRUE(rt->SupportsCopyTable(0));
  EXPECT_TRUE(CreateCpuRuntime()->DeviceMemoryIsHostMemory());
}

// A copy table must lie in pinned host memory, as a GPU must reach it; a copy in it that the
// runtime refuses (past the end of an allocation) is skipped, the others are made.
TEST_F(CpuRuntimeTest, CopyTableNeedsPinnedMemoryAndSkipsRefusedCopies) {
  CopyTable plain;
  EXPECT_EQ(rt_->CopyTableAsync(&plain, 0, nullptr), hipErrorInvalidValue);
  void* dev = nullptr;
  ASSERT_EQ(rt_->Malloc(&dev, sizeof(CopyTable)), hipSuccess);
  EXPECT_EQ(rt_->CopyTableAsync(static_cast<CopyTable*>(dev), 0, nullptr), hipErrorInvalidValue);
  CopyTable* table = nullptr;
  ASSERT_EQ(rt_->HostMalloc(reinterpret_cast<void**>(&table), sizeof(CopyTable), 0), hipSuccess);
  char* small = nullptr;
  ASSERT_EQ(rt_->Malloc(reinterpret_cast<void**>(&small), 4096), hipSuccess);
  char src[64];
  memset(src, 'x', sizeof(src));
  memset(small, 0, 4096);
  table->count = 2;
  table->token = 3;
  table->copy[0] = {reinterpret_cast<uintptr_t>(small + 4090), reinterpret_cast<uintptr_t>(src),
                    64};  // runs past the allocation
  table->copy[1] = {reinterpret_cast<uintptr_t>(small), reinterpret_cast<uintptr_t>(src), 64};
  ASSERT_EQ(rt_->CopyTableAsync(table, 3, nullptr), hipSuccess);
  ASSERT_EQ(rt_->StreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(small[4090], 0);
  EXPECT_EQ(small[0], 'x');
  EXPECT_EQ(small[63], 'x');
  EXPECT_EQ(rt_->Free(small), hipSuccess);
  EXPECT_EQ(rt_->Free(dev), hipSuccess);
  EXPECT_EQ(rt_->HostFree(table), hipSuccess);
}

// A kernel reads on through registrations that follow one another, as a copy table's copy
// across adjacent page-cache windows does (engine/stream_staging.cc): made. One that runs from a
// registration past its end into memory the device cannot reach is refused.
TEST_F(CpuRuntimeTest, ACopyTablesCopyMayRunThroughAdjacentRegistrations) {
  constexpr size_t kHalf = 16384;
  std::vector<char> host(3 * kHalf + 4096);
  auto* base = reinterpret_cast<char*>(AlignUp(reinterpret_cast<uintptr_t>(host.data()), 4096));
  for (size_t i = 0; i < 3 * kHalf; ++i) base[i] = static_cast<char>(i * 7 + 1);
  ASSERT_EQ(rt_->HostRegister(base, kHalf, hipHostRegisterDefault), hipSuccess);
  ASSERT_EQ(rt_->HostRegister(base + kHalf, kHalf, hipHostRegisterDefault), hipSuccess);
  CopyTable* table = nullptr;
  ASSERT_EQ(rt_->HostMalloc(reinterpret_cast<void**>(&table), sizeof(CopyTable), 0), hipSuccess);
  char* dev = nullptr;
  ASSERT_EQ(rt_->Malloc(reinterpret_cast<void**>(&dev), 3 * kHalf), hipSuccess);
  memset(dev, 0, 3 * kHalf);
  const auto at = [](const void* p) {
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
  };
  table->count = 2;
  table->token = 4;
  table->copy[0] = {at(dev + 100), at(base + 100), 2 * kHalf - 200};    // through both
  table->copy[1] = {at(dev + 2 * kHalf), at(base + kHalf + 8), kHalf};  // past the second
  ASSERT_EQ(rt_->CopyTableAsync(table, 4, nullptr), hipSuccess);
  ASSERT_EQ(rt_->StreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(memcmp(dev + 100, base + 100, 2 * kHalf - 200), 0);
  EXPECT_EQ(dev[2 * kHalf], 0) << "a copy past the registrations was made";
  EXPECT_EQ(dev[3 * kHalf - 1], 0);
  EXPECT_EQ(rt_->Free(dev), hipSuccess);
  EXPECT_EQ(rt_->HostFree(table), hipSuccess);
  EXPECT_EQ(rt_->HostUnregister(base + kHalf), hipSuccess);
  EXPECT_EQ(rt_->HostUnregister(base), hipSuccess);
}

// Threads of this process (/proc/self/task).
size_t ProcessThreads() { return testing::ProcessThreads().size(); }

// A thread's per-thread stream is a stream (a thread here) of its own, and goes when the thread
// does: a program whose short-lived threads each use hipStreamPerThread does not gather threads.
TEST_F(CpuRuntimeTest, APerThreadStreamGoesWithItsThread) {
  // Counted after a first round, which starts what else a process keeps (a sanitizer's thread).
  size_t before = 0;
  for (int round = 0; round < 4; ++round) {
    std::vector<std::thread> threads;
    std::atomic<int> done{0};
    for (int i = 0; i < 8; ++i) {
      threads.emplace_back([&] {
        EXPECT_EQ(rt_->LaunchHostFunc(hipStreamPerThread, Increment, &done), hipSuccess);
        EXPECT_EQ(rt_->StreamSynchronize(hipStreamPerThread), hipSuccess);
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(done.load(), 8);
    if (round == 0) before = ProcessThreads();
    EXPECT_EQ(ProcessThreads(), before) << "round " << round;
  }
}

// Work a thread left queued on its per-thread stream still runs after it exits (as a stream
// destroyed with work queued), and the thread's stream of each device is its own.
TEST_F(CpuRuntimeTest, WorkLeftOnAPerThreadStreamRunsAfterItsThreadExits) {
  CpuRuntimeOptions options;
  options.devices = 2;
  rt_ = CreateCpuRuntime(options);
  std::atomic<int> done{0};
  Gate* gate = gates_.New();
  std::thread([&] {
    int device = -1;
    EXPECT_EQ(rt_->SetDevice(1), hipSuccess);
    EXPECT_EQ(rt_->StreamGetDevice(hipStreamPerThread, &device), hipSuccess);
    EXPECT_EQ(device, 1);
    EXPECT_EQ(rt_->LaunchHostFunc(hipStreamPerThread, Gate::Wait, gate), hipSuccess);
    EXPECT_EQ(rt_->LaunchHostFunc(hipStreamPerThread, Increment, &done), hipSuccess);
    // Device 0's per-thread stream is another stream: not held up by device 1's.
    EXPECT_EQ(rt_->SetDevice(0), hipSuccess);
    EXPECT_EQ(rt_->StreamGetDevice(hipStreamPerThread, &device), hipSuccess);
    EXPECT_EQ(device, 0);
    EXPECT_EQ(rt_->LaunchHostFunc(hipStreamPerThread, Increment, &done), hipSuccess);
    EXPECT_TRUE(StreamDrains(*rt_, hipStreamPerThread));
    EXPECT_EQ(done.load(), 1);
  }).join();
  std::this_thread::sleep_for(5ms);
  EXPECT_EQ(done.load(), 1);
  gate->Open();
  ASSERT_EQ(rt_->SetDevice(1), hipSuccess);
  EXPECT_TRUE(WaitUntil([&] { return done.load() == 2; }));
  EXPECT_EQ(rt_->DeviceSynchronize(), hipSuccess);
}

// A thread that outlives the runtime it used leaves its stream to the runtime's destructor, and
// one runtime's per-thread stream is not another's.
TEST(CpuRuntimePerThread, AThreadOutlivingTheRuntimeExitsCleanly) {
  std::promise<void> used, gone;
  std::shared_future<void> runtime_gone = gone.get_future().share();
  std::atomic<int> done{0};
  auto first = CreateCpuRuntime();
  auto second = CreateCpuRuntime();
  std::thread thread([&] {
    EXPECT_EQ(first->LaunchHostFunc(hipStreamPerThread, Increment, &done), hipSuccess);
    EXPECT_EQ(second->LaunchHostFunc(hipStreamPerThread, Increment, &done), hipSuccess);
    EXPECT_EQ(first->StreamSynchronize(hipStreamPerThread), hipSuccess);
    EXPECT_EQ(second->StreamSynchronize(hipStreamPerThread), hipSuccess);
    used.set_value();
    runtime_gone.wait();
    // The second runtime is still here: its stream still works.
    EXPECT_EQ(second->LaunchHostFunc(hipStreamPerThread, Increment, &done), hipSuccess);
    EXPECT_EQ(second->StreamSynchronize(hipStreamPerThread), hipSuccess);
  });
  used.get_future().wait();
  first.reset();
  gone.set_value();
  thread.join();  // exits with a stream of the second runtime and a forgotten one of the first
  EXPECT_EQ(done.load(), 3);
  Stream s = nullptr;
  EXPECT_EQ(second->StreamCreate(&s, hipStreamDefault), hipSuccess);
  EXPECT_EQ(second->StreamDestroy(s), hipSuccess);
}

TEST(CpuRuntimeShutdown, DestructorDoesNotHangOnAnUnreleasedValueWait) {
  std::atomic<int> done{0};
  uint32_t* word = nullptr;
  {
    auto rt = CreateCpuRuntime();
    ASSERT_EQ(rt->HostMalloc(reinterpret_cast<void**>(&word), 4, 0), hipSuccess);
    *word = 0;
    Stream s = nullptr;
    ASSERT_EQ(rt->StreamCreate(&s, hipStreamNonBlocking), hipSuccess);
    ASSERT_EQ(rt->StreamWaitValue32(s, word, 1), hipSuccess);
    ASSERT_EQ(rt->LaunchHostFunc(s, Increment, &done), hipSuccess);
    std::this_thread::sleep_for(5ms);
    EXPECT_EQ(rt->StreamQuery(s), hipErrorNotReady);
  }
  EXPECT_EQ(done.load(), 1);  // later work still ran once the wait gave up
}

}  // namespace
}  // namespace hipfile::runtime
