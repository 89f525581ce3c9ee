// SPDX-License-Identifier: MIT
#include "failing_allocator.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace hipfile::testing {
namespace {

std::atomic<bool> g_armed{false};
std::atomic<int64_t> g_left{0};  // allocations until the failing one
std::atomic<bool> g_hit{false};

}  // namespace

void FailAllocation(uint64_t nth) {
  g_hit.store(false);
  g_left.store(static_cast<int64_t>(nth));
  g_armed.store(true);
}

bool StopFailing() {
  g_armed.store(false);
  return g_hit.load();
}

// Whether this allocation is the one to fail: exactly one does per arming.
static bool ShouldFail() {
  if (!g_armed.load(std::memory_order_relaxed)) return false;
  if (g_left.fetch_sub(1) != 1) return false;
  g_hit.store(true);
  return true;
}

}  // namespace hipfile::testing

void* operator new(std::size_t size) {
  if (hipfile::testing::ShouldFail()) throw std::bad_alloc();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return ::operator new(size, std::nothrow);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
