// SPDX-License-Identifier: MIT
#include "util/capture_mode.h"

#include <atomic>

namespace hipfile {
namespace {

constexpr int kRelaxed = 2;  // CU_STREAM_CAPTURE_MODE_RELAXED
constexpr int kSuccess = 0;  // CUDA_SUCCESS

std::atomic<CaptureModeExchange> installed{nullptr};
// The calling thread's outermost scope that began before an exchange was installed.
thread_local RelaxedCapture* waiting = nullptr;

}  // namespace

void InstallCaptureModeExchange(CaptureModeExchange exchange) {
  installed.store(exchange, std::memory_order_release);
  if (exchange != nullptr && waiting != nullptr) waiting->Engage(exchange);
}

void RelaxCaptureModeForThisThread() noexcept {
  if (const CaptureModeExchange exchange = installed.load(std::memory_order_acquire)) {
    int mode = kRelaxed;
    (void)exchange(&mode);
  }
}

RelaxedCapture::RelaxedCapture() noexcept : previous_(kRelaxed) {
  if (const CaptureModeExchange exchange = installed.load(std::memory_order_acquire)) {
    Engage(exchange);
  } else if (waiting == nullptr) {
    waiting = this;
    waiting_ = true;
  }
}

// A failed exchange (a driver being torn down) leaves the mode as it was: nothing to restore.
void RelaxedCapture::Engage(CaptureModeExchange exchange) noexcept {
  if (exchange_ != nullptr) return;
  previous_ = kRelaxed;
  if (exchange(&previous_) == kSuccess) exchange_ = exchange;
}

RelaxedCapture::~RelaxedCapture() {
  if (waiting_) waiting = nullptr;
  if (exchange_ != nullptr) (void)exchange_(&previous_);
}

}  // namespace hipfile
