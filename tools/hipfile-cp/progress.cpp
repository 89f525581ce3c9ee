// SPDX-License-Identifier: MIT
#include "progress.h"

#include <unistd.h>

namespace hipfile_cp {

void FormatBytes(uint64_t bytes, char* buf, size_t size) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  size_t u = 0;
  while (v >= 1024 && u + 1 < sizeof kUnits / sizeof kUnits[0]) {
    v /= 1024;
    ++u;
  }
  std::snprintf(buf, size, u == 0 ? "%.0f %s" : "%.2f %s", v, kUnits[u]);
}

Progress::Progress(std::FILE* out, uint64_t total)
    : out_(out),
      on_terminal_(::isatty(::fileno(out)) == 1),
      total_(total),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

void Progress::Update(uint64_t done) {
  if (!on_terminal_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(200) && done < total_) return;
  last_ = now;
  drawn_ = true;
  const double secs = std::chrono::duration<double>(now - start_).count();
  const double rate = secs > 0 ? static_cast<double>(done) / secs : 0;
  char have[32], all[32], per[32];
  FormatBytes(done, have, sizeof have);
  FormatBytes(total_, all, sizeof all);
  FormatBytes(static_cast<uint64_t>(rate), per, sizeof per);
  const double share = total_ == 0 ? 100.0 : 100.0 * static_cast<double>(done) / total_;
  const long left = rate > 0 ? static_cast<long>(static_cast<double>(total_ - done) / rate) : -1;
  char eta[32] = "--:--";
  if (left >= 0) std::snprintf(eta, sizeof eta, "%ld:%02ld", left / 60, left % 60);
  std::fprintf(out_, "\r%s / %s  %5.1f%%  %s/s  %s left\033[K", have, all, share, per, eta);
  std::fflush(out_);
}

void Progress::Finish() {
  if (!on_terminal_ || !drawn_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
}

}  // namespace hipfile_cp
