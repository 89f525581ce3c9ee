// SPDX-License-Identifier: MIT
// hipfile-stats: the statistics of a program using hipFile, as AMD's ais-stats reports them.
//
//   hipfile-stats [--json] [--watch SECONDS] [-o FILE] PROGRAM [ARGS...]   run, report at exit
//   hipfile-stats [--json] [--watch SECONDS] [-o FILE] -p PID [-i]         attach; -i: now
//
// Every process of the library publishes its counters in a memory file (docs/stats.md, "Reading
// another process"); this tool maps it with hipFileExtStatsOpen. A program it runs inherits a
// region the tool made (HIPFILE_STATS_FD), so the final counters are read after the program exited.
#include <errno.h>
#include <fcntl.h>
#include <hipfile.h>
#include <hipfile_ext.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "report.h"

namespace {

constexpr int kUsageError = 2;
constexpr int kCannotRun = 127;

const char kUsage[] =
    "usage: hipfile-stats [--json] [--watch SECONDS] [-o FILE] PROGRAM [ARGS...]\n"
    "       hipfile-stats [--json] [--watch SECONDS] [-o FILE] -p PID [-i]\n"
    "Reports the hipFile statistics of a program: ais-stats' V1 report, then bytes by path.\n"
    "  PROGRAM [ARGS...]  run it (environment passed) and report when it exits\n"
    "  -p PID             attach to a running process and report when it exits\n"
    "  -i                 with -p: report now and exit\n"
    "  -o FILE            write the report to FILE (created or truncated) instead of stdout, so\n"
    "                     that it stays apart from what the program prints\n"
    "  --json             one JSON object: pid, read_bytes, write_bytes, read_ops, write_ops,\n"
    "                     errors, paths {NAME: {read_bytes, write_bytes, ops}}, latency, gpus\n"
    "  --watch SECONDS    every SECONDS while it runs, a line of rates (GiB/s, IOPS, per path);\n"
    "                     on stderr with --json\n"
    "  -h, --help         this text\n"
    "Exit status: PROGRAM's (128+N for signal N); 127 when PROGRAM cannot be run; with -p 0, or 1\n"
    "when there is no such process or it publishes no statistics (it has not used hipFile; at\n"
    "HIPFILE_STATS_LEVEL=0 it publishes level 0 and zeros); 1 when -o FILE cannot be opened\n"
    "(nothing is run); 2 for a usage error.\n";

struct Options {
  bool json = false;
  bool now = false;
  double watch = 0;  // seconds; 0: no rates
  int pid = 0;
  const char* output = nullptr;  // -o FILE; null: stdout
  char** program = nullptr;      // argv from PROGRAM on
};

[[noreturn]] void UsageError(const std::string& line) {
  std::fprintf(stderr, "hipfile-stats: %s\n", line.c_str());
  std::exit(kUsageError);
}

int ParsePid(const char* text) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || errno != 0 || v <= 0 || v > 0x3fffffff) {
    UsageError(std::string("-p '") + text + "': not a process id");
  }
  return static_cast<int>(v);
}

double ParseSeconds(const char* text) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text, &end);
  if (*text == '\0' || *end != '\0' || errno != 0 || !(v >= 0.01) || v > 86400) {
    UsageError(std::string("--watch '") + text + "': not a number of seconds (0.01 to 86400)");
  }
  return v;
}

Options Parse(int argc, char** argv) {
  Options o;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (arg == "--json") {
      o.json = true;
    } else if (arg == "-i") {
      o.now = true;
    } else if (arg == "-p" || arg == "--watch" || arg == "-o") {
      if (i + 1 >= argc) UsageError(arg + " needs a value");
      if (arg == "-p") {
        o.pid = ParsePid(argv[++i]);
      } else if (arg == "-o") {
        o.output = argv[++i];
        if (*o.output == '\0') UsageError("-o '': not a file name");
      } else {
        o.watch = ParseSeconds(argv[++i]);
      }
    } else {
      UsageError("unknown flag '" + arg + "'");
    }
  }
  if (o.pid != 0 && i < argc) {
    UsageError(std::string("unexpected argument '") + argv[i] + "': give -p PID or PROGRAM");
  }
  if (o.pid == 0 && i >= argc) UsageError("no program: give PROGRAM [ARGS...] or -p PID");
  if (o.now && o.pid == 0) UsageError("-i: applies to -p PID only");
  if (o.now && o.watch > 0) UsageError("--watch: -i reports once");
  if (o.pid == 0) o.program = argv + i;
  return o;
}

bool Read(const hipFileExtStatsRegion_t* region, hipFileExtProcessStats_t* out) {
  return hipFileExtStatsRead(region, out).err == hipFileSuccess;
}

// The whole snapshot a report prints.
bool Read(const hipFileExtStatsRegion_t* region, hipfile_stats::Snapshot* out) {
  if (!Read(region, &out->process)) return false;
  if (hipFileExtStatsReadLatency(region, &out->latency).err != hipFileSuccess) return false;
  for (int gpu = 0; gpu < HIPFILE_MAX_GPUS; ++gpu) {
    if (hipFileExtStatsReadGpu(region, gpu, &out->gpus[gpu]).err != hipFileSuccess) return false;
  }
  if (hipFileExtStatsReadAsyncWays(region, &out->async_ways).err != hipFileSuccess) return false;
  return hipFileExtStatsReadCopyWaits(region, &out->copy_waits).err == hipFileSuccess;
}

// Where the report goes: stdout, or -o FILE, opened before anything runs.
std::FILE* report_out = stdout;

// The report; false (and a line on stderr) when it could not be written.
bool Report(const Options& o, const hipfile_stats::Snapshot& s) {
  if (o.json) {
    hipfile_stats::PrintJson(report_out, s);
  } else {
    hipfile_stats::PrintText(report_out, s);
  }
  const bool ok = std::fflush(report_out) == 0 && !std::ferror(report_out);
  if (!ok) {
    std::fprintf(stderr, "hipfile-stats: cannot write the report to %s: %s\n",
                 o.output == nullptr ? "stdout" : o.output, std::strerror(errno));
  }
  return ok;
}

// Waits until `done` says the process ended, printing rates every o.watch seconds.
template <class Done>
void WaitWatching(const Options& o, const hipFileExtStatsRegion_t* region, Done done) {
  const auto start = std::chrono::steady_clock::now();
  hipFileExtProcessStats_t before = {};
  if (region != nullptr) (void)Read(region, &before);
  auto last = start;
  while (!done(o.watch > 0 ? static_cast<int>(o.watch * 1000) : -1)) {
    const auto now = std::chrono::steady_clock::now();
    hipFileExtProcessStats_t current = {};
    if (region == nullptr || !Read(region, &current)) continue;
    hipfile_stats::PrintRates(o.json ? stderr : stdout, before, current,
                              std::chrono::duration<double>(now - last).count(),
                              std::chrono::duration<double>(now - start).count());
    before = current;
    last = now;
  }
}

int RunProgram(const Options& o) {
  int region_fd = -1;
  if (hipFileExtStatsRegionCreate(&region_fd).err != hipFileSuccess) {
    std::fprintf(stderr, "hipfile-stats: cannot make a statistics region: %s\n",
                 std::strerror(errno));
    return 1;
  }
  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "hipfile-stats: pipe: %s\n", std::strerror(errno));
    return 1;
  }
  const pid_t child = fork();
  if (child < 0) {
    std::fprintf(stderr, "hipfile-stats: fork: %s\n", std::strerror(errno));
    return 1;
  }
  if (child == 0) {
    // The program inherits the region; its library publishes there (core/stats_region.h).
    fcntl(region_fd, F_SETFD, 0);
    setenv("HIPFILE_STATS_FD", std::to_string(region_fd).c_str(), 1);
    execvp(o.program[0], o.program);
    const int e = errno;
    (void)!write(exec_pipe[1], &e, sizeof e);
    _exit(kCannotRun);
  }
  close(exec_pipe[1]);
  // Like system(): ^C and ^\ are the program's to act on; the report follows its end.
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  int exec_errno = 0;
  ssize_t got;
  do {
    got = read(exec_pipe[0], &exec_errno, sizeof exec_errno);
  } while (got < 0 && errno == EINTR);
  close(exec_pipe[0]);
  if (got == sizeof exec_errno) {
    std::fprintf(stderr, "hipfile-stats: cannot run '%s': %s\n", o.program[0],
                 std::strerror(exec_errno));
    waitpid(child, nullptr, 0);
    return kCannotRun;
  }

  hipFileExtStatsRegion_t* region = nullptr;
  if (hipFileExtStatsOpen(0, region_fd, &region).err != hipFileSuccess) region = nullptr;
  int status = 0;
  WaitWatching(o, region, [&](int timeout_ms) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      const pid_t r = waitpid(child, &status, timeout_ms < 0 ? 0 : WNOHANG);
      if (r == child) return true;
      if (r < 0 && errno != EINTR) return true;
      if (timeout_ms >= 0) {
        if (std::chrono::steady_clock::now() >= until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
  });
  static hipfile_stats::Snapshot s;  // large: not on the stack
  if (region == nullptr || !Read(region, &s)) {
    std::fprintf(stderr, "hipfile-stats: cannot read the statistics region\n");
  }
  if (s.process.pid == 0) {
    std::fprintf(stderr, "hipfile-stats: '%s' published no statistics (it did not use hipFile)\n",
                 o.program[0]);
    s.process.pid = child;
  }
  (void)Report(o, s);  // the exit status stays the program's
  hipFileExtStatsClose(region);
  close(region_fd);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// True once process `pid` has exited, waiting up to timeout_ms (-1: until then).
bool ProcessEnded(int pidfd, int pid, int timeout_ms) {
  if (pidfd >= 0) {
    struct pollfd p = {pidfd, POLLIN, 0};
    const int r = poll(&p, 1, timeout_ms);
    return r > 0 || (r < 0 && errno != EINTR);
  }
  // No pidfd_open (Linux before 5.3): poll the process's existence.
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    if (timeout_ms >= 0 && std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int Attach(const Options& o) {
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, o.pid, 0));
  hipFileExtStatsRegion_t* region = nullptr;
  // Without -i, a process that has not published yet (its first hipFile call is still to come) is
  // waited for, as ais-stats waits to connect.
  for (;;) {
    if (hipFileExtStatsOpen(o.pid, -1, &region).err == hipFileSuccess) break;
    const int e = errno;
    if (e == ESRCH) {
      std::fprintf(stderr, "hipfile-stats: -p %d: no such process\n", o.pid);
      return 1;
    }
    if (o.now || e != ENOENT || ProcessEnded(pidfd, o.pid, 100)) {
      std::fprintf(stderr, "hipfile-stats: -p %d: no statistics: %s\n", o.pid,
                   e == ENOENT   ? "it publishes none (it has not used hipFile)"
                   : e == EPROTO ? "its statistics have another layout (another version of "
                                   "the library than this tool's)"
                                 : std::strerror(e));
      return 1;
    }
  }
  if (!o.now) {
    WaitWatching(o, region, [&](int timeout_ms) { return ProcessEnded(pidfd, o.pid, timeout_ms); });
  }
  // The mapping outlives the process: these are its final counters.
  static hipfile_stats::Snapshot s;  // large: not on the stack
  const bool ok = Read(region, &s);
  hipFileExtStatsClose(region);
  if (pidfd >= 0) close(pidfd);
  if (!ok) return 1;
  return Report(o, s) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  if (o.output != nullptr) {
    // close-on-exec: the program does not inherit it.
    report_out = std::fopen(o.output, "we");
    if (report_out == nullptr) {
      std::fprintf(stderr, "hipfile-stats: -o '%s': %s\n", o.output, std::strerror(errno));
      return 1;
    }
  }
  return o.pid != 0 ? Attach(o) : RunProgram(o);
}
