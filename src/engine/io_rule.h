// SPDX-License-Identifier: MIT
// The way each kind of bytes of a read or write of one file would go, as the engine decides it:
// the planner (engine/plan.h) run on one request of each kind, built by the same functions that
// build SyncEngine::Read's and Write's requests, plus the two decisions made outside the planner
// (a window is pinned at its n-th read, engine/page_cache_pins.h; small batch entries are grouped,
// SyncEngine::RunMany). What hipFileExtGetIoRule reports (hipfile_ext.h), so that tools say what
// the library would do without restating its rule.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/io_path.h"
#include "engine/plan.h"
#include "engine/sync_io.h"

namespace hipfile::engine {

// Whether the engine's page-cache path is on: kAuto means on a GPU, off where device memory is
// host memory (engine/sync_io.h, PageCacheMode).
bool PageCacheEnabled(PageCacheMode mode, bool device_memory_is_host);

// The request SyncEngine::Read plans before residency is looked up, and whether the page-cache
// path is wanted for it (staged, and the engine's page-cache path on).
struct ReadRequestInputs {
  const EngineOptions* options = nullptr;
  const IoFile* file = nullptr;
  bool staged = true;
  bool memory_is_staging = false;
  uintptr_t memory_address = 0;
  bool allow_compat = true;
  bool page_cache = false;  // the engine's page-cache path is on (SyncEngine::page_cache_enabled)
  size_t page_size = 4096;
};
PlanRequest MakeReadRequest(const ReadRequestInputs& in, uint64_t offset, size_t size);
// SyncEngine::Write's request; `direct`: O_DIRECT may be used now (direct_writes, a direct
// descriptor and no pinned page of the file).
PlanRequest MakeWriteRequest(const ReadRequestInputs& in, bool direct, uint64_t offset,
                             size_t size);

// The kinds of bytes, in hipfile_ext.h's hipFileExtIoCase_t order.
enum class IoCase : uint8_t {
  kReadWarm,          // a large read of data in the page cache, its window pinned
  kReadWarmUnpinned,  // the same, before the window's pinning read
  kReadCold,          // the aligned body of a large read of data not in the page cache
  kReadUnaligned,     // the unaligned head (and tail) of such a read
  kReadSmall,         // a read smaller than residency_min_bytes
  kBatchSmall,        // a batch entry of at most grouped_max_bytes among others on one device
  kWriteAligned,      // the aligned body of a write
  kWriteUnaligned,    // its unaligned head and tail
};
inline constexpr size_t kIoCaseCount = 8;
const char* IoCaseName(IoCase c);

struct IoWay {
  IoPath path = IoPath::kBuffered;  // as the statistics would count the bytes
  Fallback why = Fallback::kNone;   // bytes without O_DIRECT or the page cache: why
  bool o_direct = false;            // the system calls go through the O_DIRECT descriptor
  bool refused = false;             // only the compatibility path could move them, and it is off
};

struct IoRuleInputs {
  EngineOptions options;
  IoFile file;               // direct_fd >= 0: the file takes O_DIRECT (the descriptor unused)
  bool staged = true;        // device memory passes through pinned staging (not the CPU runtime)
  bool page_cache = false;   // the page-cache path is on, resolved (SyncEngine::page_cache_enabled)
  bool allow_compat = true;  // HIPFILE_ALLOW_COMPAT_MODE / hipFileParamPropertiesAllowCompatMode
  bool ring = true;          // a ring can be made (built with liburing, the kernel allows it)
  size_t page_size = 4096;
};

struct IoRule {
  IoWay ways[kIoCaseCount];
  size_t grouped_max_bytes = 0;  // batch entries up to this are grouped (0: none are)
};

// The way of each case into device memory (cases of pinned host memory go as on the CPU runtime).
IoRule DescribeIoRule(const IoRuleInputs& in);

}  // namespace hipfile::engine
