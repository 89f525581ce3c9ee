// SPDX-License-Identifier: MIT
// CpuRuntime: allocations, pointer information, copies and fills.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "runtime/cpu/cpu_runtime_impl.h"
#include "util/log.h"

namespace hipfile::runtime::cpu {
namespace {

// Null on failure, and for sizes beyond physical memory: a device cannot hand out more than it
// has, and such a request is a bug or a unit mix-up better refused at once.
void* AlignedAlloc(size_t alignment, size_t size) {
  const long pages = sysconf(_SC_PHYS_PAGES);
  if (pages > 0 && size / alignment >= static_cast<size_t>(pages)) return nullptr;
  void* p = nullptr;
  return posix_memalign(&p, alignment, size) == 0 ? p : nullptr;
}

}  // namespace

hipError_t CpuRuntime::Malloc(void** ptr, size_t size) {
  if (!ptr) return hipErrorInvalidValue;
  *ptr = nullptr;
  if (size == 0) return hipSuccess;  // as CUDA: success and a null pointer
  void* p = AlignedAlloc(page_size_, size);
  if (!p) return hipErrorOutOfMemory;
  memory_.Insert(
      Region{reinterpret_cast<uintptr_t>(p), size, RegionKind::kDevice, 0, CurrentDevice()});
  *ptr = p;
  return hipSuccess;
}

hipError_t CpuRuntime::MallocManaged(void** ptr, size_t size, unsigned flags) {
  if (!ptr) return hipErrorInvalidValue;
  *ptr = nullptr;
  if (flags != hipMemAttachGlobal && flags != hipMemAttachHost) return hipErrorInvalidValue;
  if (size == 0) return hipSuccess;
  void* p = AlignedAlloc(page_size_, size);
  if (!p) return hipErrorOutOfMemory;
  memory_.Insert(
      Region{reinterpret_cast<uintptr_t>(p), size, RegionKind::kManaged, flags, CurrentDevice()});
  *ptr = p;
  return hipSuccess;
}

hipError_t CpuRuntime::Free(void* ptr) {
  if (!ptr) return hipSuccess;
  // As cudaFree: queued work that may still use the memory finishes first (every device's: a
  // superset of what a GPU waits for, so tests meet at least its waits).
  SynchronizeAll();
  if (!memory_.Remove(ptr, RegionKind::kDevice) && !memory_.Remove(ptr, RegionKind::kManaged)) {
    return hipErrorInvalidValue;
  }
  free(ptr);
  return hipSuccess;
}

hipError_t CpuRuntime::HostMalloc(void** ptr, size_t size, unsigned flags) {
  if (!ptr) return hipErrorInvalidValue;
  *ptr = nullptr;
  if (size == 0) return hipSuccess;
  void* p = AlignedAlloc(page_size_, size);
  if (!p) return hipErrorOutOfMemory;
  memory_.Insert(Region{reinterpret_cast<uintptr_t>(p), size, RegionKind::kPinnedHost, flags,
                        CurrentDevice()});
  *ptr = p;
  return hipSuccess;
}

hipError_t CpuRuntime::HostFree(void* ptr) {
  if (!ptr) return hipSuccess;
  SynchronizeAll();  // pinned memory is every device's
  if (!memory_.Remove(ptr, RegionKind::kPinnedHost)) return hipErrorInvalidValue;
  free(ptr);
  return hipSuccess;
}

hipError_t CpuRuntime::HostRegister(void* ptr, size_t size, unsigned flags) {
  if (!ptr || size == 0) return hipErrorInvalidValue;
  const auto base = reinterpret_cast<uintptr_t>(ptr);
  if (base + size < base) return hipErrorInvalidValue;
  if (!memory_.Insert(Region{base, size, RegionKind::kRegistered, flags, CurrentDevice()})) {
    return hipErrorHostMemoryAlreadyRegistered;
  }
  return hipSuccess;
}

hipError_t CpuRuntime::HostUnregister(void* ptr) {
  if (!ptr) return hipErrorInvalidValue;
  // As cuMemHostUnregister: queued work that may still use the memory finishes first (registered
  // memory is every device's).
  SynchronizeAll();
  if (!memory_.Remove(ptr, RegionKind::kRegistered)) return hipErrorHostMemoryNotRegistered;
  return hipSuccess;
}

hipError_t CpuRuntime::PointerGetInfo(const void* ptr, PointerInfo* info) {
  if (!ptr || !info) return hipErrorInvalidValue;
  *info = PointerInfo{};
  std::optional<Region> region = memory_.Find(ptr);
  if (!region) return hipSuccess;  // plain host memory: type Unregistered, device -1
  void* p = const_cast<void*>(ptr);
  info->device = region->device;
  info->base = reinterpret_cast<void*>(region->base);
  info->size = region->size;
  info->device_pointer = p;
  info->flags = region->flags;
  if (region->kind == RegionKind::kDevice) {
    info->type = hipMemoryTypeDevice;  // device-only memory: no host address, as on a GPU
  } else if (region->kind == RegionKind::kManaged) {
    info->type = hipMemoryTypeManaged;  // one address for host and device, as on a GPU
    info->is_managed = true;
    info->host_pointer = p;
  } else {
    info->type = hipMemoryTypeHost;
    info->host_pointer = p;
  }
  return hipSuccess;
}

hipError_t CpuRuntime::CheckRange(const void* p, size_t size) const {
  std::optional<Region> region = memory_.Find(p);
  if (region && region->end() - reinterpret_cast<uintptr_t>(p) < size) {
    return hipErrorInvalidValue;
  }
  return hipSuccess;
}

hipError_t CpuRuntime::CheckKernelRange(const void* p, size_t size) const {
  auto at = reinterpret_cast<uintptr_t>(p);
  std::optional<Region> region = memory_.Find(p);
  if (!region) return hipSuccess;  // as CheckRange
  while (region->end() - at < size) {
    size -= region->end() - at;
    at = region->end();
    region = memory_.Find(reinterpret_cast<const void*>(at));
    if (!region) return hipErrorInvalidValue;  // past a region's end into memory it cannot reach
  }
  return hipSuccess;
}

hipError_t CpuRuntime::CheckCopy(void* dst, const void* src, size_t size,
                                 hipMemcpyKind kind) const {
  // Unified addressing: any kind is accepted for any pair of pointers.
  if (static_cast<unsigned>(kind) > static_cast<unsigned>(hipMemcpyDefault)) {
    return hipErrorInvalidMemcpyDirection;
  }
  if (size == 0) return hipSuccess;
  if (!dst || !src) return hipErrorInvalidValue;
  if (hipError_t e = CheckRange(dst, size); e != hipSuccess) return e;
  return CheckRange(src, size);
}

hipError_t CpuRuntime::CheckKernelCopy(void* dst, const void* src, size_t size) const {
  if (size == 0) return hipSuccess;
  if (!dst || !src) return hipErrorInvalidValue;
  if (hipError_t e = CheckKernelRange(dst, size); e != hipSuccess) return e;
  return CheckKernelRange(src, size);
}

hipError_t CpuRuntime::CheckFill(void* dst, size_t size) const {
  if (size == 0) return hipSuccess;
  if (!dst) return hipErrorInvalidValue;
  return CheckRange(dst, size);
}

hipError_t CpuRuntime::CheckWord(const uint32_t* addr) const {
  if (!addr || reinterpret_cast<uintptr_t>(addr) % sizeof(uint32_t) != 0) {
    return hipErrorInvalidValue;
  }
  // As on a GPU, the word must be memory the device can reach: pinned, registered or device.
  if (!memory_.Find(addr)) return hipErrorInvalidValue;
  return CheckRange(addr, sizeof(uint32_t));
}

hipError_t CpuRuntime::Memcpy(void* dst, const void* src, size_t size, hipMemcpyKind kind) {
  if (hipError_t e = CheckCopy(dst, src, size, kind); e != hipSuccess) return e;
  for (const SyncPoint& point : LegacyBarrier(CurrentDevice())) point.Wait();
  if (size != 0) memmove(dst, src, size);
  return hipSuccess;
}

hipError_t CpuRuntime::MemcpyAsync(void* dst, const void* src, size_t size, hipMemcpyKind kind,
                                   Stream stream) {
  if (hipError_t e = CheckCopy(dst, src, size, kind); e != hipSuccess) return e;
  if (size != 0 && !memory_.Find(src)) {
    // As a GPU's driver does with a source it cannot reach (ordinary host memory): the bytes are
    // taken into memory of the runtime's own before the call returns, so the caller may reuse
    // the source at once; the stream copies them in its order.
    std::shared_ptr<char[]> taken(new (std::nothrow) char[size]);
    if (taken == nullptr) return hipErrorOutOfMemory;
    memcpy(taken.get(), src, size);
    return Enqueue(stream, {}, [dst, taken, size] { memmove(dst, taken.get(), size); });
  }
  return Enqueue(stream, {}, [dst, src, size] {
    if (size != 0) memmove(dst, src, size);
  });
}

hipError_t CpuRuntime::CheckTables(const CopyTable* tables, size_t count) const {
  if (!tables) return hipErrorInvalidValue;
  // As on a GPU, the tables must be memory the device can reach when it gets there.
  const std::optional<Region> region = memory_.Find(tables);
  if (!region || region->kind == RegionKind::kDevice ||
      reinterpret_cast<uintptr_t>(tables) + count * sizeof(CopyTable) > region->end()) {
    return hipErrorInvalidValue;
  }
  return hipSuccess;
}

hipError_t CpuRuntime::CheckMirror(const CopyTable* mirror) const {
  // As on a GPU, device memory with room for two tables.
  const std::optional<Region> region = memory_.Find(mirror);
  if (!region || region->kind != RegionKind::kDevice ||
      reinterpret_cast<uintptr_t>(mirror) + 2 * sizeof(CopyTable) > region->end()) {
    return hipErrorInvalidValue;
  }
  return hipSuccess;
}

void CpuRuntime::CopyTableNow(const CopyTable* table, uint32_t token) const {
  // Acquire: what the host stored before releasing the stream to this point is visible.
  if (__atomic_load_n(&table->token, __ATOMIC_ACQUIRE) != token) return;  // not for this launch
  const uint32_t count =
      std::min<uint32_t>(__atomic_load_n(&table->count, __ATOMIC_ACQUIRE), CopyTable::kMaxCopies);
  for (uint32_t i = 0; i < count; ++i) {
    const CopyTable::Copy& c = table->copy[i];
    auto* dst = reinterpret_cast<void*>(static_cast<uintptr_t>(c.dst));
    const auto* src = reinterpret_cast<const void*>(static_cast<uintptr_t>(c.src));
    const size_t bytes = static_cast<size_t>(c.bytes);
    // A GPU would fault on an address it cannot use; here the copy is refused and logged.
    if (CheckKernelCopy(dst, src, bytes) != hipSuccess) {
      HF_LOG(kError, "CPU runtime: copy table %p entry %llu (%p <- %p, %zu bytes) refused",
             static_cast<const void*>(table), static_cast<unsigned long long>(i), dst, src, bytes);
      continue;
    }
    if (bytes != 0) memmove(dst, src, bytes);
  }
}

hipError_t CpuRuntime::CopyTableAsync(const CopyTable* table, uint32_t token, Stream stream) {
  if (hipError_t e = CheckTables(table, 1); e != hipSuccess) return e;
  return Enqueue(stream, {}, [this, table, token] { CopyTableNow(table, token); });
}

hipError_t CpuRuntime::Memset(void* dst, int value, size_t size) {
  if (hipError_t e = CheckFill(dst, size); e != hipSuccess) return e;
  for (const SyncPoint& point : LegacyBarrier(CurrentDevice())) point.Wait();
  if (size != 0) memset(dst, value, size);
  return hipSuccess;
}

hipError_t CpuRuntime::MemsetAsync(void* dst, int value, size_t size, Stream stream) {
  if (hipError_t e = CheckFill(dst, size); e != hipSuccess) return e;
  return Enqueue(stream, {}, [dst, value, size] {
    if (size != 0) memset(dst, value, size);
  });
}

}  // namespace hipfile::runtime::cpu
