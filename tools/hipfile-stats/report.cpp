// SPDX-License-Identifier: MIT
#include "report.h"

#include <cinttypes>
#include <cstdint>
#include <initializer_list>

#include "async_ways.h"
#include "copy_waits.h"

namespace hipfile_stats {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr const char* kBackendNames[HIPFILE_EXT_BACKEND_COUNT] = {"Fastpath", "Fallback"};
constexpr const char* kDirectionNames[2] = {"Read", "Write"};

// ais-stats' arithmetic: GiB over seconds, and microseconds per transfer; 0 with nothing to
// divide by. Printed as its stream prints a double (%g).
double GiBPerSecond(uint64_t bytes, uint64_t micros) {
  return micros == 0 ? 0.0
                     : (static_cast<double>(bytes) / kGiB) / (static_cast<double>(micros) / 1e6);
}
double MicrosPerTransfer(uint64_t micros, uint64_t count) {
  return count == 0 ? 0.0 : static_cast<double>(micros) / static_cast<double>(count);
}

const hipFileExtSizeHistogram_t& Histogram(const hipFileExtGpuStats_t& g, int backend, int dir) {
  return dir == 0 ? g.read[backend] : g.write[backend];
}
uint64_t Unaligned(const hipFileExtGpuStats_t& g, int backend, int dir) {
  return dir == 0 ? g.read_unaligned[backend] : g.write_unaligned[backend];
}

uint64_t SumOf(const uint64_t (&buckets)[HIPFILE_EXT_SIZE_BUCKETS]) {
  uint64_t total = 0;
  for (const uint64_t b : buckets) total += b;
  return total;
}

// "<lowKiB>-<highKiB>" of ais-stats size bucket `i`, the last "65536-...".
void SizeRowLabel(int i, char (&label)[48]) {
  const uint64_t low = i == 0 ? 0 : uint64_t{1} << (i + 11);
  if (i == HIPFILE_EXT_SIZE_BUCKETS - 1) {
    std::snprintf(label, sizeof label, "%" PRIu64 "-...", low >> 10);
  } else {
    std::snprintf(label, sizeof label, "%" PRIu64 "-%" PRIu64, low >> 10,
                  (uint64_t{1} << (i + 12)) >> 10);
  }
}

// One of ais-stats' per-GPU tables: "IO <name> Histogram", a header of "IO Size (KiB)" (left in
// 16 columns) and "<Backend> <Read|Write> <metric>" (right in 34), then a row per size bucket.
template <class Cell>
void PrintTable(std::FILE* out, const hipFileExtGpuStats_t& g, const char* name, const char* metric,
                Cell cell) {
  std::fprintf(out, "IO %s Histogram\n%-16s", name, "IO Size (KiB)");
  for (int b = 0; b < HIPFILE_EXT_BACKEND_COUNT; ++b) {
    for (int dir = 0; dir < 2; ++dir) {
      char header[64];
      std::snprintf(header, sizeof header, "%s %s %s", kBackendNames[b], kDirectionNames[dir],
                    metric);
      std::fprintf(out, "%34s", header);
    }
  }
  std::fprintf(out, "\n");
  for (int i = 0; i < HIPFILE_EXT_SIZE_BUCKETS; ++i) {
    char label[48];
    SizeRowLabel(i, label);
    std::fprintf(out, "%-16s", label);
    for (int b = 0; b < HIPFILE_EXT_BACKEND_COUNT; ++b) {
      for (int dir = 0; dir < 2; ++dir) cell(out, Histogram(g, b, dir), i);
    }
    std::fprintf(out, "\n");
  }
}

void PrintGpu(std::FILE* out, int device, const hipFileExtGpuStats_t& g) {
  std::fprintf(out, "GPU %d:\n", device);
  PrintTable(out, g, "Size", "Size (B)",
             [](std::FILE* o, const hipFileExtSizeHistogram_t& h, int i) {
               std::fprintf(o, "%34" PRIu64, h.bytes[i]);
             });
  PrintTable(out, g, "Bandwidth", "Bandwidth (GiB/s)",
             [](std::FILE* o, const hipFileExtSizeHistogram_t& h, int i) {
               std::fprintf(o, "%34g", GiBPerSecond(h.bytes[i], h.time_us[i]));
             });
  PrintTable(out, g, "Latency", "Latency (us)",
             [](std::FILE* o, const hipFileExtSizeHistogram_t& h, int i) {
               std::fprintf(o, "%34g", MicrosPerTransfer(h.time_us[i], h.count[i]));
             });
  PrintTable(out, g, "Errors", "Error Count",
             [](std::FILE* o, const hipFileExtSizeHistogram_t& h, int i) {
               std::fprintf(o, "%34" PRIu64, h.errors[i]);
             });
  for (int b = 0; b < HIPFILE_EXT_BACKEND_COUNT; ++b) {
    for (int dir = 0; dir < 2; ++dir) {
      std::fprintf(out, "%s %s Unaligned Count: %" PRIu64 "\n", kBackendNames[b],
                   kDirectionNames[dir], Unaligned(g, b, dir));
    }
  }
}

// "<low>-<high>" microseconds of latency bucket `i` (hipfile_ext.h), the last "<low>-...".
void LatencyRowLabel(int i, char (&label)[48]) {
  const uint64_t low = i == 0 ? 0 : uint64_t{1} << (i - 1);
  if (i == HIPFILE_EXT_LATENCY_BUCKETS - 1) {
    std::snprintf(label, sizeof label, "%" PRIu64 "-...", low);
  } else {
    std::snprintf(label, sizeof label, "%" PRIu64 "-%" PRIu64, low, uint64_t{1} << i);
  }
}

double Share(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

void PrintUuid(std::FILE* out, const char (&uuid)[HIPFILE_GPU_UUID_LEN]) {
  for (int i = 0; i < HIPFILE_GPU_UUID_LEN; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) std::fputc('-', out);
    std::fprintf(out, "%02x", static_cast<unsigned char>(uuid[i]));
  }
}

void PrintJsonArray(std::FILE* out, const char* name, const uint64_t* values, int n) {
  std::fprintf(out, "\"%s\": [", name);
  for (int i = 0; i < n; ++i) std::fprintf(out, "%s%" PRIu64, i == 0 ? "" : ", ", values[i]);
  std::fprintf(out, "]");
}

// Stream-ordered operations by way (docs/stats.md), and what the staged ones did; nothing for a
// process that made none.
void PrintAsyncWays(std::FILE* out, const hipFileExtAsyncWayStats_t& w) {
  uint64_t total = 0;
  for (int i = 0; i < HIPFILE_EXT_ASYNC_WAY_COUNT; ++i) total += w.read_ops[i] + w.write_ops[i];
  if (total == 0) return;
  std::fprintf(out, "Stream-ordered operations:\n");
  std::fprintf(out, "  %-22s %12s %12s\n", "Way", "Reads", "Writes");
  for (int i = 0; i < HIPFILE_EXT_ASYNC_WAY_COUNT; ++i) {
    std::fprintf(out, "  %-22s %12" PRIu64 " %12" PRIu64 "\n", hipFileExtAsyncWayName(i),
                 w.read_ops[i], w.write_ops[i]);
  }
  std::fprintf(out, "  staged: %s\n", hipfile_tools::StagedText(w).c_str());
}

}  // namespace

void PrintText(std::FILE* out, const Snapshot& snap) {
  const hipFileExtProcessStats_t& s = snap.process;
  const hipFileStatsLevel1_t& l1 = s.stats.detailed.basic;
  // ais-stats' V1 report, line for line (its generateReportV1).
  std::fprintf(out, "AIS-STATS Version: 1\n");
  std::fprintf(out, "HipFile Stats Level: %" PRIu64 "\n", s.level);
  std::fprintf(out, "File Handle Registrations: %" PRIu64 "\n", l1.hdl_register_ops.ok);
  std::fprintf(out, "Buffer Registrations: %" PRIu64 "\n", l1.buf_register_ops.ok);
  std::fprintf(out, "Fastpath Rejections: %" PRIu64 "\n\n", s.read_compat_ops + s.write_compat_ops);
  for (int b = 0; b < HIPFILE_EXT_BACKEND_COUNT; ++b) {
    for (int dir = 0; dir < 2; ++dir) {
      uint64_t bytes = 0, count = 0, micros = 0, errors = 0, unaligned = 0;
      for (const hipFileExtGpuStats_t& g : snap.gpus) {
        const hipFileExtSizeHistogram_t& h = Histogram(g, b, dir);
        bytes += SumOf(h.bytes);
        count += SumOf(h.count);
        micros += SumOf(h.time_us);
        errors += SumOf(h.errors);
        unaligned += Unaligned(g, b, dir);
      }
      const char* backend = kBackendNames[b];
      const char* d = kDirectionNames[dir];
      std::fprintf(out, "Total %s %s Size (B): %" PRIu64 "\n", backend, d, bytes);
      std::fprintf(out, "Average %s %s Bandwidth (GiB/s): %g\n", backend, d,
                   GiBPerSecond(bytes, micros));
      std::fprintf(out, "Average %s %s Latency (us): %g\n", backend, d,
                   MicrosPerTransfer(micros, count));
      std::fprintf(out, "Total %s %s Errors: %" PRIu64 "\n", backend, d, errors);
      std::fprintf(out, "Total %s %s Unaligned: %" PRIu64 "\n\n", backend, d, unaligned);
    }
  }
  for (int gpu = 0; gpu < HIPFILE_MAX_GPUS; ++gpu) {
    if (snap.gpus[gpu].in_use != 0) PrintGpu(out, gpu, snap.gpus[gpu]);
  }

  // The extension: which path the bytes took, and why bytes went buffered (docs/stats.md).
  std::fprintf(out, "\nPaths:\n");
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
  // Transfers by latency, all GPUs and backends: rows up to the slowest bucket in use.
  const hipFileExtLatencyStats_t& lat = snap.latency;
  int last = 0;
  for (int i = 0; i < HIPFILE_EXT_LATENCY_BUCKETS; ++i) {
    if (lat.read_us_hist[i] + lat.write_us_hist[i] != 0) last = i;
  }
  std::fprintf(out, "Latency Histogram (us)    Read Count   Write Count\n");
  for (int i = 0; i <= last; ++i) {
    char label[48];
    LatencyRowLabel(i, label);
    std::fprintf(out, "  %-22s %12" PRIu64 " %13" PRIu64 "\n", label, lat.read_us_hist[i],
                 lat.write_us_hist[i]);
  }
  for (int gpu = 0; gpu < HIPFILE_MAX_GPUS; ++gpu) {
    if (snap.gpus[gpu].in_use == 0) continue;
    std::fprintf(out, "GPU %d uuid: ", gpu);
    PrintUuid(out, snap.gpus[gpu].uuid);
    std::fprintf(out, "\n");
  }
  PrintAsyncWays(out, snap.async_ways);
  if (snap.copy_waits.waits > 0) {
    std::fprintf(out, "%s\n", hipfile_tools::CopyWaitsText(snap.copy_waits).c_str());
  }
}

void PrintJson(std::FILE* out, const Snapshot& snap) {
  const hipFileExtProcessStats_t& s = snap.process;
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
  std::fprintf(out, "}, \"latency\": {");
  PrintJsonArray(out, "read_us_hist", snap.latency.read_us_hist, HIPFILE_EXT_LATENCY_BUCKETS);
  std::fprintf(out, ", ");
  PrintJsonArray(out, "write_us_hist", snap.latency.write_us_hist, HIPFILE_EXT_LATENCY_BUCKETS);
  std::fprintf(out, "}, \"gpus\": [");
  const char* sep = "";
  for (int gpu = 0; gpu < HIPFILE_MAX_GPUS; ++gpu) {
    const hipFileExtGpuStats_t& g = snap.gpus[gpu];
    if (g.in_use == 0) continue;
    std::fprintf(out, "%s{\"gpu\": %d, \"uuid\": \"", sep, gpu);
    PrintUuid(out, g.uuid);
    std::fprintf(out, "\"");
    for (int b = 0; b < HIPFILE_EXT_BACKEND_COUNT; ++b) {
      for (int dir = 0; dir < 2; ++dir) {
        const hipFileExtSizeHistogram_t& h = Histogram(g, b, dir);
        std::fprintf(out, ", \"%s_%s\": {", b == 0 ? "fastpath" : "fallback",
                     dir == 0 ? "read" : "write");
        PrintJsonArray(out, "bytes", h.bytes, HIPFILE_EXT_SIZE_BUCKETS);
        std::fprintf(out, ", ");
        PrintJsonArray(out, "count", h.count, HIPFILE_EXT_SIZE_BUCKETS);
        std::fprintf(out, ", ");
        PrintJsonArray(out, "time_us", h.time_us, HIPFILE_EXT_SIZE_BUCKETS);
        std::fprintf(out, ", ");
        PrintJsonArray(out, "errors", h.errors, HIPFILE_EXT_SIZE_BUCKETS);
        std::fprintf(out, ", \"unaligned\": %" PRIu64 "}", Unaligned(g, b, dir));
      }
    }
    std::fprintf(out, "}");
    sep = ", ";
  }
  const hipFileExtAsyncWayStats_t& w = snap.async_ways;
  std::fprintf(out, "], \"async_ways\": {");
  for (int i = 0; i < HIPFILE_EXT_ASYNC_WAY_COUNT; ++i) {
    std::fprintf(out, "\"%s\": {\"read_ops\": %" PRIu64 ", \"write_ops\": %" PRIu64 "}, ",
                 hipFileExtAsyncWayName(i), w.read_ops[i], w.write_ops[i]);
  }
  std::fprintf(out, "%s}, \"copy_waits\": %s}\n", hipfile_tools::StagedJson(w).c_str(),
               hipfile_tools::CopyWaitsJson(snap.copy_waits).c_str());
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
