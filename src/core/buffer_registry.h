// SPDX-License-Identifier: MIT
// BufferRegistry: GPU and pinned host buffers registered with hipFileBufRegister, and the
// description of unregistered memory passed to an I/O call.
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "runtime/gpu_runtime.h"
#include "util/status.h"

namespace hipfile::core {

struct Buffer {
  const void* base = nullptr;                // the pointer the caller registered (or passed to I/O)
  size_t length = 0;                         // bytes usable from base
  int flags = 0;                             // as registered; unused
  hipMemoryType type = hipMemoryTypeDevice;  // Device (managed memory too) or Host (pinned)
  int device = 0;
};

// True when [ptr, ptr + length) lies inside [alloc_base, alloc_base + alloc_size); overflow-safe.
bool RangeInside(uintptr_t alloc_base, size_t alloc_size, uintptr_t ptr, size_t length);

// Checks memory for hipFileBufRegister:
//   length 0, or a pointer the runtime does not know (hipErrorInvalidValue/NotFound)
//                                              -> hipFileInvalidValue
//   other runtime failures                     -> Status::Gpu(e)
//   not device, managed nor pinned host memory -> hipFileHipMemoryTypeInvalid
//   [ptr, ptr + length) outside the allocation -> hipFileHipPointerRangeError
// Managed memory is described as hipMemoryTypeDevice: I/O treats it as device memory.
Result<Buffer> DescribeForRegistration(runtime::GpuRuntime& gpu, const void* ptr, size_t length,
                                       int flags);

// Describes memory that I/O uses without registration: device (or managed) memory reaches from
// ptr to the end of its allocation. Pinned host memory must be registered (its extent is the
// caller's to state): hipFileInvalidValue. Pageable host memory: hipFileHipMemoryTypeInvalid. A
// pointer the runtime rejects as invalid: hipFileInvalidValue; other runtime failures:
// Status::Gpu(e).
Result<Buffer> DescribeUnregistered(runtime::GpuRuntime& gpu, const void* ptr);

class BufferRegistry {
 public:
  // hipFileMemoryAlreadyRegistered when the base pointer is registered already.
  Status Insert(std::shared_ptr<Buffer> buffer);
  // The buffer registered at exactly `base`, or nullptr.
  std::shared_ptr<Buffer> Find(const void* base) const;
  // hipFileMemoryNotRegistered, or hipFileInternalError while an operation holds the buffer.
  Status Remove(const void* base);
  void Clear() { by_base_.clear(); }
  size_t size() const { return by_base_.size(); }

 private:
  std::map<const void*, std::shared_ptr<Buffer>> by_base_;
};

}  // namespace hipfile::core
