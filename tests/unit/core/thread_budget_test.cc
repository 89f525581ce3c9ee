// SPDX-License-Identifier: MIT
// The library's threads stay within the budget docs/architecture.md states: with
// ExecutionMaxIOThreads = N, N I/O threads (the engine's helpers and batch runs), N stream-ordered
// workers, the poller and the reaper - however much sync, stream-ordered and batch I/O run at
// once. (The CPU runtime's hf-cpu-stream threads stand in for the GPU and are not counted.)
#include <fcntl.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/batch/batch_manager.h"
#include "core_test_util.h"
#include "fakes/process_threads.h"

namespace hipfile::core {
namespace {

bool IsLibraryThread(const std::string& name) {
  return name.rfind("hf-", 0) == 0 && name.rfind("hf-cpu-stream", 0) != 0;
}

// Threads of this process whose name says they are the library's, the CPU runtime's aside. A
// new thread has its creator's name until it first runs and names itself, which on a busy
// machine can take a while: one of the CPU runtime's stream threads, just started by a library
// thread, would count twice. So a name counts once, and only when a second look finds it still
// given.
size_t LibraryThreads(std::string* names = nullptr) {
  const std::map<std::string, std::string> first = testing::ProcessThreads();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::map<std::string, std::string> second = testing::ProcessThreads();
  std::set<std::string> seen;
  for (const auto& [tid, name] : first) {
    const auto again = second.find(tid);
    if (!IsLibraryThread(name) || again == second.end() || again->second != name) continue;
    if (seen.insert(name).second && names != nullptr) *names += name + "/" + tid + " ";
  }
  return seen.size();
}

class ThreadBudgetTest : public CoreTest {
 protected:
  static constexpr size_t kBytes = size_t{24} << 20;  // three 8 MiB chunks: helpers wanted
};

TEST_F(ThreadBudgetTest, SyncStreamOrderedAndBatchIoTogetherStayWithinTheBudget) {
  constexpr size_t kThreads = 3;
  sys_.Set("HIPFILE_PAGE_CACHE", "off");
  ASSERT_TRUE(driver().SetParameterSizeT(hipFileParamExecutionMaxIOThreads, kThreads).ok());
  const std::string path = MakeFile("in.bin", kBytes);
  ScopedFd fd(path, O_RDONLY);
  Result<void*> handle = driver().RegisterHandle(fd.get());
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
  void* const fh = *handle;

  std::atomic<bool> stop{false};
  std::atomic<size_t> most{0};
  std::string most_names;  // the sampler's until it is joined
  std::thread sampler([&] {
    while (!stop.load()) {
      std::string names;
      const size_t now = LibraryThreads(&names);
      if (now > most.load()) {
        most = now;
        most_names = names;
      }
    }
  });
  std::vector<std::thread> load;
  for (int t = 0; t < 4; ++t) {  // synchronous multi-chunk reads
    void* device = DeviceAlloc(kBytes);
    load.emplace_back([&, device] {
      for (int i = 0; i < 4; ++i) {
        const Result<size_t> got = driver().Read(fh, device, kBytes, 0, 0);
        EXPECT_TRUE(got.ok() && *got == kBytes) << got.status().ToString();
      }
    });
  }
  for (int t = 0; t < 4; ++t) {  // stream-ordered reads, one stream each
    void* device = DeviceAlloc(kBytes);
    load.emplace_back([&, device] {
      runtime::Stream stream = nullptr;
      ASSERT_EQ(gpu_.StreamCreate(&stream, 0), hipSuccess);
      std::vector<ssize_t> bytes(4, -1);
      size_t size = kBytes;
      off_t zero = 0;
      for (ssize_t& b : bytes) {
        EXPECT_TRUE(
            driver()
                .SubmitAsync(IoDirection::kRead, fh, device, &size, &zero, &zero, &b, stream)
                .ok());
      }
      EXPECT_EQ(gpu_.StreamSynchronize(stream), hipSuccess);
      for (ssize_t b : bytes) EXPECT_EQ(b, static_cast<ssize_t>(kBytes));
      EXPECT_EQ(gpu_.StreamDestroy(stream), hipSuccess);
    });
  }
  BatchManager batches(driver());
  {
    Result<hipFileBatchHandle_t> batch = batches.SetUp(16);
    ASSERT_TRUE(batch.ok());
    void* device = DeviceAlloc(16 << 20);
    std::vector<hipFileIOParams_t> params(16);
    for (int i = 0; i < 16; ++i)
      params[i] = testing::BatchEntry(hipFileBatchRead, fh, device, 1 << 20, off_t{i} << 20,
                                      off_t{i} << 20);
    ASSERT_TRUE(batches.Submit(*batch, 16, params.data()).ok());
    std::vector<hipFileIOEvents_t> events(16);
    unsigned done = 0;
    while (done < 16) {
      unsigned nr = 16 - done;
      ASSERT_TRUE(batches.GetStatus(*batch, 1, &nr, events.data() + done, nullptr).ok());
      done += nr;
    }
    for (const hipFileIOEvents_t& e : events) EXPECT_EQ(e.ret, size_t{1} << 20);
    batches.Destroy(*batch);
  }
  for (std::thread& t : load) t.join();
  stop = true;
  sampler.join();

  EXPECT_EQ(driver().io_pool().running(), kThreads);
  EXPECT_EQ(driver().async_pool().running(), kThreads);
  const size_t budget = 2 * kThreads + 2;  // + the poller and the reaper
  EXPECT_LE(most.load(), budget) << most_names;
  EXPECT_EQ(LibraryThreads(), budget);
}

}  // namespace
}  // namespace hipfile::core
