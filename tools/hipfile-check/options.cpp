// SPDX-License-Identifier: MIT
#include "options.h"

#include <cstring>

namespace hipfile_check {

void PrintUsage(std::FILE* out) {
  std::fputs(
      "usage: hipfile-check [-q | --json] [--bandwidth] [--] [PATH...]\n"
      "What hipFile can do on this machine, like gdscheck -p and ais-check: the library's\n"
      "version, the GPU runtime and why it was chosen, each GPU (name, memory, PCIe link), the\n"
      "driver, io_uring, and for each mount (or each PATH given) its file system, whether\n"
      "O_DIRECT works there, its O_DIRECT alignment and the way a read of a file there would\n"
      "go; then the configuration in force (every HIPFILE_* variable and every parameter, with\n"
      "where its value came from).\n"
      "\n"
      "  PATH         a file or directory to probe; without any, every mount of a file system\n"
      "               that holds files (proc, sysfs, cgroup and the like are skipped). A\n"
      "               directory is probed with a file created in it with O_DIRECT and removed;\n"
      "               a read-only one through a file already there, read only.\n"
      "  -q, --quiet  print nothing; the exit status says it all\n"
      "  --json       one JSON object on stdout instead of the text report\n"
      "  --bandwidth  also time a short copy of pinned host memory to each GPU (256 MiB, 5\n"
      "               times); on the CPU runtime it is a host memcpy, not a PCIe link\n"
      "  -h, --help   this text\n"
      "\n"
      "Exit status: 0 when the library can do I/O here (the driver opens, and every PATH given -\n"
      "without PATHs, at least one mount - has a way to read into GPU memory); 1 otherwise; 2 for\n"
      "a usage error (one line on stderr naming the flag).\n",
      out);
}

ParseResult ParseArgs(int argc, char** argv, Options* o) {
  bool flags_done = false;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    if (flags_done || arg[0] != '-' || std::strcmp(arg, "-") == 0) {
      o->paths.emplace_back(arg);
    } else if (std::strcmp(arg, "--") == 0) {
      flags_done = true;
    } else if (std::strcmp(arg, "-h") == 0 || std::strcmp(arg, "--help") == 0) {
      PrintUsage(stdout);
      return ParseResult::kHelp;
    } else if (std::strcmp(arg, "-q") == 0 || std::strcmp(arg, "--quiet") == 0) {
      o->quiet = true;
    } else if (std::strcmp(arg, "--json") == 0) {
      o->json = true;
    } else if (std::strcmp(arg, "--bandwidth") == 0) {
      o->bandwidth = true;
    } else {
      std::fprintf(stderr, "hipfile-check: unknown flag '%s' (hipfile-check -h lists them)\n", arg);
      return ParseResult::kBad;
    }
  }
  if (o->quiet && o->json) {
    std::fprintf(stderr, "hipfile-check: -q and --json: give one (-q prints nothing)\n");
    return ParseResult::kBad;
  }
  return ParseResult::kRun;
}

}  // namespace hipfile_check
