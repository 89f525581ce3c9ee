// SPDX-License-Identifier: MIT
// Shared pieces of the core tests: a Driver over the CPU runtime (under a FaultRuntime) and a
// FaultSys whose environment the test sets.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/driver.h"
#include "fakes/batch_entry.h"
#include "fakes/fault_runtime.h"
#include "fakes/fault_sys.h"
#include "fakes/temp_dir.h"
#include "runtime/cpu/cpu_runtime.h"

namespace hipfile::core {

// A FaultSys with an environment of its own, and a page size a test may set.
class EnvSys : public testing::FaultSys {
 public:
  void Set(const std::string& name, const std::string& value) { env_[name] = value; }
  void Unset(const std::string& name) { env_.erase(name); }
  const char* Getenv(const char* name) override {
    const auto it = env_.find(name);
    return it == env_.end() ? nullptr : it->second.c_str();
  }
  // A machine of `bytes` pages (a multiple of the real page size), read by the Driver when it is
  // built: PageSize says so, and Mincore answers as such a kernel would.
  void SetPageSize(long bytes) { page_size_ = bytes; }
  long PageSize() override { return page_size_ > 0 ? page_size_ : testing::FaultSys::PageSize(); }
  // One byte per page of page_size_ (the real mincore writes one per real page), resident when
  // every real page of it is.
  Status Mincore(void* addr, size_t length, unsigned char* vec) override {
    const long real = testing::FaultSys::PageSize();
    if (page_size_ <= 0 || page_size_ == real) return testing::FaultSys::Mincore(addr, length, vec);
    const size_t ratio = static_cast<size_t>(page_size_ / real);
    const size_t real_pages = (length + static_cast<size_t>(real) - 1) / static_cast<size_t>(real);
    std::vector<unsigned char> real_vec(real_pages);
    const Status status = testing::FaultSys::Mincore(addr, length, real_vec.data());
    if (!status.ok()) return status;
    for (size_t page = 0; page * ratio < real_pages; ++page) {
      unsigned char resident = 1;
      for (size_t i = page * ratio; i < std::min(real_pages, (page + 1) * ratio); ++i) {
        resident &= real_vec[i] & 1;
      }
      vec[page] = resident;
    }
    return Status::Ok();
  }

 private:
  std::map<std::string, std::string> env_;
  long page_size_ = 0;
};

// An open descriptor, closed at the end of the scope.
class ScopedFd {
 public:
  ScopedFd() = default;
  ScopedFd(const std::string& path, int flags) : fd_(::open(path.c_str(), flags, 0644)) {
    EXPECT_GE(fd_, 0) << path;
  }
  explicit ScopedFd(int fd) : fd_(fd) {}
  ~ScopedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_ = -1;
};

// Whether fd is an open descriptor of this process.
inline bool FdIsOpen(int fd) { return ::fcntl(fd, F_GETFD) >= 0; }

class CoreTest : public ::testing::Test {
 protected:
  CoreTest() : cpu_(runtime::CreateCpuRuntime()), gpu_(*cpu_) {}

  // Built on first use so that tests can set the environment first.
  Driver& driver() {
    if (!driver_) driver_ = std::make_unique<Driver>(sys_, gpu_, ParseConfig(sys_));
    return *driver_;
  }

  // A file of `size` pattern bytes in the test's directory, opened with `flags`.
  std::string MakeFile(const std::string& name, size_t size) {
    const std::string path = dir_.File(name);
    testing::WriteFileOrDie(path, testing::PatternBytes(size));
    return path;
  }

  void* DeviceAlloc(size_t size) {
    void* p = nullptr;
    EXPECT_EQ(gpu_.Malloc(&p, size), hipSuccess);
    allocations_.push_back(p);
    return p;
  }
  void* ManagedAlloc(size_t size) {
    void* p = nullptr;
    EXPECT_EQ(gpu_.MallocManaged(&p, size, hipMemAttachGlobal), hipSuccess);
    allocations_.push_back(p);  // Free frees managed memory too
    return p;
  }
  void* HostAlloc(size_t size) {
    void* p = nullptr;
    EXPECT_EQ(gpu_.HostMalloc(&p, size, 0), hipSuccess);
    host_allocations_.push_back(p);
    return p;
  }

  ~CoreTest() override {
    driver_.reset();
    for (void* p : allocations_) (void)gpu_.Free(p);
    for (void* p : host_allocations_) (void)gpu_.HostFree(p);
  }

  testing::TempDir dir_;
  EnvSys sys_;
  std::unique_ptr<runtime::GpuRuntime> cpu_;
  testing::FaultRuntime gpu_;
  std::unique_ptr<Driver> driver_;
  std::vector<void*> allocations_;
  std::vector<void*> host_allocations_;
};

}  // namespace hipfile::core
