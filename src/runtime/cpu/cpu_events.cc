// SPDX-License-Identifier: MIT
// CpuRuntime: events. An event holds the point of its latest record on a stream's timeline and
// the time that point completed.
#include <chrono>

#include "runtime/cpu/cpu_runtime_impl.h"

namespace hipfile::runtime::cpu {
namespace {

constexpr unsigned kEventFlags =
    hipEventDefault | hipEventBlockingSync | hipEventDisableTiming | hipEventInterprocess;

}  // namespace

hipError_t CpuRuntime::EventCreate(Event* event, unsigned flags) {
  if (!event) return hipErrorInvalidValue;
  if (flags & ~kEventFlags) return hipErrorInvalidValue;
  const auto handle = reinterpret_cast<Event>(NewHandle());
  MutexLock lock(events_mu_);
  EventState& state = events_[handle];
  state.flags = flags;
  state.device = CurrentDevice();
  *event = handle;
  return hipSuccess;
}

hipError_t CpuRuntime::EventRecord(Event event, Stream stream) {
  int event_device = 0;
  {
    MutexLock lock(events_mu_);
    auto it = events_.find(event);
    if (it == events_.end()) return hipErrorInvalidHandle;
    event_device = it->second.device;
  }
  // As on a GPU, an event is recorded on streams of its own device only (a null stream: the
  // current device's).
  int stream_device = 0;
  if (const hipError_t e = DeviceOf(stream, &stream_device); e != hipSuccess) return e;
  if (stream_device != event_device) return hipErrorInvalidHandle;
  auto stamp = std::make_shared<Stamp>();
  SyncPoint point;
  hipError_t e = Enqueue(
      stream, {}, [stamp] { stamp->when = std::chrono::steady_clock::now(); }, &point);
  if (e != hipSuccess) return e;
  MutexLock lock(events_mu_);
  auto it = events_.find(event);
  if (it == events_.end()) return hipErrorInvalidHandle;  // destroyed meanwhile
  // Re-recording moves the event: only the latest record counts.
  it->second.point = std::move(point);
  it->second.stamp = std::move(stamp);
  return hipSuccess;
}

hipError_t CpuRuntime::EventSynchronize(Event event) {
  SyncPoint point;
  {
    MutexLock lock(events_mu_);
    auto it = events_.find(event);
    if (it == events_.end()) return hipErrorInvalidHandle;
    point = it->second.point;
  }
  point.Wait();  // a never-recorded event has no timeline: returns at once, as in CUDA
  return hipSuccess;
}

hipError_t CpuRuntime::EventQuery(Event event) {
  SyncPoint point;
  {
    MutexLock lock(events_mu_);
    auto it = events_.find(event);
    if (it == events_.end()) return hipErrorInvalidHandle;
    point = it->second.point;
  }
  return point.Reached() ? hipSuccess : hipErrorNotReady;
}

hipError_t CpuRuntime::EventElapsedTime(float* ms, Event start, Event stop) {
  if (!ms) return hipErrorInvalidValue;
  EventState first;
  EventState second;
  {
    MutexLock lock(events_mu_);
    auto a = events_.find(start);
    auto b = events_.find(stop);
    if (a == events_.end() || b == events_.end()) return hipErrorInvalidHandle;
    first = a->second;
    second = b->second;
  }
  if ((first.flags | second.flags) & hipEventDisableTiming) return hipErrorInvalidHandle;
  if (first.device != second.device) return hipErrorInvalidHandle;  // no common clock on a GPU
  if (!first.stamp || !second.stamp) return hipErrorInvalidHandle;  // never recorded
  // Reached() orders the marker task's write of the stamp before the reads below.
  if (!first.point.Reached() || !second.point.Reached()) return hipErrorNotReady;
  const std::chrono::duration<float, std::milli> elapsed = second.stamp->when - first.stamp->when;
  *ms = elapsed.count();
  return hipSuccess;
}

hipError_t CpuRuntime::EventDestroy(Event event) {
  // Work already queued to mark the event still runs; it only touches its own stamp.
  MutexLock lock(events_mu_);
  return events_.erase(event) == 1 ? hipSuccess : hipErrorInvalidHandle;
}

}  // namespace hipfile::runtime::cpu
