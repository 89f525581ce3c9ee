// SPDX-License-Identifier: MIT
// Which staged chains queue one launch of the copy kernel for all their tokens
// (GpuRuntime::CopyTableRunAsync) instead of one per token: HIPFILE_ASYNC_COPY_RUNS, docs/async.md
// "One launch per read copied ahead".
#pragma once

namespace hipfile::core {

enum class AsyncCopyRuns {
  kOff,      // a launch per token, every chain
  kAhead,    // reads copied ahead into device memory
  kWindows,  // those, and reads whose every byte was in pinned windows at submission (default)
  kReads,    // every staged read (a read that stages takes the launch's one-block way)
};

}  // namespace hipfile::core
