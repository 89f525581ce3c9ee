// SPDX-License-Identifier: MIT
#include "core/async/stream_key.h"

#include <atomic>

namespace hipfile::core {
namespace {

uint64_t ThisThreadNumber() {
  static std::atomic<uint64_t> next{1};
  thread_local const uint64_t number = next.fetch_add(1, std::memory_order_relaxed);
  return number;
}

}  // namespace

StreamKey StreamKey::Of(runtime::Stream stream, int current_device) {
  return StreamKey{stream, runtime::IsPerThreadStream(stream) ? ThisThreadNumber() : 0,
                   PerDevice(stream) ? current_device : -1};
}

}  // namespace hipfile::core
