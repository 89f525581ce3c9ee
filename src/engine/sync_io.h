// The synchronous data path: moves bytes between a file and GPU or pinned host memory.
//
// This is the simple, correct path of the foundation: buffered pread/pwrite through pinned
// staging buffers that are allocated once and reused, copied with the GPU runtime. The pipelined
// engine (page-cache zero-copy, O_DIRECT, io_uring) replaces its insides later; callers keep this
// interface.
//
// Result conventions (POSIX): the number of bytes moved; fewer than asked only at end of file
// (reads) or when an error stopped the transfer after some bytes had moved. An error before any
// byte moved is returned as the Status (errno kept intact, GPU errors as Status::Gpu). EINTR and
// EAGAIN are retried; short transfers are continued. A write is counted only once pwrite said
// its bytes reached the file.
#pragma once

#include <hip/hip_runtime_api.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "platform/sys.h"
#include "runtime/gpu_runtime.h"
#include "util/status.h"

namespace hipfile::engine {

// The descriptors of one registered file.
struct IoFile {
  int buffered_fd = -1;          // always valid; goes through the page cache
  int direct_fd = -1;            // an O_DIRECT descriptor, or -1
  uint32_t dio_mem_align = 0;    // O_DIRECT alignment of memory, 0 without direct_fd
  uint32_t dio_offset_align = 0; // O_DIRECT alignment of offsets and sizes, 0 without direct_fd
};

// The memory side of one transfer, already advanced by the caller's buffer offset.
struct IoMemory {
  void* ptr = nullptr;
  hipMemoryType type = hipMemoryTypeDevice;  // hipMemoryTypeDevice or hipMemoryTypeHost (pinned)
  int device = 0;                            // the device owning ptr
};

struct EngineOptions {
  size_t chunk_bytes = 8u << 20;        // size of one staging buffer
  size_t max_staging_bytes = 256u << 20;  // cap on pinned staging memory held by the pool
};

class SyncEngine {
 public:
  // sys and gpu must outlive the engine.
  SyncEngine(platform::Sys& sys, runtime::GpuRuntime& gpu, EngineOptions options);
  ~SyncEngine();
  SyncEngine(const SyncEngine&) = delete;
  SyncEngine& operator=(const SyncEngine&) = delete;

  // Reads up to `size` bytes at `offset` into memory.
  Result<size_t> Read(const IoFile& file, const IoMemory& memory, size_t size, off_t offset);
  // Writes `size` bytes at `offset` from memory.
  Result<size_t> Write(const IoFile& file, const IoMemory& memory, size_t size, off_t offset);

  const EngineOptions& options() const { return options_; }

 private:
  struct Impl;
  platform::Sys& sys_;
  runtime::GpuRuntime& gpu_;
  EngineOptions options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hipfile::engine
