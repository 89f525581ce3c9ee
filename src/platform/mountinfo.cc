// SPDX-License-Identifier: MIT
#include "platform/mountinfo.h"

#include <cstdlib>

namespace hipfile::platform {
namespace {

std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && line[pos] == ' ') ++pos;
    if (pos >= line.size()) break;
    const size_t end = line.find(' ', pos);
    const size_t stop = end == std::string_view::npos ? line.size() : end;
    fields.push_back(line.substr(pos, stop - pos));
    pos = stop;
  }
  return fields;
}

// The kernel escapes space, tab, newline and backslash as \ooo.
std::string Unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size()) {
      const std::string_view digits = text.substr(i + 1, 3);
      bool octal = digits.size() == 3;
      for (const char c : digits) octal = octal && c >= '0' && c <= '7';
      if (octal) {
        out.push_back(
            static_cast<char>((digits[0] - '0') * 64 + (digits[1] - '0') * 8 + (digits[2] - '0')));
        i += 3;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

bool ParseDevice(std::string_view text, unsigned* major, unsigned* minor) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= text.size()) return false;
  const std::string major_text(text.substr(0, colon));
  const std::string minor_text(text.substr(colon + 1));
  char* end = nullptr;
  const unsigned long ma = std::strtoul(major_text.c_str(), &end, 10);
  if (*end != '\0') return false;
  const unsigned long mi = std::strtoul(minor_text.c_str(), &end, 10);
  if (*end != '\0') return false;
  *major = static_cast<unsigned>(ma);
  *minor = static_cast<unsigned>(mi);
  return true;
}

}  // namespace

std::vector<MountEntry> ParseMountInfo(std::string_view text) {
  std::vector<MountEntry> mounts;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = text.find('\n', pos);
    const size_t stop = end == std::string_view::npos ? text.size() : end;
    const std::vector<std::string_view> f = SplitFields(text.substr(pos, stop - pos));
    pos = stop + 1;
    // id parent major:minor root mount-point options [optional...] - fstype source super-options
    if (f.size() < 9) continue;
    size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash + 2 >= f.size()) continue;
    MountEntry entry;
    if (!ParseDevice(f[2], &entry.major, &entry.minor)) continue;
    entry.mount_point = Unescape(f[4]);
    entry.mount_options = std::string(f[5]);
    entry.fs_type = std::string(f[dash + 1]);
    entry.source = Unescape(f[dash + 2]);
    if (dash + 3 < f.size()) entry.super_options = std::string(f[dash + 3]);
    mounts.push_back(std::move(entry));
  }
  return mounts;
}

const MountEntry* FindMountByDevice(const std::vector<MountEntry>& mounts, unsigned major,
                                    unsigned minor) {
  const MountEntry* found = nullptr;
  for (const MountEntry& m : mounts) {
    if (m.major == major && m.minor == minor) found = &m;
  }
  return found;
}

std::optional<std::string> FindMountOption(std::string_view options, std::string_view key) {
  size_t pos = 0;
  while (pos <= options.size()) {
    const size_t comma = options.find(',', pos);
    const size_t stop = comma == std::string_view::npos ? options.size() : comma;
    const std::string_view option = options.substr(pos, stop - pos);
    const size_t equals = option.find('=');
    const std::string_view name = option.substr(0, equals);
    if (name == key) {
      if (equals == std::string_view::npos) return std::string();
      return std::string(option.substr(equals + 1));
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return std::nullopt;
}

}  // namespace hipfile::platform
