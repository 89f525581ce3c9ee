// SPDX-License-Identifier: MIT
// The way reads and writes of a file on a probed file system would go: the library's own answer
// (hipFileExtGetIoRule, hipfile_ext.h) for a file there, put into words. The rule is the engine's
// (src/engine/io_rule.h); nothing of it is restated here.
#pragma once

#include <hipfile_ext.h>

#include <string>
#include <vector>

namespace hipfile_check {

struct ReadPath {
  std::vector<std::string> clauses;  // a summary, then one line per kind of bytes
  bool usable = false;               // a read into GPU memory has a way here
};

// "direct", "host, O_DIRECT", "buffered (unaligned)", "refused: buffered (no_direct) ...".
std::string WayText(const hipFileExtIoWay_t& way);

// The clauses of a rule. Usable: cold data can be read into GPU memory (not refused).
ReadPath DescribeReadPath(const hipFileExtIoRule_t& rule);

}  // namespace hipfile_check
