// SPDX-License-Identifier: MIT
// CpuRuntime: streams, the legacy default stream's ordering, host functions and stream memory
// operations.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>

#include "runtime/cpu/cpu_runtime_impl.h"
#include "runtime/cpu/per_thread_streams.h"

namespace hipfile::runtime::cpu {
namespace {

// Polls *addr until it is >= value, compared cyclically as CUDA's GEQ wait does
// ((int32_t)(*addr - value) >= 0, so 0 is past 0xffffffff), sleeping between looks: a GPU polls
// too, and the writer is usually another thread that gets there soon. The sleep is a 32nd of the
// time waited so far (1 us to kMaxSleep): a wait for a short operation looks often, one held
// behind a long one (a stream waiting for a 256 MiB write) looks a few hundred times a second
// instead of every 100 us, and is still released within about 3% of the time it waited. Until
// 2026-12-06 the sleep doubled from 1 us to at most 100 us: each stream waiting for a write woke
// thousands of times a second, which on a 2-core VM took the CPU from the disk's I/O
// (stream-ordered writes of 1 GiB ran at 0.70-0.78x the synchronous path; docs/async.md).
// Gives up when the runtime shuts down, so that its workers can be joined.
void WaitAtLeast(const uint32_t* addr, uint32_t value, const std::atomic<bool>& shutting_down) {
  using std::chrono::microseconds;
  constexpr microseconds kMinSleep(1), kMaxSleep(2000);
  const auto start = std::chrono::steady_clock::now();
  // Acquire: what the writer stored before releasing the value is visible to later work.
  while (static_cast<int32_t>(__atomic_load_n(addr, __ATOMIC_ACQUIRE) - value) < 0) {
    if (shutting_down.load(std::memory_order_relaxed)) return;
    const auto waited =
        std::chrono::duration_cast<microseconds>(std::chrono::steady_clock::now() - start);
    std::this_thread::sleep_for(std::clamp(waited / 32, kMinSleep, kMaxSleep));
  }
}

}  // namespace

void CpuRuntime::EnsureNullStream(int device) {
  {
    ReaderLock lock(streams_mu_);
    if (null_streams_[static_cast<size_t>(device)]) return;
  }
  // Made outside the lock (a thread starts), kept only by the first thread to get there.
  auto worker = std::make_unique<StreamWorker>(hipStreamDefault, NextQueue(device), device);
  WriterLock lock(streams_mu_);
  std::unique_ptr<StreamWorker>& slot = null_streams_[static_cast<size_t>(device)];
  if (!slot) slot = std::move(worker);
}

hipError_t CpuRuntime::Resolve(Stream* stream) {
  if (!IsPerThreadStream(*stream)) return hipSuccess;
  const int device = CurrentDevice();
  if (Stream own = per_thread::Find(id_, device)) {
    *stream = own;
    return hipSuccess;
  }
  Stream made = nullptr;
  if (const hipError_t e = StreamCreate(&made, hipStreamDefault); e != hipSuccess) return e;
  if (!per_thread::Remember(id_, device, made)) {
    (void)StreamDestroy(made);
    return hipErrorOutOfMemory;
  }
  *stream = made;
  return hipSuccess;
}

StreamWorker* CpuRuntime::FindLocked(Stream stream) const {
  if (!stream) return null_streams_[static_cast<size_t>(CurrentDevice())].get();
  auto it = streams_.find(stream);
  return it == streams_.end() ? nullptr : it->second.get();
}

hipError_t CpuRuntime::DeviceOf(Stream stream, int* device) {
  if (const hipError_t e = Resolve(&stream); e != hipSuccess) return e;
  if (!stream) {
    *device = CurrentDevice();
    return hipSuccess;
  }
  ReaderLock lock(streams_mu_);
  const StreamWorker* worker = FindLocked(stream);
  if (!worker) return hipErrorInvalidHandle;
  *device = worker->device();
  return hipSuccess;
}

// HIP's legacy default stream, per device: each device's null stream orders with that device's
// blocking streams only, as each GPU has a legacy default stream of its own.
void CpuRuntime::AddLegacyWaitsLocked(const StreamWorker& worker,
                                      std::vector<SyncPoint>* waits) const {
  auto add_if_pending = [waits](const StreamWorker& other) {
    SyncPoint last = other.Last();
    if (!last.Reached()) waits->push_back(std::move(last));
  };
  const int device = worker.device();
  const StreamWorker* null_stream = null_streams_[static_cast<size_t>(device)].get();
  auto blocking_here = [device](const StreamWorker& other) {
    return other.device() == device && !(other.flags() & hipStreamNonBlocking);
  };
  if (&worker == null_stream) {
    // Null-stream work waits for earlier work on every blocking stream of its device...
    for (const auto& [handle, other] : streams_) {
      if (blocking_here(*other)) add_if_pending(*other);
    }
    for (const auto& other : retired_) {
      if (blocking_here(*other)) add_if_pending(*other);
    }
  } else if (!(worker.flags() & hipStreamNonBlocking) && null_stream) {
    // ...and a blocking stream's work waits for earlier null-stream work of its device.
    add_if_pending(*null_stream);
  }
}

std::vector<SyncPoint> CpuRuntime::LegacyBarrier(int device) {
  std::vector<SyncPoint> waits;
  ReaderLock lock(streams_mu_);
  const StreamWorker* null_stream = null_streams_[static_cast<size_t>(device)].get();
  if (!null_stream) {
    // Nothing ever went on the device's null stream; its blocking streams still order with it.
    for (const auto& [handle, other] : streams_) {
      if (other->device() == device && !(other->flags() & hipStreamNonBlocking)) {
        waits.push_back(other->Last());
      }
    }
    for (const auto& other : retired_) {
      if (other->device() == device && !(other->flags() & hipStreamNonBlocking)) {
        waits.push_back(other->Last());
      }
    }
    return waits;
  }
  waits.push_back(null_stream->Last());
  AddLegacyWaitsLocked(*null_stream, &waits);
  return waits;
}

hipError_t CpuRuntime::Enqueue(Stream stream, std::vector<SyncPoint> waits,
                               std::function<void()> task, SyncPoint* point) {
  if (!stream) EnsureNullStream(CurrentDevice());
  if (const hipError_t e = Resolve(&stream); e != hipSuccess) return e;
  ReaderLock lock(streams_mu_);
  StreamWorker* worker = FindLocked(stream);
  if (!worker) return hipErrorInvalidHandle;
  // The waits are taken before the task is numbered, so a task only ever waits for work
  // submitted before it: the waits cannot form a cycle.
  AddLegacyWaitsLocked(*worker, &waits);
  SyncPoint submitted;
  if (hardware_queues_ == 0) {
    submitted = worker->Submit(std::move(waits), std::move(task));
  } else {
    // After everything queued before it on the stream's hardware queue, by any stream of its
    // device.
    MutexLock queue_lock(queues_mu_);
    SyncPoint& last =
        queue_last_[static_cast<size_t>(worker->device()) * hardware_queues_ + worker->queue()];
    if (!last.Reached()) waits.push_back(last);
    submitted = worker->Submit(std::move(waits), std::move(task));
    last = submitted;
  }
  if (point) *point = std::move(submitted);
  return hipSuccess;
}

unsigned CpuRuntime::NextQueue(int device) {
  if (hardware_queues_ == 0) return 0;
  MutexLock lock(queues_mu_);
  return next_queue_[static_cast<size_t>(device)]++ % hardware_queues_;
}

void CpuRuntime::ReapRetiredLocked() {
  retired_.erase(std::remove_if(retired_.begin(), retired_.end(),
                                [](const auto& worker) { return worker->Finished(); }),
                 retired_.end());
}

// The current device's streams only, as on a GPU.
hipError_t CpuRuntime::DeviceSynchronize() {
  const int device = CurrentDevice();
  std::vector<SyncPoint> waits;
  {
    ReaderLock lock(streams_mu_);
    if (const StreamWorker* null_stream = null_streams_[static_cast<size_t>(device)].get()) {
      waits.push_back(null_stream->Last());
    }
    for (const auto& [handle, worker] : streams_) {
      if (worker->device() == device) waits.push_back(worker->Last());
    }
    for (const auto& worker : retired_) {
      if (worker->device() == device) waits.push_back(worker->Last());
    }
  }
  for (const SyncPoint& point : waits) point.Wait();
  return hipSuccess;
}

void CpuRuntime::SynchronizeAll() {
  std::vector<SyncPoint> waits;
  {
    ReaderLock lock(streams_mu_);
    for (const auto& worker : null_streams_) {
      if (worker) waits.push_back(worker->Last());
    }
    for (const auto& [handle, worker] : streams_) waits.push_back(worker->Last());
    for (const auto& worker : retired_) waits.push_back(worker->Last());
  }
  for (const SyncPoint& point : waits) point.Wait();
}

hipError_t CpuRuntime::StreamCreate(Stream* stream, unsigned flags) {
  if (!stream) return hipErrorInvalidValue;
  if (flags & ~static_cast<unsigned>(hipStreamNonBlocking)) return hipErrorInvalidValue;
  // A stream is a thread here: one the system refuses (a process limit) or memory that runs out
  // is hipErrorOutOfMemory, as a GPU runtime says when it cannot make a stream.
  std::unique_ptr<StreamWorker> worker;
  try {
    const int device = CurrentDevice();
    worker = std::make_unique<StreamWorker>(flags, NextQueue(device), device);
  } catch (const std::exception&) {
    return hipErrorOutOfMemory;
  }
  const auto handle = reinterpret_cast<Stream>(NewHandle());
  WriterLock lock(streams_mu_);
  ReapRetiredLocked();
  streams_.emplace(handle, std::move(worker));
  *stream = handle;
  return hipSuccess;
}

hipError_t CpuRuntime::StreamDestroy(Stream stream) {
  // Neither default stream is the caller's to destroy.
  if (!stream || IsPerThreadStream(stream)) return hipErrorInvalidHandle;
  std::unique_ptr<StreamWorker> idle;
  {
    WriterLock lock(streams_mu_);
    auto it = streams_.find(stream);
    if (it == streams_.end()) return hipErrorInvalidHandle;
    // As CUDA: returns at once; queued work still runs, then the worker is joined by a later
    // StreamCreate / StreamDestroy or by the destructor. An idle worker is joined now, so a
    // program whose last stream call is a destroy leaves no thread behind.
    it->second->Close();
    if (it->second->Last().Reached()) {
      idle = std::move(it->second);
    } else {
      retired_.push_back(std::move(it->second));
    }
    streams_.erase(it);
    ReapRetiredLocked();
  }
  idle.reset();  // joins outside the lock: the thread exits as soon as it sees Close
  return hipSuccess;
}

hipError_t CpuRuntime::StreamSynchronize(Stream stream) {
  if (const hipError_t e = Resolve(&stream); e != hipSuccess) return e;
  if (!stream) {
    for (const SyncPoint& point : LegacyBarrier(CurrentDevice())) point.Wait();
    return hipSuccess;
  }
  SyncPoint last;
  {
    ReaderLock lock(streams_mu_);
    StreamWorker* worker = FindLocked(stream);
    if (!worker) return hipErrorInvalidHandle;
    last = worker->Last();
  }
  last.Wait();
  return hipSuccess;
}

hipError_t CpuRuntime::StreamQuery(Stream stream) {
  if (const hipError_t e = Resolve(&stream); e != hipSuccess) return e;
  if (!stream) {
    for (const SyncPoint& point : LegacyBarrier(CurrentDevice())) {
      if (!point.Reached()) return hipErrorNotReady;
    }
    return hipSuccess;
  }
  SyncPoint last;
  {
    ReaderLock lock(streams_mu_);
    StreamWorker* worker = FindLocked(stream);
    if (!worker) return hipErrorInvalidHandle;
    last = worker->Last();
  }
  return last.Reached() ? hipSuccess : hipErrorNotReady;
}

hipError_t CpuRuntime::StreamWaitEvent(Stream stream, Event event, unsigned flags) {
  if (flags != 0) return hipErrorInvalidValue;
  SyncPoint recorded;
  {
    MutexLock lock(events_mu_);
    auto it = events_.find(event);
    if (it == events_.end()) return hipErrorInvalidHandle;
    recorded = it->second.point;  // the latest record at the time of the call, as in CUDA
  }
  std::vector<SyncPoint> waits;
  if (!recorded.Reached()) waits.push_back(std::move(recorded));
  // Queued even when there is nothing to wait for, so that an unknown stream is reported.
  return Enqueue(stream, std::move(waits), [] {});
}

hipError_t CpuRuntime::StreamGetDevice(Stream stream, int* device) {
  if (!device) return hipErrorInvalidValue;
  return DeviceOf(stream, device);
}

hipError_t CpuRuntime::StreamGetFlags(Stream stream, unsigned* flags) {
  if (!flags) return hipErrorInvalidValue;
  if (const hipError_t e = Resolve(&stream); e != hipSuccess) return e;
  if (!stream) {
    *flags = 0;
    return hipSuccess;
  }
  ReaderLock lock(streams_mu_);
  StreamWorker* worker = FindLocked(stream);
  if (!worker) return hipErrorInvalidHandle;
  *flags = worker->flags();
  return hipSuccess;
}

hipError_t CpuRuntime::LaunchHostFunc(Stream stream, HostFn fn, void* user_data) {
  if (!fn) return hipErrorInvalidValue;
  return Enqueue(stream, {}, [fn, user_data] { fn(user_data); });
}

bool CpuRuntime::SupportsStreamMemOps(int device) { return ValidDevice(device); }

hipError_t CpuRuntime::StreamWaitValue32(Stream stream, uint32_t* addr, uint32_t value) {
  if (hipError_t e = CheckWord(addr); e != hipSuccess) return e;
  return Enqueue(stream, {}, [this, addr, value] { WaitAtLeast(addr, value, shutting_down_); });
}

hipError_t CpuRuntime::CopyTableRunAsync(const CopyTable* tables, uint32_t first, uint32_t last,
                                         const uint32_t* ready, uint32_t* copied, CopyTable* mirror,
                                         Stream stream) {
  if (hipError_t e = CheckTables(tables, 2); e != hipSuccess) return e;
  if (hipError_t e = CheckWord(ready); e != hipSuccess) return e;
  if (hipError_t e = CheckWord(copied); e != hipSuccess) return e;
  if (mirror != nullptr) {
    if (hipError_t e = CheckMirror(mirror); e != hipSuccess) return e;
  }
  if (static_cast<int32_t>(last - first) < 0) return hipErrorInvalidValue;
  return Enqueue(stream, {}, [this, tables, first, last, ready, copied, mirror] {
    const CopyTable* head = tables + first % 2;
    if (mirror != nullptr) {
      // As the GPU's DMA before its launch: the first table, as the host left it on releasing
      // `first` (acquire loads: what it stored before is visible), into device memory.
      CopyTable* copy = mirror + first % 2;
      copy->token = __atomic_load_n(&head->token, __ATOMIC_ACQUIRE);
      copy->count = __atomic_load_n(&head->count, __ATOMIC_ACQUIRE);
      copy->last = __atomic_load_n(&head->last, __ATOMIC_ACQUIRE);
      copy->spare = 0;
      for (uint32_t i = 0; i < CopyTable::kMaxCopies; ++i) copy->copy[i] = head->copy[i];
      head = copy;
    }
    if (__atomic_load_n(&head->token, __ATOMIC_ACQUIRE) == first &&
        __atomic_load_n(&head->last, __ATOMIC_ACQUIRE) != 0) {
      CopyTableNow(head, first);  // the operation's copies end here
      return;
    }
    // Token by token, as the GPU's one block does: wait for the host, copy, say so.
    for (uint32_t t = first;; ++t) {
      WaitAtLeast(ready, t, shutting_down_);
      if (shutting_down_.load(std::memory_order_relaxed)) return;
      CopyTableNow(tables + t % 2, t);
      __atomic_store_n(copied, t, __ATOMIC_RELEASE);
      if (t == last) return;
    }
  });
}

hipError_t CpuRuntime::StreamWriteValue32(Stream stream, uint32_t* addr, uint32_t value) {
  if (hipError_t e = CheckWord(addr); e != hipSuccess) return e;
  // Release: the stream's earlier work is visible to whoever reads the value.
  return Enqueue(stream, {}, [addr, value] { __atomic_store_n(addr, value, __ATOMIC_RELEASE); });
}

}  // namespace hipfile::runtime::cpu
