// SPDX-License-Identifier: MIT
#include "core/buffer_registry.h"

#include "util/log.h"

namespace hipfile::core {
namespace {

Result<runtime::PointerInfo> LookUp(runtime::GpuRuntime& gpu, const void* ptr) {
  runtime::PointerInfo info;
  const hipError_t e = gpu.PointerGetInfo(ptr, &info);
  if (e == hipErrorInvalidValue || e == hipErrorNotFound) return Status::Op(hipFileInvalidValue);
  if (e != hipSuccess) return Status::Gpu(e);
  return info;
}

// Managed memory is I/O'd as device memory: on a GPU the engine stages it through pinned memory
// with the device's copies, which take managed addresses; where device memory is host memory it
// reads and writes it directly. Either way it needs no registration of its extent.
hipMemoryType IoTypeOf(hipMemoryType type) {
  return type == hipMemoryTypeManaged ? hipMemoryTypeDevice : type;
}

}  // namespace

bool RangeInside(uintptr_t alloc_base, size_t alloc_size, uintptr_t ptr, size_t length) {
  if (ptr < alloc_base) return false;
  const uintptr_t offset = ptr - alloc_base;
  if (offset > alloc_size) return false;
  return length <= alloc_size - offset;
}

Result<Buffer> DescribeForRegistration(runtime::GpuRuntime& gpu, const void* ptr, size_t length,
                                       int flags) {
  // Used by hipFileBufRegister only, so its refusals are logged under that name.
  if (ptr == nullptr || length == 0) {
    HF_LOG_LIMITED(kWarn, "hipFileBufRegister: %s",
                   ptr == nullptr ? "buffer_base is NULL" : "length is 0");
    return Status::Op(hipFileInvalidValue);
  }
  const Result<runtime::PointerInfo> found = LookUp(gpu, ptr);
  if (!found.ok()) {
    HF_LOG_LIMITED(kWarn, "hipFileBufRegister: buffer %p is not memory the GPU runtime knows (%s)",
                   ptr, found.status().ToString().c_str());
    return found.status();
  }
  const runtime::PointerInfo& info = *found;
  const hipMemoryType type = IoTypeOf(info.type);
  if (type != hipMemoryTypeDevice && type != hipMemoryTypeHost) {
    HF_LOG_LIMITED(kWarn,
                   "hipFileBufRegister: buffer %p is neither device memory nor pinned host "
                   "memory (memory type %d)",
                   ptr, static_cast<int>(info.type));
    return Status::Op(hipFileHipMemoryTypeInvalid);
  }
  if (!RangeInside(reinterpret_cast<uintptr_t>(info.base), info.size,
                   reinterpret_cast<uintptr_t>(ptr), length)) {
    HF_LOG_LIMITED(kWarn,
                   "hipFileBufRegister: length %zu from %p past the end of its allocation (%zu "
                   "bytes from %p)",
                   length, ptr, info.size, info.base);
    return Status::Op(hipFileHipPointerRangeError);
  }
  Buffer buffer;
  buffer.base = ptr;
  buffer.length = length;
  buffer.flags = flags;
  buffer.type = type;
  buffer.device = info.device < 0 ? 0 : info.device;
  return buffer;
}

Result<Buffer> DescribeUnregistered(runtime::GpuRuntime& gpu, const void* ptr) {
  if (ptr == nullptr) return Status::Op(hipFileInvalidValue);
  HF_ASSIGN_OR_RETURN(const runtime::PointerInfo info, LookUp(gpu, ptr));
  const hipMemoryType type = IoTypeOf(info.type);
  if (type != hipMemoryTypeDevice && type != hipMemoryTypeHost) {
    return Status::Op(hipFileHipMemoryTypeInvalid);
  }
  if (type == hipMemoryTypeHost && info.size == 0) {
    HF_LOG(kDebug,
           "pinned host buffer %p: the runtime does not say where its allocation ends; register "
           "it with an explicit size",
           ptr);
    return Status::Op(hipFileInvalidValue);
  }
  const uintptr_t base = reinterpret_cast<uintptr_t>(info.base);
  const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  if (p < base || p - base >= info.size) return Status::Op(hipFileHipPointerRangeError);
  Buffer buffer;
  buffer.base = ptr;
  buffer.length = info.size - (p - base);
  buffer.type = type;
  buffer.device = info.device < 0 ? 0 : info.device;
  return buffer;
}

Status BufferRegistry::Insert(std::shared_ptr<Buffer> buffer) {
  const void* base = buffer->base;
  if (by_base_.count(base) != 0) return Status::Op(hipFileMemoryAlreadyRegistered);
  by_base_[base] = std::move(buffer);
  return Status::Ok();
}

std::shared_ptr<Buffer> BufferRegistry::Find(const void* base) const {
  const auto it = by_base_.find(base);
  return it == by_base_.end() ? nullptr : it->second;
}

Status BufferRegistry::Remove(const void* base) {
  const auto it = by_base_.find(base);
  if (it == by_base_.end()) return Status::Op(hipFileMemoryNotRegistered);
  // Operations take their reference under the caller's lock, as this check runs.
  if (it->second.use_count() > 1) return Status::Op(hipFileInternalError);
  by_base_.erase(it);
  return Status::Ok();
}

}  // namespace hipfile::core
