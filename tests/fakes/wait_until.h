// SPDX-License-Identifier: MIT
// WaitUntil: polls a condition that another thread (a worker, the poller, a stream) makes true,
// every millisecond until it holds or the limit passes, so that a test waiting for one fails
// rather than hangs.
#pragma once

#include <chrono>
#include <thread>

namespace hipfile::testing {

// Whether `done()` held before `limit` passed.
template <typename Condition>
bool WaitUntil(Condition done, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= until) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace hipfile::testing
