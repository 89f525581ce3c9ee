// SPDX-License-Identifier: MIT
// A global operator new that fails on request, for the exhaustion tests: this folder's test
// binary replaces the process's allocator, so the library (linked into it) sees the failures
// exactly where it would under real memory exhaustion - in the standard library's containers,
// std::function, std::thread's state and make_shared.
//
//   FailAllocation(3);   // the 3rd allocation from now, on any thread, throws std::bad_alloc
//   ...call...
//   bool hit = StopFailing();   // disarms; whether the failure was reached
#pragma once

#include <cstdint>

namespace hipfile::testing {

void FailAllocation(uint64_t nth);
// Disarms; true when the armed allocation was reached (and failed).
bool StopFailing();

}  // namespace hipfile::testing
