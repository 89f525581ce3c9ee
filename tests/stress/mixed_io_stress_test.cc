// SPDX-License-Identifier: MIT
// Stress: for a bounded time (HIPFILE_STRESS_SECONDS, default 10) eight threads do mixed sync,
// stream-ordered and batch reads and writes through the C API on one shared registered file,
// each in a region of its own, with random sizes, offsets and buffer offsets; every byte read is
// checked against the thread's model of its region. Meanwhile another thread registers and
// deregisters extra buffers and file handles. Prints "stress bytes verified: N".
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "fakes/temp_dir.h"

namespace hipfile {
namespace {

constexpr int kThreads = 8;
constexpr size_t kRegion = 256 * 1024;  // each thread's part of the file
constexpr size_t kMaxIo = 64 * 1024;

bool Ok(hipFileError_t e) { return e.err == hipFileSuccess && e.hip_drv_err == hipSuccess; }

double StressSeconds() {
  const char* env = std::getenv("HIPFILE_STRESS_SECONDS");
  if (env == nullptr || *env == '\0') return 10.0;
  const double s = std::atof(env);
  return s > 0 ? s : 10.0;
}

struct Shared {
  hipFileHandle_t fh = nullptr;
  std::chrono::steady_clock::time_point deadline;
  std::atomic<bool> failed{false};
  std::atomic<uint64_t> bytes_verified{0};
  std::atomic<uint64_t> ops{0};
};

// One I/O thread: its region of the file, a device buffer, a stream and a batch of its own.
class Worker {
 public:
  Worker(Shared& shared, int index)
      : shared_(shared),
        index_(index),
        rng_(1000 + static_cast<unsigned>(index)),
        model_(testing::PatternBytes(kThreads * kRegion)) {
    model_.erase(model_.begin(), model_.begin() + static_cast<long>(index * kRegion));
    model_.resize(kRegion);
  }

  void Run() {
    if (!Check(hipMalloc(&dev_, kRegion) == hipSuccess, "hipMalloc")) return;
    // Half the threads register their buffer; the others use it unregistered.
    registered_ = index_ % 2 == 0;
    if (registered_ && !Check(Ok(hipFileBufRegister(dev_, kRegion, 0)), "hipFileBufRegister")) {
      return;
    }
    if (!Check(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking) == hipSuccess,
               "hipStreamCreate")) {
      return;
    }
    if (!Check(Ok(hipFileBatchIOSetUp(&batch_, 4)), "hipFileBatchIOSetUp")) return;
    while (!shared_.failed.load() && std::chrono::steady_clock::now() < shared_.deadline) {
      const int kind = static_cast<int>(rng_() % 6);
      if (!Step(kind)) break;
      shared_.ops.fetch_add(1);
    }
    // Whatever happened, a final full read must match the model.
    if (!shared_.failed.load()) VerifyAll();
    hipFileBatchIODestroy(batch_);
    (void)hipStreamDestroy(stream_);
    if (registered_) Check(Ok(hipFileBufDeregister(dev_)), "hipFileBufDeregister");
    (void)hipFree(dev_);
  }

 private:
  bool Check(bool condition, const std::string& what) {
    if (!condition) {
      ADD_FAILURE() << "thread " << index_ << ": " << what;
      shared_.failed.store(true);
    }
    return condition;
  }

  // A random range inside the region: [offset, offset + size) of the file region and
  // [buffer_offset, buffer_offset + size) of the device buffer.
  void Pick(size_t* offset, size_t* size, size_t* buffer_offset) {
    *size = 1 + rng_() % kMaxIo;
    // Now and then an aligned request, which may take the O_DIRECT path.
    if (rng_() % 4 == 0) *size = std::max<size_t>(4096, *size & ~size_t{4095});
    *offset = rng_() % (kRegion - *size + 1);
    if (rng_() % 4 == 0) *offset &= ~size_t{4095};
    *buffer_offset = rng_() % (kRegion - *size + 1);
    if (rng_() % 4 == 0) *buffer_offset &= ~size_t{4095};
  }

  hoff_t FileOffset(size_t offset) const { return static_cast<hoff_t>(index_ * kRegion + offset); }

  bool Fill(size_t buffer_offset, size_t size, std::vector<unsigned char>* data) {
    data->resize(size);
    for (auto& b : *data) b = static_cast<unsigned char>(rng_());
    return Check(hipMemcpy(static_cast<char*>(dev_) + buffer_offset, data->data(), size,
                           hipMemcpyHostToDevice) == hipSuccess,
                 "hipMemcpy to device");
  }

  bool Verify(size_t offset, size_t size, size_t buffer_offset) {
    std::vector<unsigned char> got(size);
    if (!Check(hipMemcpy(got.data(), static_cast<char*>(dev_) + buffer_offset, size,
                         hipMemcpyDeviceToHost) == hipSuccess,
               "hipMemcpy to host")) {
      return false;
    }
    const bool same =
        std::equal(got.begin(), got.end(), model_.begin() + static_cast<long>(offset));
    if (same) shared_.bytes_verified.fetch_add(size);
    return Check(same, "data read at region offset " + std::to_string(offset) + " size " +
                           std::to_string(size) + " differs from the model");
  }

  void Commit(size_t offset, const std::vector<unsigned char>& data) {
    std::copy(data.begin(), data.end(), model_.begin() + static_cast<long>(offset));
  }

  bool Step(int kind) {
    size_t offset, size, buffer_offset;
    Pick(&offset, &size, &buffer_offset);
    const bool write = kind % 2 == 1;
    std::vector<unsigned char> data;
    if (write && !Fill(buffer_offset, size, &data)) return false;
    switch (kind / 2) {
      case 0: {  // synchronous
        const ssize_t n = write ? hipFileWrite(shared_.fh, dev_, size, FileOffset(offset),
                                               static_cast<hoff_t>(buffer_offset))
                                : hipFileRead(shared_.fh, dev_, size, FileOffset(offset),
                                              static_cast<hoff_t>(buffer_offset));
        if (!Check(n == static_cast<ssize_t>(size),
                   std::string(write ? "hipFileWrite" : "hipFileRead") + " returned " +
                       std::to_string(n))) {
          return false;
        }
        break;
      }
      case 1: {  // stream-ordered
        size_t s = size;
        hoff_t fo = FileOffset(offset), bo = static_cast<hoff_t>(buffer_offset);
        ssize_t n = -12345;
        const hipFileError_t e =
            write ? hipFileWriteAsync(shared_.fh, dev_, &s, &fo, &bo, &n, stream_)
                  : hipFileReadAsync(shared_.fh, dev_, &s, &fo, &bo, &n, stream_);
        if (!Check(Ok(e), "async submit")) return false;
        if (!Check(hipStreamSynchronize(stream_) == hipSuccess, "hipStreamSynchronize")) {
          return false;
        }
        if (!Check(n == static_cast<ssize_t>(size), "async result " + std::to_string(n))) {
          return false;
        }
        break;
      }
      case 2: {  // batch: the range split into two entries
        const size_t first = size / 2;
        hipFileIOParams_t params[2] = {};
        unsigned count = 0;
        for (const auto& [off, len] : {std::pair<size_t, size_t>{0, first},
                                       std::pair<size_t, size_t>{first, size - first}}) {
          if (len == 0) continue;
          hipFileIOParams_t& p = params[count++];
          p.mode = hipFileBatch;
          p.opcode = write ? hipFileBatchWrite : hipFileBatchRead;
          p.fh = shared_.fh;
          p.u.batch.devPtr_base = dev_;
          p.u.batch.devPtr_offset = static_cast<int64_t>(buffer_offset + off);
          p.u.batch.file_offset = FileOffset(offset + off);
          p.u.batch.size = len;
          p.cookie = reinterpret_cast<void*>(uintptr_t{len});
        }
        if (!Check(Ok(hipFileBatchIOSubmit(batch_, count, params, 0)), "batch submit")) {
          return false;
        }
        unsigned got = 0;
        while (got < count) {
          hipFileIOEvents_t events[2];
          unsigned nr = count - got;
          if (!Check(Ok(hipFileBatchIOGetStatus(batch_, 1, &nr, events, nullptr)),
                     "batch status")) {
            return false;
          }
          for (unsigned i = 0; i < nr; ++i) {
            if (!Check(events[i].status == hipFileComplete &&
                           events[i].ret == reinterpret_cast<uintptr_t>(events[i].cookie),
                       "batch entry status " + std::to_string(events[i].status) + " ret " +
                           std::to_string(static_cast<ssize_t>(events[i].ret)))) {
              return false;
            }
          }
          got += nr;
        }
        break;
      }
    }
    if (write) {
      Commit(offset, data);
      return true;
    }
    return Verify(offset, size, buffer_offset);
  }

  void VerifyAll() {
    const ssize_t n = hipFileRead(shared_.fh, dev_, kRegion, FileOffset(0), 0);
    if (Check(n == static_cast<ssize_t>(kRegion), "final read " + std::to_string(n))) {
      Verify(0, kRegion, 0);
    }
  }

  Shared& shared_;
  const int index_;
  std::mt19937_64 rng_;
  std::vector<unsigned char> model_;
  void* dev_ = nullptr;
  bool registered_ = false;
  hipStream_t stream_ = nullptr;
  hipFileBatchHandle_t batch_ = nullptr;
};

// Registers and deregisters extra buffers and handles (on the shared file through descriptors
// of its own, and on a file of its own, read once per round) while the workers run.
void Churn(Shared& shared, const testing::TempDir& dir, const std::string& shared_path,
           uint64_t* rounds) {
  const std::string own = dir.File("churn");
  testing::WriteFileOrDie(own, testing::PatternBytes(8192, 5));
  std::mt19937 rng(77);
  while (!shared.failed.load() && std::chrono::steady_clock::now() < shared.deadline) {
    const size_t size = 8192 + rng() % 65536;  // room for the 8 KiB read below
    void* dev = nullptr;
    void* host = nullptr;
    std::string failed_step;
    auto step = [&](bool ok, const char* what) {
      if (!ok && failed_step.empty()) failed_step = what;
      return ok && failed_step.empty();
    };
    if (step(hipMalloc(&dev, size) == hipSuccess, "hipMalloc") &&
        step(hipHostMalloc(&host, size, 0) == hipSuccess, "hipHostMalloc")) {
      step(Ok(hipFileBufRegister(dev, size, 0)), "hipFileBufRegister(device)");
      step(Ok(hipFileBufRegister(host, size, 0)), "hipFileBufRegister(host)");
    }
    const int fd_shared = ::open(shared_path.c_str(), O_RDONLY);
    const int fd_own = ::open(own.c_str(), O_RDWR);
    hipFileHandle_t h1 = nullptr, h2 = nullptr;
    hipFileDescr_t d = {};
    d.type = hipFileHandleTypeOpaqueFD;
    d.handle.fd = fd_shared;
    step(Ok(hipFileHandleRegister(&h1, &d)), "hipFileHandleRegister(shared file)");
    d.handle.fd = fd_own;
    step(Ok(hipFileHandleRegister(&h2, &d)), "hipFileHandleRegister(own file)");
    if (failed_step.empty()) {
      const ssize_t n = hipFileRead(h2, host, 8192, 0, 0);
      step(n == 8192 && std::equal(static_cast<unsigned char*>(host),
                                   static_cast<unsigned char*>(host) + 8192,
                                   testing::PatternBytes(8192, 5).begin()),
           "read through the churned handle");
    }
    if (h1 != nullptr) hipFileHandleDeregister(h1);
    if (h2 != nullptr) hipFileHandleDeregister(h2);
    if (dev != nullptr) step(Ok(hipFileBufDeregister(dev)), "hipFileBufDeregister(device)");
    if (host != nullptr) step(Ok(hipFileBufDeregister(host)), "hipFileBufDeregister(host)");
    ::close(fd_shared);
    ::close(fd_own);
    (void)hipFree(dev);
    (void)hipHostFree(host);
    if (!failed_step.empty()) {
      ADD_FAILURE() << "registration churn, round " << *rounds << ": " << failed_step;
      shared.failed.store(true);
      return;
    }
    ++*rounds;
  }
}

TEST(MixedIoStress, EveryByteVerified) {
  testing::TempDir dir;
  const std::string path = dir.File("shared");
  testing::WriteFileOrDie(path, testing::PatternBytes(kThreads * kRegion));
  ASSERT_TRUE(Ok(hipFileDriverOpen()));
  const int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  Shared shared;
  hipFileDescr_t descr = {};
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = fd;
  ASSERT_TRUE(Ok(hipFileHandleRegister(&shared.fh, &descr)));

  const double seconds = StressSeconds();
  shared.deadline = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  std::vector<std::unique_ptr<Worker>> workers;
  for (int i = 0; i < kThreads; ++i) workers.push_back(std::make_unique<Worker>(shared, i));
  std::vector<std::thread> threads;
  for (auto& w : workers) threads.emplace_back([&w] { w->Run(); });
  uint64_t churn_rounds = 0;
  threads.emplace_back([&] { Churn(shared, dir, path, &churn_rounds); });
  for (auto& t : threads) t.join();

  hipFileHandleDeregister(shared.fh);
  ::close(fd);
  EXPECT_TRUE(Ok(hipFileDriverClose()));
  EXPECT_GT(shared.ops.load(), static_cast<uint64_t>(kThreads)) << "too few operations ran";
  EXPECT_GT(churn_rounds, 0u);
  std::printf("stress: %.1f s, %llu operations, %llu registration rounds\n", seconds,
              static_cast<unsigned long long>(shared.ops.load()),
              static_cast<unsigned long long>(churn_rounds));
  std::printf("stress bytes verified: %llu\n",
              static_cast<unsigned long long>(shared.bytes_verified.load()));
}

}  // namespace
}  // namespace hipfile
