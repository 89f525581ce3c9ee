// SPDX-License-Identifier: MIT
// hipfile-check [PATH...]: whether hipFile can do I/O on this machine, and how (docs/tools.md).
// Sees only the public headers and the installed library, as any program does.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "config_report.h"
#include "cufile_probe.h"
#include "fs_probe.h"
#include "gpu_report.h"
#include "io_uring_probe.h"
#include "mounts.h"
#include "options.h"
#include "output.h"
#include "read_path.h"

namespace hipfile_check {

namespace {

Report Gather(const Options& o) {
  Report r;
  ProbePlatform(&r.platform);
  if (o.bandwidth) ProbeBandwidth(&r.platform);
  r.io_uring = ProbeIoUring();
  r.cufile = ProbeCufile();
  r.config = ReadConfig();

  const bool compat_allowed =
      BoolParameter(r.config, "hipFileParamPropertiesAllowCompatMode", true);

  const std::vector<Mount> mounts = ReadMounts();
  r.paths_given = !o.paths.empty();
  if (r.paths_given) {
    for (const std::string& path : o.paths) r.paths.push_back(PathReport{path});
  } else {
    for (const Mount& m : MountsToProbe(mounts)) r.paths.push_back(PathReport{m.mount_point});
  }
  for (PathReport& p : r.paths) {
    ProbePath(mounts, &p);
    if (!p.exists || p.statfs_name.empty() || !p.error.empty()) continue;
    if (p.io_rule_known) {
      const ReadPath path = DescribeReadPath(p.io_rule);
      p.read_path = path.clauses;
      p.usable = path.usable;
    } else {
      // No file there to ask the library about: the compatibility path reads anything, and
      // host memory is never refused.
      p.read_path = {"unknown: the library was not asked (" + p.io_rule_error + ")"};
      p.usable = compat_allowed || r.platform.device_memory_is_host;
    }
  }
  return r;
}

}  // namespace

}  // namespace hipfile_check

int main(int argc, char** argv) {
  using namespace hipfile_check;
  Options o;
  switch (ParseArgs(argc, argv, &o)) {
    case ParseResult::kHelp:
      return 0;
    case ParseResult::kBad:
      return kExitUsage;
    case ParseResult::kRun:
      break;
  }
  if (o.quiet) {
    // No output at all: the library's own log lines (a bad HIPFILE_* value) go too.
    const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) {
      (void)dup2(null, STDOUT_FILENO);
      (void)dup2(null, STDERR_FILENO);
      close(null);
    }
  }
  const Report r = Gather(o);
  if (o.json) {
    PrintJson(r, stdout);
  } else if (!o.quiet) {
    PrintText(r, stdout);
  }
  return CanDoIo(r) ? kExitCanDoIo : kExitCannotDoIo;
}
