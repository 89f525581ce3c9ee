// SPDX-License-Identifier: MIT
// Small transfers run together: the batch path's answer to the cost of one GPU copy round trip
// per 4 KiB entry.
//
// A staged read of a few KiB costs little in the kernel (a pread from the page cache: ~1.5 µs)
// and much around the copy: queueing it and waiting for it to finish (~25 µs of a core, measured
// on the H200, most of it polling the stream). RunGroup moves a group of small staged transfers
// of one device with one staging buffer, one lane and one wait:
//
//   reads   each entry is read into its own slice of the buffer; the copies of all slices are
//           queued on the lane in one call; one wait; each entry's bytes count once the wait
//           succeeded
//   writes  the copies of all entries into their slices are queued in one call; one wait; each
//           slice is written to its file
//
// One call (GpuRuntime::MemcpyBatchAsync, cuMemcpyBatchAsync on CUDA) matters as much as one
// wait: every cuMemcpyAsync takes a context-wide lock, and on the H200 32 workers queueing a copy
// per 4 KiB entry spent most of their time waiting for it (cuda-gdb samples of a -x 6 run: 179 of
// 192 worker stacks in pthread_rwlock_wrlock under cuMemcpyAsync).
//
// Every entry keeps the result SyncEngine::Read / Write would give it alone (POSIX counts, short
// at end of file, the error when no byte moved); a failure of one entry's system call touches no
// other entry. A failed copy or wait fails every entry whose bytes it carried (the GPU does not
// say which copy failed), and is reported as that entry's error even for reads whose pread
// succeeded: those bytes never reached the GPU.
//
// Entries are read buffered: small reads are never looked up in the page cache (engine
// residency_min_bytes) and read buffered by SyncEngine::Read too.
#pragma once

#include <sys/types.h>

#include <cstddef>

#include "engine/sync_io.h"
#include "engine/transfer.h"
#include "util/status.h"

namespace hipfile::engine {

// Runs `n` requests on device memory of one device, all staged, none empty and each no larger
// than a staging buffer, writing results[i] for ios[i]. Entries are packed into one staging
// buffer; more than fit run in successive rounds. With `paths`, paths[i] says how entry i's
// bytes went: kIoUring when a ring ran its system call, else kBuffered.
void RunGroup(EngineContext& cx, const IoRequest* ios, size_t n, Result<size_t>* results,
              IoPath* paths = nullptr);

}  // namespace hipfile::engine
