// SPDX-License-Identifier: MIT
// The way a read of a file on a probed file system would go, from the probes and the settings.
// A restatement of the engine's rule for hipfile-check, which sees only the public API: the
// source of truth is src/engine/plan.h (PlanTransfer, CompatPathUse) and src/engine/sync_io.h
// (SyncEngine::Read, EngineOptions' defaults); keep this in step with them.
#pragma once

#include <string>
#include <vector>

#include "report.h"

namespace hipfile_check {

enum class PageCacheSetting { kAuto, kOn, kOff };  // HIPFILE_PAGE_CACHE

struct ReadPathInputs {
  bool device_memory_is_host = false;  // the CPU runtime: device memory is host memory
  Tri o_direct = Tri::kUnknown;
  bool compat_allowed = true;  // hipFileParamPropertiesAllowCompatMode
  PageCacheSetting page_cache = PageCacheSetting::kAuto;
  unsigned pin_after = 2;  // HIPFILE_PAGE_CACHE_PIN_AFTER
  bool io_uring = true;    // HIPFILE_IO_URING
  Tri io_uring_usable = Tri::kUnknown;
};

struct ReadPath {
  std::vector<std::string> clauses;  // one way the bytes go each
  bool usable = false;               // a read into GPU memory has a way here
};

ReadPath DescribeReadPath(const ReadPathInputs& in);

}  // namespace hipfile_check
