// SPDX-License-Identifier: MIT
#include "platform/env.h"

#include <strings.h>

#include <limits>
#include <string>

namespace hipfile::platform {
namespace {

bool EqualsIgnoreCase(std::string_view text, const char* word) {
  const std::string copy(text);
  return strcasecmp(copy.c_str(), word) == 0;
}

}  // namespace

std::optional<bool> ParseBool(std::string_view text) {
  for (const char* word : {"true", "1", "yes", "on"}) {
    if (EqualsIgnoreCase(text, word)) return true;
  }
  for (const char* word : {"false", "0", "no", "off"}) {
    if (EqualsIgnoreCase(text, word)) return false;
  }
  return std::nullopt;
}

std::optional<uint64_t> ParseUnsigned(std::string_view text) {
  if (text.empty()) return std::nullopt;
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t value = 0;
  bool overflow = false;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (kMax - digit) / 10) overflow = true;
    if (!overflow) value = value * 10 + digit;
  }
  return overflow ? kMax : value;
}

}  // namespace hipfile::platform
