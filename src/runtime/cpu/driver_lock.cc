// SPDX-License-Identifier: MIT
#include "runtime/cpu/driver_lock.h"

#include <utility>

#include "util/mutex.h"

namespace hipfile::runtime::cpu {
namespace {

class DriverLockedRuntime final : public GpuRuntime {
 public:
  explicit DriverLockedRuntime(std::unique_ptr<GpuRuntime> inner) : inner_(std::move(inner)) {}

  const char* Name() const override { return inner_->Name(); }
  bool DeviceMemoryIsHostMemory() const override { return inner_->DeviceMemoryIsHostMemory(); }
  bool HostReadsCrossALink() const override { return inner_->HostReadsCrossALink(); }

  hipError_t GetDeviceCount(int* count) override {
    return Shared([&] { return inner_->GetDeviceCount(count); });
  }
  hipError_t SetDevice(int device) override {
    return Shared([&] { return inner_->SetDevice(device); });
  }
  hipError_t GetDevice(int* device) override {
    return Shared([&] { return inner_->GetDevice(device); });
  }
  hipError_t DeviceSynchronize() override {
    return Shared([&] { return inner_->DeviceSynchronize(); });
  }
  hipError_t MemGetInfo(size_t* free_bytes, size_t* total_bytes) override {
    return Shared([&] { return inner_->MemGetInfo(free_bytes, total_bytes); });
  }
  hipError_t GetDeviceUuid(int device, char uuid[16]) override {
    return Shared([&] { return inner_->GetDeviceUuid(device, uuid); });
  }
  hipError_t GetDeviceName(int device, char* name, size_t size) override {
    return Shared([&] { return inner_->GetDeviceName(device, name, size); });
  }
  hipError_t GetDeviceTotalMem(int device, size_t* bytes) override {
    return Shared([&] { return inner_->GetDeviceTotalMem(device, bytes); });
  }
  // Forwarded without a lambda, as the other calls taking an enum: a test may pass a value
  // outside the enum, which a lambda's capture by reference would load as the enum (undefined).
  hipError_t GetDeviceAttribute(int device, hipDeviceAttribute_t attribute, int* value) override {
    ReaderLock lock(mu_);
    return inner_->GetDeviceAttribute(device, attribute, value);
  }
  hipError_t DriverGetVersion(int* version) override {
    return Shared([&] { return inner_->DriverGetVersion(version); });
  }
  hipError_t DeviceReset() override {
    return Exclusive([&] { return inner_->DeviceReset(); });
  }

  hipError_t Malloc(void** ptr, size_t size) override {
    return Shared([&] { return inner_->Malloc(ptr, size); });
  }
  hipError_t MallocManaged(void** ptr, size_t size, unsigned flags) override {
    return Shared([&] { return inner_->MallocManaged(ptr, size, flags); });
  }
  hipError_t Free(void* ptr) override {
    return Exclusive([&] { return inner_->Free(ptr); });
  }
  hipError_t HostMalloc(void** ptr, size_t size, unsigned flags) override {
    return Shared([&] { return inner_->HostMalloc(ptr, size, flags); });
  }
  hipError_t HostFree(void* ptr) override {
    return Exclusive([&] { return inner_->HostFree(ptr); });
  }
  hipError_t HostRegister(void* ptr, size_t size, unsigned flags) override {
    return Shared([&] { return inner_->HostRegister(ptr, size, flags); });
  }
  hipError_t HostUnregister(void* ptr) override {
    return Exclusive([&] { return inner_->HostUnregister(ptr); });
  }
  hipError_t PointerGetInfo(const void* ptr, PointerInfo* info) override {
    return Shared([&] { return inner_->PointerGetInfo(ptr, info); });
  }

  hipError_t Memcpy(void* dst, const void* src, size_t size, hipMemcpyKind kind) override {
    ReaderLock lock(mu_);
    return inner_->Memcpy(dst, src, size, kind);
  }
  hipError_t MemcpyAsync(void* dst, const void* src, size_t size, hipMemcpyKind kind,
                         Stream stream) override {
    ReaderLock lock(mu_);
    return inner_->MemcpyAsync(dst, src, size, kind, stream);
  }
  hipError_t MemcpyBatchAsync(const CopyOp* copies, size_t count, hipMemcpyKind kind, Stream stream,
                              hipError_t* errors) override {
    ReaderLock lock(mu_);
    return inner_->MemcpyBatchAsync(copies, count, kind, stream, errors);
  }
  bool SupportsCopyTable(int device) override {
    ReaderLock lock(mu_);
    return inner_->SupportsCopyTable(device);
  }
  hipError_t CopyTableAsync(const CopyTable* table, uint32_t token, Stream stream) override {
    return Shared([&] { return inner_->CopyTableAsync(table, token, stream); });
  }
  hipError_t CopyTableRunAsync(const CopyTable* tables, uint32_t first, uint32_t last,
                               const uint32_t* ready, uint32_t* copied, CopyTable* mirror,
                               Stream stream) override {
    return Shared([&] {
      return inner_->CopyTableRunAsync(tables, first, last, ready, copied, mirror, stream);
    });
  }
  hipError_t Memset(void* dst, int value, size_t size) override {
    return Shared([&] { return inner_->Memset(dst, value, size); });
  }
  hipError_t MemsetAsync(void* dst, int value, size_t size, Stream stream) override {
    return Shared([&] { return inner_->MemsetAsync(dst, value, size, stream); });
  }

  hipError_t StreamCreate(Stream* stream, unsigned flags) override {
    return Shared([&] { return inner_->StreamCreate(stream, flags); });
  }
  hipError_t StreamDestroy(Stream stream) override {
    return Shared([&] { return inner_->StreamDestroy(stream); });
  }
  hipError_t StreamSynchronize(Stream stream) override {
    return Shared([&] { return inner_->StreamSynchronize(stream); });
  }
  hipError_t StreamQuery(Stream stream) override {
    return Shared([&] { return inner_->StreamQuery(stream); });
  }
  hipError_t StreamWaitEvent(Stream stream, Event event, unsigned flags) override {
    return Shared([&] { return inner_->StreamWaitEvent(stream, event, flags); });
  }
  hipError_t StreamGetDevice(Stream stream, int* device) override {
    return Shared([&] { return inner_->StreamGetDevice(stream, device); });
  }
  hipError_t StreamGetFlags(Stream stream, unsigned* flags) override {
    return Shared([&] { return inner_->StreamGetFlags(stream, flags); });
  }
  hipError_t LaunchHostFunc(Stream stream, HostFn fn, void* user_data) override {
    return Shared([&] { return inner_->LaunchHostFunc(stream, fn, user_data); });
  }
  bool HostFunctionsRunPerStream() const override { return inner_->HostFunctionsRunPerStream(); }

  bool SupportsStreamMemOps(int device) override {
    ReaderLock lock(mu_);
    return inner_->SupportsStreamMemOps(device);
  }
  hipError_t StreamWaitValue32(Stream stream, uint32_t* addr, uint32_t value) override {
    return Shared([&] { return inner_->StreamWaitValue32(stream, addr, value); });
  }
  hipError_t StreamWriteValue32(Stream stream, uint32_t* addr, uint32_t value) override {
    return Shared([&] { return inner_->StreamWriteValue32(stream, addr, value); });
  }

  hipError_t EventCreate(Event* event, unsigned flags) override {
    return Shared([&] { return inner_->EventCreate(event, flags); });
  }
  hipError_t EventRecord(Event event, Stream stream) override {
    return Shared([&] { return inner_->EventRecord(event, stream); });
  }
  hipError_t EventSynchronize(Event event) override {
    return Shared([&] { return inner_->EventSynchronize(event); });
  }
  hipError_t EventQuery(Event event) override {
    return Shared([&] { return inner_->EventQuery(event); });
  }
  hipError_t EventElapsedTime(float* ms, Event start, Event stop) override {
    return Shared([&] { return inner_->EventElapsedTime(ms, start, stop); });
  }
  hipError_t EventDestroy(Event event) override {
    return Shared([&] { return inner_->EventDestroy(event); });
  }

 private:
  template <class Call>
  hipError_t Shared(Call&& call) {
    ReaderLock lock(mu_);
    return call();
  }
  template <class Call>
  hipError_t Exclusive(Call&& call) {
    WriterLock lock(mu_);
    return call();
  }

  const std::unique_ptr<GpuRuntime> inner_;
  // Guards no member: it is held around every call of inner_, exclusively by those that free
  // memory or reset the device.
  SharedMutex mu_;
};

}  // namespace

std::unique_ptr<GpuRuntime> WithDriverLock(std::unique_ptr<GpuRuntime> inner) {
  return std::make_unique<DriverLockedRuntime>(std::move(inner));
}

}  // namespace hipfile::runtime::cpu
