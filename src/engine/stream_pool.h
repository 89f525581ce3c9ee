// StreamPool: non-blocking streams per device for the engine's staging copies.
//
// Lifetime: streams are made on demand, reused, and destroyed by the destructor (none may be
// leased then). The pool does not cap their number; the engine takes a stream only while it
// holds a staging lease, so there are never more streams per device than staging buffers.
// Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "runtime/gpu_runtime.h"
#include "util/status.h"

namespace hipfile::engine {

class StreamPool {
 public:
  explicit StreamPool(runtime::GpuRuntime& gpu) : gpu_(gpu) {}
  ~StreamPool();
  StreamPool(const StreamPool&) = delete;
  StreamPool& operator=(const StreamPool&) = delete;

  // A free stream of `device`, made when none is free (the calling thread's current device is
  // restored afterwards). GPU failures come back as Status::Gpu.
  Result<runtime::Stream> Acquire(int device);
  // Gives a stream back; its work must be finished.
  void Release(int device, runtime::Stream stream);

 private:
  Status Create(int device, runtime::Stream* stream);

  runtime::GpuRuntime& gpu_;
  std::mutex mu_;
  std::map<int, std::vector<runtime::Stream>> free_;  // guarded by mu_
  std::vector<std::pair<int, runtime::Stream>> all_;  // guarded by mu_
};

}  // namespace hipfile::engine
