// SPDX-License-Identifier: MIT
// HighDup: a duplicate of a descriptor numbered far above the ones the process opens, for tests
// that close a descriptor and then use its number. Closed, a low number is the next one any open
// in the process takes: the sanitizers' runtimes make pipes, and under ASan a read of the freed
// number took bytes from one of them in one run of four
// (RingIoTest.ADescriptorClosedDuringCallsGivesEbadfOrTheFilesBytes). A number no open reaches
// stays free once closed.
#pragma once

#include <fcntl.h>

namespace hipfile::testing {

// F_DUPFD_CLOEXEC: the lowest free number at or above this one. Under the default 1024
// descriptors a process may hold, far above the few a test has open.
constexpr int kHighDescriptor = 900;

// The duplicate's number, or -1 with errno set.
inline int HighDup(int fd) { return ::fcntl(fd, F_DUPFD_CLOEXEC, kHighDescriptor); }

}  // namespace hipfile::testing
