// SPDX-License-Identifier: MIT
// CpuRuntime: lifetime and devices. See cpu_runtime_impl.h for where the rest lives.
#include "runtime/cpu/cpu_runtime.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "runtime/cpu/cpu_runtime_impl.h"
#include "runtime/cpu/driver_lock.h"
#include "runtime/cpu/per_thread_streams.h"

namespace hipfile::runtime {

std::unique_ptr<GpuRuntime> CreateCpuRuntime(const CpuRuntimeOptions& options) {
  std::unique_ptr<GpuRuntime> runtime = std::make_unique<cpu::CpuRuntime>(options);
  return options.driver_lock ? cpu::WithDriverLock(std::move(runtime)) : std::move(runtime);
}

namespace cpu {
namespace {

// Exactly 16 bytes, no terminator: device d's UUID, its last byte the hex digit of d.
constexpr char kDeviceUuid[16] = {'h', 'i', 'p', 'f', 'i', 'l', 'e', '-',
                                  'c', 'p', 'u', '-', 'd', 'e', 'v', '0'};
static_assert(kMaxCpuDevices <= 16, "one hex digit names a device in its UUID");

// Runtime ids, for the per-thread current devices below.
std::atomic<uint64_t> next_runtime_id{1};

// The calling thread's current device, per runtime it set one on (by CpuRuntime::id_). A thread
// that never set one for a runtime is on device 0, as a new thread is in HIP. Trivially
// destructible, so that a runtime call made while the process exits (after the main thread's
// thread-locals are destroyed) reads valid memory. kRemembered runtimes per thread: past that the
// oldest runtime's entry is reused (its thread goes back to device 0 there) - a process has one
// runtime; tests make many, one after another.
struct CurrentDeviceEntry {
  uint64_t runtime;
  int device;
};
constexpr size_t kRemembered = 8;
thread_local CurrentDeviceEntry current_devices[kRemembered] = {};

int ClampDevices(unsigned devices) {
  return static_cast<int>(std::clamp(devices, 1u, kMaxCpuDevices));
}

size_t PageSize() {
  const long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? static_cast<size_t>(page) : 4096;
}

}  // namespace

CpuRuntime::CpuRuntime(const CpuRuntimeOptions& options)
    : page_size_(PageSize()),
      devices_(ClampDevices(options.devices)),
      id_(next_runtime_id.fetch_add(1, std::memory_order_relaxed)),
      null_streams_(static_cast<size_t>(devices_)),
      hardware_queues_(options.hardware_queues),
      host_memory_(options.device_memory_is_host_memory),
      queue_last_(static_cast<size_t>(options.hardware_queues) * static_cast<size_t>(devices_)),
      next_queue_(static_cast<size_t>(devices_), 0) {
  per_thread::Enlist(id_, this);
}

CpuRuntime::~CpuRuntime() {
  per_thread::Withdraw(id_);  // threads exiting from now on leave their streams to the clear below
  shutting_down_.store(true, std::memory_order_relaxed);
  // Each worker drains its queue before joining. A task only ever waits for work submitted
  // before it, so draining in any order terminates (unless a host function never returns).
  streams_.clear();
  retired_.clear();
  null_streams_.clear();
  for (const Region& region : memory_.TakeAll()) {
    if (region.kind != RegionKind::kRegistered) free(reinterpret_cast<void*>(region.base));
  }
}

uintptr_t CpuRuntime::NewHandle() {
  // Spaced like pointers to 16-byte objects, starting well above the special stream values
  // HIP and CUDA give meaning to (0, 1, 2).
  return 0x1000 + 16 * next_handle_.fetch_add(1, std::memory_order_relaxed);
}

hipError_t CpuRuntime::GetDeviceCount(int* count) {
  if (!count) return hipErrorInvalidValue;
  *count = devices_;
  return hipSuccess;
}

int CpuRuntime::CurrentDevice() const {
  for (const CurrentDeviceEntry& entry : current_devices) {
    if (entry.runtime == id_) return entry.device;
  }
  return 0;
}

hipError_t CpuRuntime::SetDevice(int device) {
  if (!ValidDevice(device)) return hipErrorInvalidDevice;
  CurrentDeviceEntry* oldest = &current_devices[0];
  for (CurrentDeviceEntry& entry : current_devices) {
    if (entry.runtime == id_) {
      entry.device = device;
      return hipSuccess;
    }
    if (entry.runtime < oldest->runtime) oldest = &entry;  // an unused entry (0) first
  }
  if (device != 0) *oldest = {id_, device};
  return hipSuccess;
}

hipError_t CpuRuntime::GetDevice(int* device) {
  if (!device) return hipErrorInvalidValue;
  *device = CurrentDevice();
  return hipSuccess;
}

hipError_t CpuRuntime::MemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  if (!free_bytes || !total_bytes) return hipErrorInvalidValue;
  const long total_pages = sysconf(_SC_PHYS_PAGES);
  const long free_pages = sysconf(_SC_AVPHYS_PAGES);
  if (total_pages <= 0 || free_pages < 0) return hipErrorUnknown;
  *total_bytes = static_cast<size_t>(total_pages) * page_size_;
  *free_bytes = static_cast<size_t>(free_pages) * page_size_;
  return hipSuccess;
}

hipError_t CpuRuntime::GetDeviceUuid(int device, char uuid[16]) {
  if (!uuid) return hipErrorInvalidValue;
  if (!ValidDevice(device)) return hipErrorInvalidDevice;
  memcpy(uuid, kDeviceUuid, sizeof(kDeviceUuid));
  uuid[15] = "0123456789abcdef"[device];
  return hipSuccess;
}

}  // namespace cpu
}  // namespace hipfile::runtime
