// SPDX-License-Identifier: MIT
// Stats: in-process counters behind hipFileGetStatsL1/L2/L3. Lock-free (relaxed atomics); a
// snapshot taken while I/O runs may mix counts from before and after an operation.
#pragma once

#include <hipfile.h>
#include <hipfile_ext.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/batch_stats.h"
#include "engine/io_path.h"
#include "runtime/gpu_runtime.h"

namespace hipfile::core {

enum class IoDirection { kRead, kWrite };

inline constexpr size_t kSizeHistogramBuckets = 32;

// read_size_kb_hist / write_size_kb_hist bucket of a transfer of `bytes`: bucket 0 holds
// transfers below 2 KiB, bucket i (1..30) those in [2^i KiB, 2^(i+1) KiB), bucket 31 the rest.
size_t SizeHistogramBucket(uint64_t bytes);

class Stats;

// Sums of RecordIo calls made by one thread, added to a Stats' shared counters at once (when the
// tally is destroyed, or when it holds its limit of distinct direction/GPU pairs): a batch group
// records its entries with one atomic update per counter rather than one per entry - every worker
// updates the same cache lines, and at a million entries a second per-entry updates cost cores.
// Not thread-safe; the Stats must outlive it.
class IoTally {
 public:
  explicit IoTally(Stats& stats) : stats_(stats) {}
  ~IoTally() { Flush(); }
  IoTally(const IoTally&) = delete;
  IoTally& operator=(const IoTally&) = delete;

  // As Stats::RecordIo.
  void Record(IoDirection direction, int device, bool ok, uint64_t bytes, uint64_t micros,
              bool unaligned, const engine::PathBytes* paths = nullptr);
  // Adds what was recorded to the Stats and starts again from zero.
  void Flush();

 private:
  friend class Stats;
  struct Part {
    IoDirection direction = IoDirection::kRead;
    int device = -1;
    uint64_t ok = 0, err = 0, bytes = 0, micros = 0, unaligned = 0;
    uint64_t compat_ops = 0;  // transfers that took the compatibility path for some bytes
    uint64_t hist[kSizeHistogramBuckets] = {};
    engine::PathBytes paths;                       // bytes by path, buffered bytes by why
    uint64_t path_ops[engine::kIoPathCount] = {};  // transfers by their primary path
    // Counts one transfer of this direction and GPU.
    void Count(bool moved, uint64_t bytes_moved, uint64_t took_us, bool is_unaligned,
               const engine::PathBytes* by_path);
  };
  static constexpr size_t kMaxParts = 4;

  Stats& stats_;
  Part parts_[kMaxParts];
  size_t used_ = 0;
};

class Stats {
 public:
  // 0 records nothing; 1 and above record everything.
  void set_level(unsigned level) { level_.store(level, std::memory_order_relaxed); }
  unsigned level() const { return level_.load(std::memory_order_relaxed); }
  bool enabled() const { return Enabled(); }
  // The batch fields: the batch API records there when enabled().
  BatchStats& batch() { return batch_; }

  void RecordHandleRegister(bool ok) { Count(ok ? hdl_register_ok_ : hdl_register_err_); }
  void RecordHandleDeregister(bool ok) { Count(ok ? hdl_deregister_ok_ : hdl_deregister_err_); }
  void RecordBufRegister(bool ok, int device, size_t bytes);
  void RecordBufDeregister(bool ok, int device, size_t bytes);
  // One hipFileRead/Write. `device` is -1 when the failure came before the buffer was known;
  // `unaligned`: the transfer did not meet the file's O_DIRECT alignment; `paths`: how its bytes
  // went (null: the path is not known, counted as host memory moved by the system calls).
  void RecordIo(IoDirection direction, int device, bool ok, uint64_t bytes, uint64_t micros,
                bool unaligned, const engine::PathBytes* paths = nullptr);
  // Everything an IoTally recorded (IoTally::Flush calls it).
  void Add(const IoTally& tally);

  // Bytes by path and direction, transfers by primary path, buffered bytes by why
  // (hipFileExtGetPathStats).
  void FillPaths(hipFileExtPathStats_t* out) const;

  void FillL1(hipFileStatsLevel1_t* out) const;
  void FillL2(hipFileStatsLevel2_t* out) const;
  // uuid of each GPU in use from gpu.GetDeviceUuid (zeros when it fails).
  void FillL3(hipFileStatsLevel3_t* out, runtime::GpuRuntime& gpu) const;

 private:
  using Counter = std::atomic<uint64_t>;
  struct Direction {
    Counter ok{0}, err{0}, bytes{0}, micros{0};
    Counter hist[kSizeHistogramBuckets] = {};
    Counter compat_ops{0};
    Counter path_bytes[engine::kIoPathCount] = {};
    Counter path_ops[engine::kIoPathCount] = {};
    Counter fallback_bytes[engine::kFallbackCount] = {};
  };
  struct PerGpu {
    std::atomic<bool> in_use{false};
    Direction read, write;
    Counter unaligned_reads{0}, unaligned_writes{0};
    Counter reg_bytes{0};
  };

  void AddPart(const IoTally::Part& part);
  bool Enabled() const { return level() > 0; }
  void Count(Counter& counter) {
    if (Enabled()) counter.fetch_add(1, std::memory_order_relaxed);
  }
  static uint64_t Load(const Counter& c) { return c.load(std::memory_order_relaxed); }

  std::atomic<unsigned> level_{1};
  Counter hdl_register_ok_{0}, hdl_register_err_{0};
  Counter hdl_deregister_ok_{0}, hdl_deregister_err_{0};
  Counter buf_register_ok_{0}, buf_register_err_{0};
  Counter buf_deregister_ok_{0}, buf_deregister_err_{0};
  Direction read_, write_;  // all GPUs, and failures with no GPU known
  BatchStats batch_;
  PerGpu gpus_[HIPFILE_MAX_GPUS];
};

}  // namespace hipfile::core
