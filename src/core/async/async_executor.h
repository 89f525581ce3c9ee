// AsyncExecutor: runs stream-ordered operations without host callbacks.
//
// Each stream that carries operations gets a channel: two 32-bit words in pinned host memory,
// `reached` and `done`. Submitting operation n on a stream enqueues, on that stream,
//   write reached = n;  wait until done >= n
// (GpuRuntime stream memory operations), and queues the operation on the channel. A poller
// thread watches the `reached` words; when a stream gets to operation n, the poller hands it to a
// worker, which binds the parameters, moves the bytes, publishes *bytes_p and then stores
// done = n, releasing the stream. So an operation starts after all earlier work on its stream,
// later work waits for it, and nothing is serialized across streams: every stream has its own
// words, and any number of operations from different streams run on the workers at once.
//
// Where the device cannot do stream memory operations, a host function stands in for the wait
// (it hands the operation to a worker and blocks until it is done); the driver may run such
// functions on one thread, so that fallback serializes streams and is logged once.
//
// No call that CUDA treats as an implicit synchronization (pinning or freeing memory) is made
// while operations may be in flight: such a call waits for streams that are waiting for the
// executor. So the channel words come from one slab pinned at construction (kMaxChannels
// streams per executor), and stream memory operation support is probed for every device then.
//
// A finished operation is destroyed only after its stream was released, and on a reaper thread:
// it may hold the last reference to an engine, whose destructor frees pinned memory - which waits
// for every stream, this one included.
//
// Lifetime: the executor lives until process exit. Deregistering a stream forgets its flags but
// keeps its channel serving operations already submitted, so deregistering with work in flight
// neither blocks nor loses the work.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/async/async_op.h"
#include "core/async/worker_pool.h"
#include "runtime/gpu_runtime.h"
#include "util/status.h"

namespace hipfile::core {

class AsyncExecutor {
 public:
  // Streams that can carry operations over the executor's life; one more is refused with
  // hipFileInternalError (logged).
  static constexpr size_t kMaxChannels = 4096;

  AsyncExecutor(runtime::GpuRuntime& gpu, unsigned workers);
  ~AsyncExecutor();  // waits for submitted operations, then stops its threads
  AsyncExecutor(const AsyncExecutor&) = delete;
  AsyncExecutor& operator=(const AsyncExecutor&) = delete;

  // hipFileInvalidValue when the stream is already registered.
  Status RegisterStream(runtime::Stream stream, unsigned flags);
  // hipFileInvalidValue when the stream is not registered.
  Status DeregisterStream(runtime::Stream stream);
  // Forgets every registration (driver close). Operations in flight still complete.
  void ForgetRegistrations();
  // The HIPFILE_STREAM_* flags of a registered stream; 0 for any other stream.
  unsigned StreamFlags(runtime::Stream stream);

  // Enqueues `op` on `stream`. On error nothing was enqueued that will run it.
  Status Submit(runtime::Stream stream, std::unique_ptr<AsyncOp> op);

  // Operations submitted and not yet completed. An operation counts as completed a moment after
  // its stream was released, so a stream synchronized may still show here briefly.
  size_t Outstanding();
  // Blocks until Outstanding() is 0.
  void WaitIdle();
  // Runs `fn` with no operation outstanding and none submitted until it returns; false, without
  // running it, while operations are outstanding. For calls that wait for every stream
  // (unpinning memory): no stream can then be waiting for this executor.
  bool RunIfIdle(const std::function<void()>& fn);

 private:
  struct Channel;
  struct Ready;

  Result<Channel*> ChannelFor(runtime::Stream stream);  // mutex_ held
  void PollLoop();
  void Complete(Channel* channel, uint32_t seq, std::unique_ptr<AsyncOp> op);
  static void HostFnTrampoline(void* arg);

  runtime::GpuRuntime& gpu_;
  std::unique_ptr<WorkerPool> workers_;  // reset before the members its tasks use
  std::unique_ptr<WorkerPool> reaper_;   // one thread: destroys finished operations

  std::mutex mutex_;
  std::condition_variable wake_poller_;
  std::condition_variable idle_;
  std::map<runtime::Stream, std::unique_ptr<Channel>> channels_;
  std::map<runtime::Stream, unsigned> registered_;
  uint32_t* slab_ = nullptr;   // kMaxChannels channels of kWordsPerChannel words, pinned
  size_t slab_used_ = 0;       // channels handed out
  std::vector<char> mem_ops_;  // per device: 1 when stream memory operations work
  size_t queued_ = 0;          // submitted, waiting for their stream to reach them
  size_t outstanding_ = 0;     // submitted, not completed
  bool stopping_ = false;
  bool warned_host_fn_fallback_ = false;
  std::thread poller_;
};

}  // namespace hipfile::core
