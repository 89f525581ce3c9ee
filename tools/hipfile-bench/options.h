// SPDX-License-Identifier: MIT
// hipfile-bench's command line: the options of one run, and the parser that refuses what it cannot
// take at its word (a value that is not a whole number, out of range or followed by other text, an
// unknown flag, a flag that does not apply to the transfer type).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace hipfile_bench {

struct Options {
  std::string file;  // -f, or -D's folder with kDataSetName
  int device = 0;
  int threads = 1;
  uint64_t size = 1ull << 30;
  uint64_t io_size = 1ull << 20;
  int xfer = 0;
  int queue_depth = 0;  // -Q, for -x 5 and 6; the type's default when not given
  int io_type = 0;      // 0 read, 1 write, 2 random read, 3 random write
  double seconds = 0;   // -T; 0: one pass over each thread's share
  double ramp = 0;      // --ramp: seconds of operations before the clock starts (with -T)
  double rate = 0;      // --rate: operations per second over all threads; 0: as fast as they go
  bool wait_when_full = false;  // --wait-when-full: paced -x 5 waits only for a full window
  int event_every = 1;          // --event-every: -x 5 records an event after every K-th operation
  bool late_binding = false;    // --late-binding: -x 5 registers its streams without FIXED flags
  bool verify = false;
  bool json = false;
  bool stages = false;            // --stages: -x 5's breakdown by part after the result line
  bool register_buffers = false;  // -b: hipFileBufRegister the device buffers
  bool fsync = false;             // --fsync: writes count only once fsync returned
  bool overwrite = false;         // --overwrite: may write a file that is not its data set
};

// The file -D DIR uses in DIR.
inline constexpr const char* kDataSetName = "hipfile-bench.dat";

inline bool IsWrite(const Options& o) { return o.io_type == 1 || o.io_type == 3; }
inline bool IsRandom(const Options& o) { return o.io_type == 2 || o.io_type == 3; }
// The types whose operations go through hipFile (the others are baselines).
inline bool UsesHipFile(const Options& o) { return o.xfer == 0 || o.xfer == 5 || o.xfer == 6; }
// The types that keep -Q operations in flight per thread.
inline bool IsQueued(const Options& o) { return o.xfer == 5 || o.xfer == 6; }

// gdsio's name of transfer type `x`, or nullptr for a type hipfile-bench does not have.
const char* XferName(int x);
const char* IoName(int io_type);

enum class ParseResult {
  kRun,   // *o holds the run
  kHelp,  // -h or --help: the usage was printed on stdout; exit 0
  kBad,   // one line saying which flag and value was printed on stderr; exit 2
};
ParseResult ParseArgs(int argc, char** argv, Options* o);

// Every flag, the transfer types, the data set and its marker, and the exit statuses.
void PrintUsage(std::FILE* out);

}  // namespace hipfile_bench
