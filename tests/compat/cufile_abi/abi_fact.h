// SPDX-License-Identifier: MIT
// One fact of a cufile.h: a number (a size, an offset, a value) or a function's type, as the
// compiler saw it in one translation unit. nvidia_side.cc and ours_side.cc each fill a table from
// the same list (facts.inc, written by facts.py); main.cc compares the tables.
#pragma once

#include <cstddef>
#include <typeinfo>

struct AbiFact {
  const char* name;
  long long value;   // for sizes, offsets and values
  const char* type;  // for functions: the mangled name of the function's type
};

#define HIPFILE_CUFILE_SIZE(T) {"sizeof(" #T ")", static_cast<long long>(sizeof(T)), nullptr},
#define HIPFILE_CUFILE_ALIGN(T) {"alignof(" #T ")", static_cast<long long>(alignof(T)), nullptr},
#define HIPFILE_CUFILE_VALUE(V) {#V, static_cast<long long>(V), nullptr},
#define HIPFILE_CUFILE_MEMBER(T, M)                                                           \
  {"offsetof(" #T ", " #M ")", static_cast<long long>(offsetof(T, M)), nullptr},              \
      {"sizeof(" #T "::" #M ")", static_cast<long long>(sizeof(static_cast<T*>(nullptr)->M)), \
       nullptr},
#define HIPFILE_CUFILE_SIGNATURE(F) {#F, 0, typeid(decltype(&F)).name()},
