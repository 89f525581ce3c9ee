// SPDX-License-Identifier: MIT
#include "options.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "data_set.h"

namespace hipfile_bench {

const char* XferName(int x) {
  switch (x) {
    case 0:
      return "GPUD";
    case 1:
      return "CPUONLY";
    case 2:
      return "CPU_GPU";
    case 4:
      return "CPU_CACHED_GPU";
    case 5:
      return "GPUD_ASYNC";
    case 6:
      return "GPU_BATCH";
    case 9:
      return "HOST_GPU";
    case 10:
      return "CPU_PREAD";
    default:
      return nullptr;
  }
}

const char* IoName(int io_type) {
  static const char* const names[] = {"READ", "WRITE", "RANDREAD", "RANDWRITE"};
  return names[io_type];
}

void PrintUsage(std::FILE* out) {
  std::fprintf(
      out,
      "usage: hipfile-bench (-f FILE | -D DIR) [-d GPU] [-w THREADS] [-s SIZE] [-i IOSIZE]\n"
      "                     [-x XFER] [-I 0|1|2|3] [-T SECONDS [--ramp SECONDS]] [-Q DEPTH]\n"
      "                     [-b] [-V] [--fsync]\n"
      "                     [--rate IOPS [--wait-when-full]] [--event-every K] [--late-binding]\n"
      "                     [--overwrite] [--json] [--stages]\n"
      "Moves a data set between a file and GPU memory with several threads and prints gdsio's\n"
      "result line, or one JSON line.\n"
      "\n"
      "  -f FILE      the data set's file\n"
      "  -D DIR       the data set is DIR/%s\n"
      "  -d GPU       the GPU to use, 0 or more (default 0)\n"
      "  -w THREADS   threads, 1 to 4096 (default 1)\n"
      "  -s SIZE      the data set's size (default 1G)\n"
      "  -i IOSIZE    bytes per operation (default 1M); a data set smaller than it grows to it\n"
      "  -x XFER      transfer type (default 0), gdsio's numbers:\n"
      "                 0  GPUD            hipFileRead / hipFileWrite into GPU memory\n"
      "                 1  CPUONLY         O_DIRECT pread / pwrite of page-aligned host memory\n"
      "                 2  CPU_GPU         pread into pinned host memory + hipMemcpy (writes: "
      "back)\n"
      "                 4  CPU_CACHED_GPU  hipMemcpy from (to) a shared mmap of the file\n"
      "                 5  GPUD_ASYNC      hipFileReadAsync / hipFileWriteAsync, one registered\n"
      "                                    stream per thread, -Q operations in flight\n"
      "                 6  GPU_BATCH       one hipFileBatchIO batch per thread kept full with -Q\n"
      "                                    entries\n"
      "                 9  HOST_GPU        pinned host-to-GPU copies only, no file data (reads)\n"
      "                10  CPU_PREAD       plain pread / pwrite of host memory\n"
      "  -I TYPE      0 read, 1 write, 2 random read, 3 random write (default 0)\n"
      "  -T SECONDS   threads loop until SECONDS (more than 0, may be a fraction) have passed;\n"
      "               without it each thread passes once over its share of the data set\n"
      "  --ramp SECONDS  with -T: the threads run that long first, uncounted, then -T SECONDS\n"
      "               counted (operations started from then on; the library's statistics and\n"
      "               the cores too): a steady state, past warm-ups such as page-cache windows\n"
      "               pinned from their second read\n"
      "  -Q DEPTH     operations in flight per thread: -x 5 1 to 1024 (default 4), -x 6 1 to 128\n"
      "               (default 128)\n"
      "  --rate IOPS  start at most IOPS operations a second over all threads, evenly spread\n"
      "               (1 to 1000000000): cores per operation compared at equal IOPS; -x 5\n"
      "               then waits for its oldest operation while the next is not due\n"
      "  --wait-when-full  with --rate and -x 5: wait for operations only when the -Q window\n"
      "               is full, as unpaced runs do (latencies then run until the window filled)\n"
      "  --event-every K  -x 5: record an event after every K-th operation (1 to 1024, default\n"
      "               1) and when waiting for one no event follows yet; a wait ends all the\n"
      "               operations its event follows (a caller that waits for batches)\n"
      "  --late-binding  -x 5: register the streams without the HIPFILE_STREAM_FIXED_* flags,\n"
      "               so hipFile reads each operation's size and offsets when its stream gets\n"
      "               there (a caller that may change them after submitting); the default\n"
      "               registers them fixed, as their values never change\n"
      "  -b           hipFileBufRegister the GPU buffers (-x 0 and 5; -x 6 always does)\n"
      "  -V           verify: each block read must hold the pattern of its file offset; each\n"
      "               block written carries that pattern and is read back\n"
      "  --fsync      write runs: fsync (and msync for -x 4) before the clock stops\n"
      "  --overwrite  let the run write FILE though it is not hipfile-bench's data set\n"
      "  --json       one JSON line instead of the result line (-x 5: with \"async_stages\",\n"
      "               where its operations' time went, docs/async.md, and \"async_ways\",\n"
      "               which way each went, docs/stats.md)\n"
      "  --stages     -x 5: print where its operations' time went and which way each went\n"
      "               after the result line\n"
      "  -h, --help   this text\n"
      "SIZE and IOSIZE are whole numbers of bytes with an optional K, M or G (powers of 1024).\n"
      "\n"
      "The data set: byte N of FILE holds a pattern of N, so -V can check any block.\n"
      "hipfile-bench writes FILE only where it is its own data set: a file it created, an\n"
      "empty file, or one whose marker still matches it. The marker is a file next to it,\n"
      "FILE%s, that records FILE's device, inode, size and modification time\n"
      "and how many of its first bytes hold the pattern. On any other file a write run, or a\n"
      "read run that would have to write it (FILE shorter than SIZE), stops with status 2\n"
      "unless --overwrite is given; a read run of a file long enough is fine. What it\n"
      "creates or writes, and how big, it says on stderr. A write run without -V writes\n"
      "offset 0's pattern into every block and the marker says so; a later -V read writes\n"
      "the pattern again first.\n"
      "\n"
      "The result line and --json name the GPU runtime in use (cuda, cpu or cpu-staged),\n"
      "and how much of the data set the page cache held as the run started (Cached:,\n"
      "cached_at_start): a cold run and a warm one of the same command differ widely.\n"
      "Where the library staged transfers, a line after the result line (--json:\n"
      "copy_waits) says how often they waited for its copies and how many of those waits\n"
      "slept past HIPFILE_COPY_SPIN_US, and the time spent polling and asleep.\n"
      "Exit status: 0 the run completed (and verified, with -V); 1 an operation or a\n"
      "verification failed; 2 a bad flag, or a file hipfile-bench will not write.\n",
      kDataSetName, kMarkerSuffix);
}

namespace {

// Prints "hipfile-bench: FLAG 'VALUE': WHAT" (FLAG alone for a flag without a value) as one line
// on stderr and returns kBad.
ParseResult Bad(const char* flag, const char* value, const char* what) {
  if (value == nullptr) {
    std::fprintf(stderr, "hipfile-bench: %s: %s\n", flag, what);
  } else {
    std::fprintf(stderr, "hipfile-bench: %s '%s': %s\n", flag, value, what);
  }
  return ParseResult::kBad;
}

// `text` as a whole number from `min` to `max`: an optional '-' and digits, nothing else (no
// spaces, no '+', no suffix).
bool ParseWhole(const char* text, long long min, long long max, long long* out) {
  const char* digits = text[0] == '-' ? text + 1 : text;
  if (!std::isdigit(static_cast<unsigned char>(digits[0]))) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (errno == ERANGE || *end != '\0' || v < min || v > max) return false;
  *out = v;
  return true;
}

bool ParseInt(const char* text, int min, int max, int* out) {
  long long v = 0;
  if (!ParseWhole(text, min, max, &v)) return false;
  *out = static_cast<int>(v);
  return true;
}

// `text` as a size: a whole number of bytes, at least 1, with an optional K, M or G (any case,
// powers of 1024) and nothing after it; at most 2^62 bytes, so offsets fit in off_t.
bool ParseSize(const char* text, uint64_t* out) {
  const size_t len = std::strlen(text);
  if (len == 0) return false;
  unsigned shift = 0;
  switch (text[len - 1]) {
    case 'k':
    case 'K':
      shift = 10;
      break;
    case 'm':
    case 'M':
      shift = 20;
      break;
    case 'g':
    case 'G':
      shift = 30;
      break;
    default:
      break;
  }
  const std::string number(text, shift != 0 ? len - 1 : len);
  long long v = 0;
  if (!ParseWhole(number.c_str(), 1, LLONG_MAX, &v)) return false;
  const uint64_t limit = 1ull << 62;
  if (static_cast<uint64_t>(v) > (limit >> shift)) return false;
  *out = static_cast<uint64_t>(v) << shift;
  return true;
}

// `text` as seconds: a decimal number more than 0 (a fraction is fine), nothing after it.
bool ParseSeconds(const char* text, double* out) {
  if (!std::isdigit(static_cast<unsigned char>(text[0])) && text[0] != '.') return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text, &end);
  if (errno == ERANGE || *end != '\0' || !std::isfinite(v) || v <= 0 || v > 1e9) return false;
  *out = v;
  return true;
}

// The checks that need every flag: which flags apply to the transfer type and I/O type chosen.
ParseResult CheckCombination(const Options& o, bool queue_given, const char* queue_text) {
  char what[160];
  if (queue_given && !IsQueued(o)) {
    std::snprintf(what, sizeof what, "applies to -x 5 and -x 6 only, and this run is -x %d",
                  o.xfer);
    return Bad("-Q", queue_text, what);
  }
  if (o.xfer == 6 && o.queue_depth > 128) {
    return Bad("-Q", queue_text, "-x 6 takes 1 to 128 (a batch holds at most 128 entries)");
  }
  if (o.register_buffers && !UsesHipFile(o)) {
    std::snprintf(what, sizeof what, "applies to -x 0, 5 and 6 (hipFile's paths), not -x %d",
                  o.xfer);
    return Bad("-b", nullptr, what);
  }
  if (o.wait_when_full && (o.xfer != 5 || o.rate == 0)) {
    std::snprintf(what, sizeof what, "applies to -x 5 with --rate, and this run is -x %d%s", o.xfer,
                  o.rate == 0 ? " without --rate" : "");
    return Bad("--wait-when-full", nullptr, what);
  }
  if (o.ramp > 0 && o.seconds == 0) {
    return Bad("--ramp", nullptr, "needs -T (a one-pass run has no steady state to ramp up to)");
  }
  if (o.event_every != 1 && o.xfer != 5) {
    std::snprintf(what, sizeof what, "applies to -x 5, and this run is -x %d", o.xfer);
    return Bad("--event-every", nullptr, what);
  }
  if (o.late_binding && o.xfer != 5) {
    std::snprintf(what, sizeof what, "applies to -x 5, and this run is -x %d", o.xfer);
    return Bad("--late-binding", nullptr, what);
  }
  if (o.fsync && !IsWrite(o)) {
    std::snprintf(what, sizeof what, "applies to write runs (-I 1 or 3), not -I %d", o.io_type);
    return Bad("--fsync", nullptr, what);
  }
  if (o.xfer == 9 && IsWrite(o)) {
    std::snprintf(what, sizeof what,
                  "copies host memory to the GPU only, so it takes -I 0 or 2, not -I %d",
                  o.io_type);
    return Bad("-x", "9", what);
  }
  if (o.xfer == 9 && o.verify) {
    return Bad("-V", nullptr, "-x 9 moves no file data, so there is nothing to verify");
  }
  return ParseResult::kRun;
}

}  // namespace

ParseResult ParseArgs(int argc, char** argv, Options* o) {
  std::string file;
  std::string dir;
  bool queue_given = false;
  std::string queue_text;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      PrintUsage(stdout);
      return ParseResult::kHelp;
    }
    if (a == "--json") {
      o->json = true;
      continue;
    }
    if (a == "--stages") {
      o->stages = true;
      continue;
    }
    if (a == "--fsync") {
      o->fsync = true;
      continue;
    }
    if (a == "--overwrite") {
      o->overwrite = true;
      continue;
    }
    if (a == "--wait-when-full") {
      o->wait_when_full = true;
      continue;
    }
    if (a == "--late-binding") {
      o->late_binding = true;
      continue;
    }
    if (a == "-V") {
      o->verify = true;
      continue;
    }
    if (a == "-b") {
      o->register_buffers = true;
      continue;
    }
    static const char* const kValued[] = {"-f",    "-D", "-d", "-w", "-s",     "-i",
                                          "-x",    "-I", "-T", "-Q", "--rate", "--event-every",
                                          "--ramp"};
    bool valued = false;
    for (const char* f : kValued) valued = valued || a == f;
    if (!valued) {
      if (a.empty() || a[0] != '-') {
        std::fprintf(stderr,
                     "hipfile-bench: unexpected argument '%s' (the file goes after -f; "
                     "hipfile-bench -h lists the flags)\n",
                     a.c_str());
      } else {
        std::fprintf(stderr, "hipfile-bench: unknown flag '%s' (hipfile-bench -h lists them)\n",
                     a.c_str());
      }
      return ParseResult::kBad;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "hipfile-bench: %s needs a value (hipfile-bench -h lists the flags)\n",
                   a.c_str());
      return ParseResult::kBad;
    }
    const char* v = argv[++i];
    const char* flag = a.c_str();
    if (a == "-f" || a == "-D") {
      if (*v == '\0') return Bad(flag, v, "needs a path");
      (a == "-f" ? file : dir) = v;
    } else if (a == "-d") {
      if (!ParseInt(v, 0, INT_MAX, &o->device)) return Bad(flag, v, "not a GPU number (0 or more)");
    } else if (a == "-w") {
      if (!ParseInt(v, 1, 4096, &o->threads)) {
        return Bad(flag, v, "not a thread count (a whole number from 1 to 4096)");
      }
    } else if (a == "-s" || a == "-i") {
      if (!ParseSize(v, a == "-s" ? &o->size : &o->io_size)) {
        return Bad(flag, v,
                   "not a size (a whole number of bytes, at least 1, with an optional K, M or G)");
      }
    } else if (a == "-x") {
      if (!ParseInt(v, 0, 10, &o->xfer) || XferName(o->xfer) == nullptr) {
        return Bad(flag, v, "not a transfer type (0, 1, 2, 4, 5, 6, 9 or 10)");
      }
    } else if (a == "-I") {
      if (!ParseInt(v, 0, 3, &o->io_type)) {
        return Bad(flag, v, "not an I/O type (0 read, 1 write, 2 random read, 3 random write)");
      }
    } else if (a == "-T") {
      if (!ParseSeconds(v, &o->seconds)) {
        return Bad(flag, v, "not a number of seconds more than 0");
      }
    } else if (a == "--ramp") {
      if (!ParseSeconds(v, &o->ramp)) {
        return Bad(flag, v, "not a number of seconds more than 0");
      }
    } else if (a == "--rate") {
      long long rate = 0;
      if (!ParseWhole(v, 1, 1000000000, &rate)) {
        return Bad(flag, v, "not a rate (a whole number of operations a second, 1 to 1000000000)");
      }
      o->rate = static_cast<double>(rate);
    } else if (a == "--event-every") {
      if (!ParseInt(v, 1, 1024, &o->event_every)) {
        return Bad(flag, v, "not a number of operations (a whole number from 1 to 1024)");
      }
    } else if (a == "-Q") {
      if (!ParseInt(v, 1, 1024, &o->queue_depth)) {
        return Bad(flag, v, "not a queue depth (a whole number from 1 to 1024)");
      }
      queue_given = true;
      queue_text = v;
    }
  }
  if (!file.empty() && !dir.empty()) {
    std::fprintf(stderr, "hipfile-bench: -f '%s' and -D '%s': give one of them\n", file.c_str(),
                 dir.c_str());
    return ParseResult::kBad;
  }
  if (file.empty() && dir.empty()) {
    std::fprintf(stderr,
                 "hipfile-bench: no data set: give -f FILE or -D DIR (hipfile-bench -h lists the "
                 "flags)\n");
    return ParseResult::kBad;
  }
  o->file = !file.empty() ? file : dir + "/" + kDataSetName;
  if (!queue_given) o->queue_depth = o->xfer == 6 ? 128 : 4;
  return CheckCombination(*o, queue_given, queue_text.c_str());
}

}  // namespace hipfile_bench
