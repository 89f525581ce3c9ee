// SPDX-License-Identifier: MIT
#include "runtime/failed_runtime.h"

namespace hipfile::runtime {
namespace {

class FailedRuntime final : public GpuRuntime {
 public:
  FailedRuntime(const char* name, hipError_t error) : name_(name), error_(error) {}

  const char* Name() const override { return name_; }
  bool DeviceMemoryIsHostMemory() const override { return false; }
  hipError_t GetDeviceCount(int* count) override {
    if (count) *count = 0;
    return error_;
  }
  hipError_t SetDevice(int) override { return error_; }
  hipError_t GetDevice(int*) override { return error_; }
  hipError_t DeviceSynchronize() override { return error_; }
  hipError_t MemGetInfo(size_t*, size_t*) override { return error_; }
  hipError_t GetDeviceUuid(int, char*) override { return error_; }
  hipError_t GetDeviceName(int, char*, size_t) override { return error_; }
  hipError_t GetDeviceTotalMem(int, size_t*) override { return error_; }
  hipError_t GetDeviceAttribute(int, hipDeviceAttribute_t, int*) override { return error_; }
  hipError_t DriverGetVersion(int*) override { return error_; }
  hipError_t DeviceReset() override { return error_; }
  hipError_t Malloc(void**, size_t) override { return error_; }
  hipError_t MallocManaged(void**, size_t, unsigned) override { return error_; }
  hipError_t Free(void*) override { return error_; }
  hipError_t HostMalloc(void**, size_t, unsigned) override { return error_; }
  hipError_t HostFree(void*) override { return error_; }
  hipError_t HostRegister(void*, size_t, unsigned) override { return error_; }
  hipError_t HostUnregister(void*) override { return error_; }
  hipError_t PointerGetInfo(const void*, PointerInfo*) override { return error_; }
  hipError_t Memcpy(void*, const void*, size_t, hipMemcpyKind) override { return error_; }
  hipError_t MemcpyAsync(void*, const void*, size_t, hipMemcpyKind, Stream) override {
    return error_;
  }
  bool SupportsCopyTable(int) override { return false; }
  hipError_t CopyTableAsync(const CopyTable*, uint32_t, Stream) override { return error_; }
  hipError_t CopyTableRunAsync(const CopyTable*, uint32_t, uint32_t, const uint32_t*, uint32_t*,
                               CopyTable*, Stream) override {
    return error_;
  }
  hipError_t Memset(void*, int, size_t) override { return error_; }
  hipError_t MemsetAsync(void*, int, size_t, Stream) override { return error_; }
  hipError_t StreamCreate(Stream*, unsigned) override { return error_; }
  hipError_t StreamDestroy(Stream) override { return error_; }
  hipError_t StreamSynchronize(Stream) override { return error_; }
  hipError_t StreamQuery(Stream) override { return error_; }
  hipError_t StreamWaitEvent(Stream, Event, unsigned) override { return error_; }
  hipError_t StreamGetDevice(Stream, int*) override { return error_; }
  hipError_t LaunchHostFunc(Stream, HostFn, void*) override { return error_; }
  bool SupportsStreamMemOps(int) override { return false; }
  hipError_t StreamWaitValue32(Stream, uint32_t*, uint32_t) override { return error_; }
  hipError_t StreamWriteValue32(Stream, uint32_t*, uint32_t) override { return error_; }
  hipError_t EventCreate(Event*, unsigned) override { return error_; }
  hipError_t EventRecord(Event, Stream) override { return error_; }
  hipError_t EventSynchronize(Event) override { return error_; }
  hipError_t EventQuery(Event) override { return error_; }
  hipError_t EventElapsedTime(float*, Event, Event) override { return error_; }
  hipError_t EventDestroy(Event) override { return error_; }

 private:
  const char* name_;
  hipError_t error_;
};

}  // namespace

std::unique_ptr<GpuRuntime> CreateFailedRuntime(const char* name, hipError_t error) {
  return std::make_unique<FailedRuntime>(name, error);
}

}  // namespace hipfile::runtime
