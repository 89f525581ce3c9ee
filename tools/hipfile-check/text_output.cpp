// SPDX-License-Identifier: MIT
// The text report: one section per subject, "name  value" lines, unknown facts said as such.
#include <string>

#include "output.h"

namespace hipfile_check {

namespace {

std::string Size(uint64_t bytes) {
  char s[64];
  std::snprintf(s, sizeof s, "%.1f GiB", static_cast<double>(bytes) / (1u << 30));
  return s;
}

void PrintGpu(const Gpu& g, bool bandwidth_asked, std::FILE* out) {
  std::fprintf(out, "  GPU %d          %s\n", g.index, g.name.c_str());
  if (!g.uuid.empty()) std::fprintf(out, "    uuid         %s\n", g.uuid.c_str());
  std::fprintf(out, "    memory       %s", Size(g.total_bytes).c_str());
  if (g.free_bytes) std::fprintf(out, " (%s free)", Size(*g.free_bytes).c_str());
  std::fprintf(out, "\n");
  if (g.compute_major) {
    std::fprintf(out, "    compute      %d.%d\n", *g.compute_major, g.compute_minor.value_or(0));
  }
  const PcieLink& l = g.pcie;
  std::fprintf(out, "    PCIe         ");
  if (!l.bus_id.empty()) std::fprintf(out, "%s ", l.bus_id.c_str());
  if (l.generation) {
    std::fprintf(out, "gen %d", *l.generation);
  } else {
    std::fprintf(out, "generation unknown");
  }
  if (l.width) {
    std::fprintf(out, " x%d", *l.width);
  } else {
    std::fprintf(out, ", width unknown");
  }
  if (!l.speed.empty()) std::fprintf(out, " (%s", l.speed.c_str());
  if (!l.max_speed.empty()) {
    std::fprintf(out, "; max %s x%d", l.max_speed.c_str(), l.max_width.value_or(0));
  }
  if (!l.speed.empty()) std::fprintf(out, ")");
  if (!l.note.empty()) std::fprintf(out, " (%s)", l.note.c_str());
  std::fprintf(out, "\n");
  if (bandwidth_asked) {
    const Bandwidth& b = g.bandwidth;
    if (b.ran) {
      std::fprintf(
          out, "    bandwidth    %.1f GiB/s best, %.1f GiB/s mean, %d copies of %llu MiB (%s)\n",
          b.best_gib_s, b.mean_gib_s, b.reps, static_cast<unsigned long long>(b.bytes >> 20),
          b.what.c_str());
    } else {
      std::fprintf(out, "    bandwidth    not measured: %s\n", b.error.c_str());
    }
  }
}

void PrintPath(const PathReport& p, std::FILE* out) {
  std::fprintf(out, "\n%s\n", p.path.c_str());
  if (!p.exists || p.statfs_name.empty()) {
    std::fprintf(out, "  cannot probe   %s\n", p.error.c_str());
    std::fprintf(out, "  usable         no\n");
    return;
  }
  std::fprintf(out, "  file system    %s (statfs 0x%llx)", p.statfs_name.c_str(),
               static_cast<unsigned long long>(p.statfs_magic));
  if (!p.mount_fstype.empty()) {
    std::fprintf(out, ", mount %s type %s from %s", p.mount_point.c_str(), p.mount_fstype.c_str(),
                 p.mount_source.c_str());
  }
  std::fprintf(out, "\n");
  if (!p.mount_options.empty()) std::fprintf(out, "  options        %s\n", p.mount_options.c_str());
  if (!p.error.empty()) std::fprintf(out, "  cannot probe   %s\n", p.error.c_str());
  if (!p.io_rule_error.empty()) std::fprintf(out, "  library rule   %s\n", p.io_rule_error.c_str());
  std::fprintf(out, "  O_DIRECT       %s: %s\n", TriName(p.o_direct), p.o_direct_detail.c_str());
  if (p.dio_mem_align) {
    std::fprintf(out, "  DIO alignment  memory %u, offset %u (statx STATX_DIOALIGN)\n",
                 *p.dio_mem_align, p.dio_offset_align.value_or(0));
  } else if (!p.dio_align_note.empty()) {
    std::fprintf(out, "  DIO alignment  %s\n", p.dio_align_note.c_str());
  }
  const char* label = "  read path      ";
  for (const std::string& c : p.read_path) {
    std::fprintf(out, "%s%s\n", label, c.c_str());
    label = "                 ";
  }
  std::fprintf(out, "  usable         %s\n", p.usable ? "yes" : "no");
}

}  // namespace

void PrintText(const Report& r, std::FILE* out) {
  const Platform& p = r.platform;
  std::fprintf(out, "library          hipfile %s\n", p.library_version.c_str());
  std::fprintf(out, "  built with     %s\n", FeaturesText(p.build_features).c_str());
  std::fprintf(out, "runtime          %s (%s)\n", p.runtime.c_str(), p.runtime_reason.c_str());
  std::fprintf(out, "driver           %s", p.driver_opened ? "opens" : "does not open");
  if (!p.driver_opened) std::fprintf(out, ": %s", p.driver_error.c_str());
  std::fprintf(out, "; HIP driver version %s, runtime version %s\n",
               p.hip_driver_version ? std::to_string(*p.hip_driver_version).c_str() : "unknown",
               p.hip_runtime_version ? std::to_string(*p.hip_runtime_version).c_str() : "unknown");
  if (!p.device_error.empty()) {
    std::fprintf(out, "GPUs             none usable: %s\n", p.device_error.c_str());
  } else {
    std::fprintf(out, "GPUs             %zu\n", p.gpus.size());
  }
  for (const Gpu& g : p.gpus) PrintGpu(g, p.bandwidth_asked, out);
  const IoUring& u = r.io_uring;
  std::fprintf(out, "io_uring         %s: %s\n", TriName(u.usable), u.reason.c_str());
  std::fprintf(out, "  sysctl         /proc/sys/kernel/io_uring_disabled %s\n",
               u.disabled_sysctl ? ("= " + std::to_string(*u.disabled_sysctl)).c_str()
                                 : "absent (a kernel without it)");
  std::fprintf(out, "  memlock        RLIMIT_MEMLOCK %s\n", u.memlock_note.c_str());
  if ((p.build_features & HIPFILE_EXT_FEATURE_IO_URING) == 0) {
    std::fprintf(out,
                 "  library        built without liburing: it never uses io_uring (batches run "
                 "pread/pwrite one after another)\n");
  }

  const Cufile& c = r.cufile;
  if (c.resolved.empty()) {
    std::fprintf(out, "cuFile           no libcufile.so.0 on the loader's path\n");
  } else {
    std::fprintf(out, "cuFile           libcufile.so.0 is %s (%s): %s\n", c.resolved.c_str(),
                 c.how.c_str(),
                 c.is_dropin == Tri::kYes
                     ? "hipfile's drop-in: cuFile programs run on this engine"
                     : "not hipfile's (NVIDIA's cuFile?): cuFile programs use it, not this engine");
  }
  if (c.installed.empty()) {
    std::fprintf(out, "  drop-in        not installed beside this libhipfile.so\n");
  } else {
    const std::string folder = c.installed.substr(0, c.installed.rfind('/'));
    std::fprintf(out, "  drop-in        %s (LD_LIBRARY_PATH=%s runs cuFile programs on it)\n",
                 c.installed.c_str(), folder.c_str());
  }

  for (const PathReport& pr : r.paths) PrintPath(pr, out);

  std::fprintf(out, "\nconfiguration\n");
  if (!r.config.config_file.empty()) {
    std::fprintf(out, "  config file    %s (HIPFILE_CONFIG)\n", r.config.config_file.c_str());
  }
  if (r.config.environment.empty()) {
    std::fprintf(out, "  environment    no HIPFILE_* variable set\n");
  }
  for (const EnvVar& v : r.config.environment) {
    std::fprintf(out, "  environment    %s=%s%s%s\n", v.name.c_str(), v.value.c_str(),
                 v.note.empty() ? "" : "  (", v.note.empty() ? "" : (v.note + ")").c_str());
  }
  for (const Parameter& q : r.config.parameters) {
    std::string source = SourceName(q.source);
    if (!q.source_detail.empty()) source += " (" + q.source_detail + ")";
    std::fprintf(out, "  %-48s %-8s %s\n", q.name.c_str(),
                 q.error.empty() ? (q.value.empty() ? "\"\"" : q.value.c_str()) : "?",
                 q.error.empty() ? source.c_str() : q.error.c_str());
  }
  const bool ok = CanDoIo(r);
  std::fprintf(out, "\n%s (exit %d)\n",
               ok ? "hipFile can do I/O here" : "hipFile cannot do I/O here", ok ? 0 : 1);
}

}  // namespace hipfile_check
