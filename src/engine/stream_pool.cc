#include "engine/stream_pool.h"

#include "util/errors.h"
#include "util/log.h"

namespace hipfile::engine {

StreamPool::~StreamPool() {
  for (const auto& [device, stream] : all_) {
    const hipError_t e = gpu_.StreamDestroy(stream);
    if (e != hipSuccess) {
      HF_LOG(kWarn, "destroying a staging stream of device %d failed: %s", device, GpuErrorName(e));
    }
  }
}

Result<runtime::Stream> StreamPool::Acquire(int device) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<runtime::Stream>& free = free_[device];
    if (!free.empty()) {
      const runtime::Stream stream = free.back();
      free.pop_back();
      return stream;
    }
  }
  runtime::Stream stream = nullptr;
  HF_RETURN_IF_ERROR(Create(device, &stream));
  std::lock_guard<std::mutex> lock(mu_);
  all_.emplace_back(device, stream);
  return stream;
}

void StreamPool::Release(int device, runtime::Stream stream) {
  std::lock_guard<std::mutex> lock(mu_);
  free_[device].push_back(stream);
}

Status StreamPool::Create(int device, runtime::Stream* stream) {
  // Streams belong to a device; make it current for the creation only.
  int previous = 0;
  HF_RETURN_IF_ERROR(Status::FromGpu(gpu_.GetDevice(&previous)));
  if (previous != device) HF_RETURN_IF_ERROR(Status::FromGpu(gpu_.SetDevice(device)));
  const hipError_t created = gpu_.StreamCreate(stream, hipStreamNonBlocking);
  if (previous != device) {
    const hipError_t restored = gpu_.SetDevice(previous);
    if (restored != hipSuccess) {
      HF_LOG(kWarn, "restoring device %d failed: %s", previous, GpuErrorName(restored));
    }
  }
  return Status::FromGpu(created);
}

}  // namespace hipfile::engine
