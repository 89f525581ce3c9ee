// SPDX-License-Identifier: MIT
// BufferRegistry: GPU and pinned host buffers registered with hipFileBufRegister, and the
// description of unregistered memory passed to an I/O call.
//
// Registrations are keyed by the base address, which is the caller's: the key cannot be made
// unique as file handles are (file_registry.h). What keeps an operation from being confused by a
// registration deregistered and made again at the same address is that an operation looks the
// address up once (Driver::Prepare, at submission for stream-ordered and batch I/O), keeps a
// reference to the registration object it found and a copy of its extent, and never looks the
// address up again. While it holds the reference, Remove refuses (hipFileInternalError, as
// hipFile), so the registration cannot be remade under it; only the driver's last close drops a
// held registration, and a registration made afterwards at the same address is a new object that
// the operation never sees: it moves bytes within the extent it was validated against.
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

// Describes memory that I/O uses without registration: device memory and pinned host memory
// (hipHostMalloc, hipHostRegister) reach from ptr to the end of the allocation or registration
// that holds it, as the runtime's pointer query reports it - upstream's newest tree and cuFile
// serve host memory too. Pinned host memory whose extent the runtime does not report:
// hipFileInvalidValue (register it with a size). Managed memory is I/O'd as device memory.
// Pageable host memory (and arrays): hipFileHipMemoryTypeInvalid, as AMD's hipFile gives. A pointer
// the runtime rejects as invalid: hipFileInvalidValue; other runtime failures: Status::Gpu(e).
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
