// SPDX-License-Identifier: MIT
// Shared pieces of the engine tests: a CPU runtime under a FaultRuntime, a FaultSys, files and
// device buffers.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/sync_io.h"
#include "fakes/fault_runtime.h"
#include "fakes/fault_sys.h"
#include "fakes/temp_dir.h"
#include "runtime/cpu/cpu_runtime.h"

namespace hipfile::engine {

inline constexpr size_t kTestChunk = 64 << 10;

// An open descriptor, closed at the end of the scope.
class ScopedFd {
 public:
  ScopedFd(const std::string& path, int flags)
      : fd_(::open(path.c_str(), flags | O_CLOEXEC, 0644)) {
    EXPECT_GE(fd_, 0) << path;
  }
  ~ScopedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  int get() const { return fd_; }
  IoFile file() const {
    IoFile f;
    f.buffered_fd = fd_;
    return f;
  }

 private:
  int fd_;
};

// Device memory (or pinned host memory) from the CPU runtime, freed at the end of the scope.
class GpuBuffer {
 public:
  GpuBuffer(runtime::GpuRuntime& gpu, size_t size, hipMemoryType type)
      : gpu_(gpu), size_(size), type_(type) {
    const size_t bytes = size == 0 ? 1 : size;
    const hipError_t e =
        type == hipMemoryTypeHost ? gpu.HostMalloc(&ptr_, bytes, 0) : gpu.Malloc(&ptr_, bytes);
    EXPECT_EQ(e, hipSuccess);
  }
  ~GpuBuffer() {
    if (type_ == hipMemoryTypeHost) {
      (void)gpu_.HostFree(ptr_);
    } else {
      (void)gpu_.Free(ptr_);
    }
  }
  GpuBuffer(const GpuBuffer&) = delete;
  GpuBuffer& operator=(const GpuBuffer&) = delete;

  char* data() const { return static_cast<char*>(ptr_); }
  IoMemory At(size_t offset) const {
    IoMemory m;
    m.ptr = data() + offset;
    m.type = type_;
    return m;
  }
  void Fill(int value) { ASSERT_EQ(gpu_.Memset(ptr_, value, size_), hipSuccess); }
  void Upload(size_t offset, const std::vector<unsigned char>& bytes) {
    ASSERT_EQ(gpu_.Memcpy(data() + offset, bytes.data(), bytes.size(), hipMemcpyHostToDevice),
              hipSuccess);
  }
  std::vector<unsigned char> Download() const {
    std::vector<unsigned char> out(size_);
    EXPECT_EQ(gpu_.Memcpy(out.data(), ptr_, size_, hipMemcpyDeviceToHost), hipSuccess);
    return out;
  }

 private:
  runtime::GpuRuntime& gpu_;
  size_t size_;
  hipMemoryType type_;
  void* ptr_ = nullptr;
};

class EngineTestBase : public ::testing::Test {
 protected:
  // io_threads 1 runs every chunk on the caller, in file order: fault tests that fail the n-th
  // call rely on it.
  static EngineOptions SmallOptions(size_t buffers = 4, size_t io_threads = 1) {
    EngineOptions options;
    options.chunk_bytes = kTestChunk;
    options.max_staging_bytes = buffers * kTestChunk;
    options.io_threads = io_threads;
    options.residency_min_bytes = kTestChunk;
    options.page_cache_min_bytes = 4096;
    options.page_cache_window_bytes = 2 * kTestChunk;
    // Most tests count or fail allocations during I/O; preallocation has its own test.
    options.preallocate_staging = false;
    return options;
  }

  std::unique_ptr<runtime::GpuRuntime> cpu_ = runtime::CreateCpuRuntime();
  testing::FaultRuntime gpu_{*cpu_};
  testing::FaultSys sys_;
  testing::TempDir dir_;
};

}  // namespace hipfile::engine
