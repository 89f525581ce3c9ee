// SPDX-License-Identifier: MIT
// hipfile-check's command line: the flags of one run and a strict parser (an unknown flag, or -q
// with --json, is refused with one line on stderr and exit status 2).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace hipfile_check {

struct Options {
  std::vector<std::string> paths;  // PATH...: probe these instead of every mount
  bool quiet = false;              // -q: no output, the exit status only
  bool json = false;               // --json: one JSON object on stdout
  bool bandwidth = false;          // --bandwidth: a short pinned host-to-GPU copy probe
};

enum class ParseResult {
  kRun,   // *o holds the run
  kHelp,  // -h or --help: the usage was printed on stdout; exit 0
  kBad,   // one line naming the flag was printed on stderr; exit 2
};
ParseResult ParseArgs(int argc, char** argv, Options* o);

// Every flag, what is probed and the exit statuses.
void PrintUsage(std::FILE* out);

// The exit statuses.
inline constexpr int kExitCanDoIo = 0;
inline constexpr int kExitCannotDoIo = 1;
inline constexpr int kExitUsage = 2;

}  // namespace hipfile_check
