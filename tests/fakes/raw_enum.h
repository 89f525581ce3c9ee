// SPDX-License-Identifier: MIT
// RawEnum: an enum value outside its enumerators, as a C caller may pass one through the C API
// (bad-input tests). In C++ loading such a value is what UBSan's enum check reports; this is the
// one place a test makes one, so the check is off here alone. Pass the result straight to the call
// under test: a copy held in a local and loaded again is checked (and reported at -O0).
#pragma once

#include <cstring>

namespace hipfile::testing {

template <class Enum>
__attribute__((no_sanitize("enum"))) Enum RawEnum(int raw) {
  static_assert(sizeof(Enum) == sizeof raw, "int-sized enum");
  Enum e;
  std::memcpy(&e, &raw, sizeof e);
  return e;
}

}  // namespace hipfile::testing
