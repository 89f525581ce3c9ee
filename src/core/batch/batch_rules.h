// SPDX-License-Identifier: MIT
// The argument rules of hipFileBatchIOSubmit and hipFileBatchIOGetStatus (spec §1.9).
#pragma once

#include <hipfile.h>
#include <sys/types.h>
#include <time.h>

#include <cstddef>
#include <vector>

#include "core/batch/batch_context.h"
#include "core/driver.h"
#include "util/status.h"

namespace hipfile::core {

// Checks the nr entries of a submission, each in this order, and returns their transfers or the
// error of the first entry that fails:
//   mode != hipFileBatch, opcode neither read nor write          -> hipFileInvalidValue
//   the driver closed                                            -> hipFileDriverNotInitialized
//   fh not registered                                            -> hipFileHandleNotRegistered
//   devPtr_base: not registered, nor device or pinned host memory -> as hipFileRead (see
//     DescribeUnregistered: hipFileHipMemoryTypeInvalid, hipFileInvalidValue, a GPU error)
//   file_offset < 0, devPtr_offset < 0 or outside the buffer,
//   size larger than what follows devPtr_offset                  -> hipFileInvalidValue
// The driver's lookups for all entries are made under one acquisition of its lock
// (Driver::PrepareMany).
Result<std::vector<BatchTransfer>> ValidateBatchEntries(Driver& driver,
                                                        const hipFileIOParams_t* params,
                                                        unsigned nr);

// The end of a GetStatus wait: nullptr waits indefinitely, {0, 0} polls. tv_sec < 0, tv_nsec < 0
// or tv_nsec >= 1e9 -> hipFileInvalidValue. Timeouts beyond kMaxBatchWaitSeconds wait
// indefinitely (a time point that far ahead would overflow the clock).
inline constexpr time_t kMaxBatchWaitSeconds = 100L * 365 * 24 * 3600;
Result<BatchDeadline> BatchDeadlineFrom(const struct timespec* timeout);

}  // namespace hipfile::core
