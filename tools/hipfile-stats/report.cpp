// SPDX-License-Identifier: MIT
#include "report.h"

#include <cinttypes>
#include <cstdint>
#include <initializer_list>

namespace hipfile_stats {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// ais-stats' two backends, by transfer: one that took the compatibility path (buffered or
// io_uring) for some of its bytes is a Fallback one, as hipFileGetStatsL3 counts it in n_posix_*;
// the rest (page-cache windows, O_DIRECT, host memory) are Fastpath ones. The Paths section has
// the bytes by the path that moved them.
struct Backend {
  uint64_t bytes = 0, ops = 0, micros = 0, unaligned = 0, errors = 0;
};

uint64_t Minus(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

Backend Sum(const hipFileExtProcessStats_t& s, bool read, bool fallback) {
  const hipFileStatsLevel1_t& l1 = s.stats.detailed.basic;
  Backend b;
  uint64_t unaligned = 0;
  for (const hipFilePerGpuStats_t& g : s.stats.per_gpu_stats) {
    unaligned += read ? g.n_unaligned_reads : g.n_unaligned_writes;
  }
  const uint64_t ok = read ? l1.read_ops.ok : l1.write_ops.ok;
  const uint64_t micros = read ? l1.read_lat_sum_us : l1.write_lat_sum_us;
  const uint64_t bytes = read ? l1.read_bytes : l1.write_bytes;
  const uint64_t compat_ops = read ? s.read_compat_ops : s.write_compat_ops;
  const uint64_t compat_bytes = read ? s.read_compat_bytes : s.write_compat_bytes;
  const uint64_t compat_us = read ? s.read_compat_us : s.write_compat_us;
  const uint64_t compat_unaligned = read ? s.read_compat_unaligned : s.write_compat_unaligned;
  if (fallback) {
    b.ops = compat_ops;
    b.bytes = compat_bytes;
    b.micros = compat_us;
    b.unaligned = compat_unaligned;
  } else {
    b.ops = Minus(ok, compat_ops);
    b.bytes = Minus(bytes, compat_bytes);
    b.micros = Minus(micros, compat_us);
    b.unaligned = Minus(unaligned, compat_unaligned);
    // A failed transfer moved no bytes by any path: its error is counted where hipFile counts a
    // failure of the path it tried first, the fast path.
    b.errors = read ? l1.read_ops.err : l1.write_ops.err;
  }
  return b;
}

double GiBPerSecond(uint64_t bytes, uint64_t micros) {
  return micros == 0 ? 0.0
                     : (static_cast<double>(bytes) / kGiB) / (static_cast<double>(micros) / 1e6);
}

void PrintBackend(std::FILE* out, const char* name, const char* dir, const Backend& b) {
  std::fprintf(out, "Total %s %s Size (B): %" PRIu64 "\n", name, dir, b.bytes);
  std::fprintf(out, "Average %s %s Bandwidth (GiB/s): %.6f\n", name, dir,
               GiBPerSecond(b.bytes, b.micros));
  std::fprintf(out, "Average %s %s Latency (us): %" PRIu64 "\n", name, dir,
               b.ops == 0 ? 0 : b.micros / b.ops);
  std::fprintf(out, "Total %s %s Errors: %" PRIu64 "\n", name, dir, b.errors);
  std::fprintf(out, "Total %s %s Unaligned: %" PRIu64 "\n", name, dir, b.unaligned);
}

// ais-stats' 16 size rows (0-4 KiB, 4-8, ..., 65536-... KiB) from hipFileGetStatsL2's 32 (below
// 2 KiB, then [2^i, 2^(i+1)) KiB).
void AisRows(const uint64_t (&hist)[32], uint64_t (&rows)[16]) {
  for (uint64_t& r : rows) r = 0;
  for (int b = 0; b < 32; ++b) rows[b < 2 ? 0 : (b - 1 > 15 ? 15 : b - 1)] += hist[b];
}

double Share(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

void PrintText(std::FILE* out, const hipFileExtProcessStats_t& s) {
  const hipFileStatsLevel1_t& l1 = s.stats.detailed.basic;
  std::fprintf(out, "AIS-STATS Version: 1\n");
  std::fprintf(out, "HipFile Stats Level: %" PRIu64 "\n", s.level);
  std::fprintf(out, "File Handle Registrations: %" PRIu64 "\n", l1.hdl_register_ops.ok);
  std::fprintf(out, "Buffer Registrations: %" PRIu64 "\n", l1.buf_register_ops.ok);
  std::fprintf(out, "Fastpath Rejections: %" PRIu64 "\n", s.read_compat_ops + s.write_compat_ops);
  for (const bool fallback : {false, true}) {
    const char* name = fallback ? "Fallback" : "Fastpath";
    PrintBackend(out, name, "Read", Sum(s, true, fallback));
    PrintBackend(out, name, "Write", Sum(s, false, fallback));
  }
  uint64_t read_rows[16], write_rows[16];
  AisRows(s.stats.detailed.read_size_kb_hist, read_rows);
  AisRows(s.stats.detailed.write_size_kb_hist, write_rows);
  for (int gpu = 0; gpu < HIPFILE_MAX_GPUS; ++gpu) {
    const hipFilePerGpuStats_t& g = s.stats.per_gpu_stats[gpu];
    if (g.n_total_reads + g.n_total_writes + g.n_reads_err + g.n_writes_err + g.reg_bytes == 0) {
      continue;
    }
    std::fprintf(out, "GPU %d:\n", gpu);
    std::fprintf(out,
                 "  Read (B): %" PRIu64 "  Reads: %" PRIu64 " (fastpath %" PRIu64
                 ", fallback %" PRIu64 ", unaligned %" PRIu64 ", errors %" PRIu64 ")\n",
                 g.read_bytes, g.n_total_reads, g.n_nvfs_reads, g.n_posix_reads,
                 g.n_unaligned_reads, g.n_reads_err);
    std::fprintf(out,
                 "  Write (B): %" PRIu64 "  Writes: %" PRIu64 " (fastpath %" PRIu64
                 ", fallback %" PRIu64 ", unaligned %" PRIu64 ", errors %" PRIu64 ")\n",
                 g.write_bytes, g.n_total_writes, g.n_nvfs_writes, g.n_posix_writes,
                 g.n_unaligned_writes, g.n_writes_err);
  }
  // The size histogram is the process's (hipFileGetStatsL2), all GPUs together.
  std::fprintf(out, "Size Histogram (KiB)    Read Count   Write Count\n");
  for (int r = 0; r < 16; ++r) {
    char label[32];
    if (r == 15) {
      std::snprintf(label, sizeof label, "65536-...");
    } else {
      std::snprintf(label, sizeof label, "%d-%d", r == 0 ? 0 : 2 << r, 4 << r);
    }
    std::fprintf(out, "  %-20s %12" PRIu64 " %13" PRIu64 "\n", label, read_rows[r], write_rows[r]);
  }

  // The extension: which path the bytes took, and why bytes went buffered (docs/stats.md).
  std::fprintf(out, "Paths:\n");
  std::fprintf(out, "  %-12s %16s %7s %10s %16s %7s %10s\n", "Path", "Read (B)", "Share",
               "Read Ops", "Write (B)", "Share", "Write Ops");
  for (int p = 0; p < HIPFILE_EXT_PATH_COUNT; ++p) {
    std::fprintf(
        out, "  %-12s %16" PRIu64 " %6.1f%% %10" PRIu64 " %16" PRIu64 " %6.1f%% %10" PRIu64 "\n",
        hipFileExtPathName(p), s.paths.read_bytes[p], Share(s.paths.read_bytes[p], l1.read_bytes),
        s.paths.read_ops[p], s.paths.write_bytes[p], Share(s.paths.write_bytes[p], l1.write_bytes),
        s.paths.write_ops[p]);
  }
  std::fprintf(out, "Buffered by reason:\n");
  std::fprintf(out, "  %-16s %16s %16s\n", "Reason", "Read (B)", "Write (B)");
  for (int w = 1; w < HIPFILE_EXT_FALLBACK_COUNT; ++w) {
    if (s.paths.read_fallback_bytes[w] + s.paths.write_fallback_bytes[w] == 0) continue;
    std::fprintf(out, "  %-16s %16" PRIu64 " %16" PRIu64 "\n", hipFileExtFallbackName(w),
                 s.paths.read_fallback_bytes[w], s.paths.write_fallback_bytes[w]);
  }
}

void PrintJson(std::FILE* out, const hipFileExtProcessStats_t& s) {
  const hipFileStatsLevel1_t& l1 = s.stats.detailed.basic;
  std::fprintf(out,
               "{\"pid\": %" PRId64 ", \"read_bytes\": %" PRIu64 ", \"write_bytes\": %" PRIu64
               ", \"read_ops\": %" PRIu64 ", \"write_ops\": %" PRIu64 ", \"errors\": %" PRIu64
               ", \"paths\": {",
               s.pid, l1.read_bytes, l1.write_bytes, l1.read_ops.ok, l1.write_ops.ok,
               l1.read_ops.err + l1.write_ops.err);
  for (int p = 0; p < HIPFILE_EXT_PATH_COUNT; ++p) {
    std::fprintf(out,
                 "%s\"%s\": {\"read_bytes\": %" PRIu64 ", \"write_bytes\": %" PRIu64
                 ", \"ops\": %" PRIu64 "}",
                 p == 0 ? "" : ", ", hipFileExtPathName(p), s.paths.read_bytes[p],
                 s.paths.write_bytes[p], s.paths.read_ops[p] + s.paths.write_ops[p]);
  }
  std::fprintf(out, "}}\n");
}

void PrintRates(std::FILE* out, const hipFileExtProcessStats_t& before,
                const hipFileExtProcessStats_t& now, double seconds, double elapsed) {
  const hipFileStatsLevel1_t& a = before.stats.detailed.basic;
  const hipFileStatsLevel1_t& b = now.stats.detailed.basic;
  const auto rate = [&](uint64_t x, uint64_t y) {
    return seconds <= 0 ? 0.0 : static_cast<double>(y - x) / seconds;
  };
  std::fprintf(out, "%.1f s: read %.3f GiB/s %.0f IOPS, write %.3f GiB/s %.0f IOPS", elapsed,
               rate(a.read_bytes, b.read_bytes) / kGiB, rate(a.read_ops.ok, b.read_ops.ok),
               rate(a.write_bytes, b.write_bytes) / kGiB, rate(a.write_ops.ok, b.write_ops.ok));
  const char* sep = "; ";
  for (int p = 0; p < HIPFILE_EXT_PATH_COUNT; ++p) {
    const uint64_t moved = now.paths.read_bytes[p] + now.paths.write_bytes[p] -
                           before.paths.read_bytes[p] - before.paths.write_bytes[p];
    if (moved == 0) continue;
    std::fprintf(out, "%s%s %.3f GiB/s", sep, hipFileExtPathName(p), rate(0, moved) / kGiB);
    sep = ", ";
  }
  std::fprintf(out, "\n");
  std::fflush(out);
}

}  // namespace hipfile_stats
