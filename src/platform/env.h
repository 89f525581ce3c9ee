// SPDX-License-Identifier: MIT
// Parsing of environment variable values. Pure functions: the caller reads the variable (through
// Sys::Getenv) and decides what to do with a value that does not parse.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace hipfile::platform {

// Case-insensitive "true"/"false", also "1"/"0", "yes"/"no", "on"/"off". Anything else
// (including "" and surrounding spaces) is nullopt.
std::optional<bool> ParseBool(std::string_view text);

// A base-10 unsigned number: digits only, the whole string. A value too large for uint64_t gives
// UINT64_MAX (the caller clamps). "", signs, spaces and trailing garbage are nullopt.
std::optional<uint64_t> ParseUnsigned(std::string_view text);

}  // namespace hipfile::platform
