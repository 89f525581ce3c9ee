// SPDX-License-Identifier: MIT
// StreamPool: lanes for the engine's copies - a non-blocking stream per lane, and an event
// (blocking sync, no timing) to wait on it without spinning a core (engine/copy_wait.h); with
// words on (HIPFILE_COPY_WAIT=word), also a word of pinned host memory the stream writes once
// its copies are done, for a wait that polls memory instead of the driver.
//
// Lifetime: lanes are made on demand, reused, and destroyed by the destructor (none may be
// leased then). The pool does not cap their number; the engine takes a stream only while it
// holds a staging lease, so there are never more streams per device than staging buffers.
// Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "runtime/gpu_runtime.h"
#include "util/mutex.h"
#include "util/status.h"

namespace hipfile::engine {

struct Lane {
  runtime::Stream stream = nullptr;
  runtime::Event done = nullptr;
  // Null, or two words of pinned host memory: [0] the number the stream last wrote, [1] the last
  // number a wait asked it to write (only the lane's holder touches [1]).
  uint32_t* word = nullptr;
};

class StreamPool {
 public:
  // `words`: lanes of devices that support stream memory operations get a word.
  explicit StreamPool(runtime::GpuRuntime& gpu, bool words = false) : gpu_(gpu), words_(words) {}
  ~StreamPool();
  StreamPool(const StreamPool&) = delete;
  StreamPool& operator=(const StreamPool&) = delete;

  // A free lane of `device`, made when none is free (the calling thread's current device is
  // restored afterwards). GPU failures come back as Status::Gpu.
  Result<Lane> Acquire(int device);
  // Gives a lane back; its work must be finished.
  void Release(int device, Lane lane);

 private:
  Status Create(int device, Lane* lane);

  runtime::GpuRuntime& gpu_;
  const bool words_;
  Mutex mu_;
  std::map<int, std::vector<Lane>> free_ GUARDED_BY(mu_);
  std::vector<std::pair<int, Lane>> all_ GUARDED_BY(mu_);
};

}  // namespace hipfile::engine
