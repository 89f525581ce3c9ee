// SPDX-License-Identifier: MIT
// A one-line progress bar on a terminal: bytes, share, rate and time left, redrawn at most five
// times a second; nothing when the stream is not a terminal.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace hipfile_cp {

class Progress {
 public:
  Progress(std::FILE* out, uint64_t total);
  // `done` bytes of the total so far.
  void Update(uint64_t done);
  // Clears the line.
  void Finish();

 private:
  std::FILE* out_;
  const bool on_terminal_;
  const uint64_t total_;
  const std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  bool drawn_ = false;
};

// "1.50 GiB", "512.0 KiB"
void FormatBytes(uint64_t bytes, char* buf, size_t size);

}  // namespace hipfile_cp
