// SPDX-License-Identifier: MIT
#include "util/capture_mode.h"

#include <atomic>

namespace hipfile {
namespace {

constexpr int kRelaxed = 2;  // CU_STREAM_CAPTURE_MODE_RELAXED
constexpr int kSuccess = 0;  // CUDA_SUCCESS

std::atomic<CaptureModeExchange> installed{nullptr};

}  // namespace

void InstallCaptureModeExchange(CaptureModeExchange exchange) {
  CaptureModeExchange none = nullptr;
  installed.compare_exchange_strong(none, exchange, std::memory_order_acq_rel);
}

void RelaxCaptureModeForThisThread() noexcept {
  if (const CaptureModeExchange exchange = installed.load(std::memory_order_acquire)) {
    int mode = kRelaxed;
    (void)exchange(&mode);
  }
}

RelaxedCapture::RelaxedCapture() noexcept
    : exchange_(installed.load(std::memory_order_acquire)), previous_(kRelaxed) {
  // A failed exchange (a driver being torn down) leaves the mode as it was: nothing to restore.
  if (exchange_ != nullptr && exchange_(&previous_) != kSuccess) exchange_ = nullptr;
}

RelaxedCapture::~RelaxedCapture() {
  if (exchange_ != nullptr) (void)exchange_(&previous_);
}

}  // namespace hipfile
