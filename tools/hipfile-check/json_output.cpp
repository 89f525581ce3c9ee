// SPDX-License-Identifier: MIT
// --json: one object, keys in a fixed order; a fact not known is null, never a guess.
#include <nlohmann/json.hpp>

#include "output.h"

namespace hipfile_check {

namespace {

using Json = nlohmann::ordered_json;

template <class T>
Json OrNull(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json OrNull(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

Json TriJson(Tri t) { return t == Tri::kUnknown ? Json(nullptr) : Json(t == Tri::kYes); }

Json GpuJson(const Gpu& g, bool bandwidth_asked) {
  Json j;
  j["index"] = g.index;
  j["name"] = g.name;
  j["uuid"] = OrNull(g.uuid);
  j["total_memory_bytes"] = g.total_bytes;
  j["free_memory_bytes"] = OrNull(g.free_bytes);
  j["compute_capability"] = g.compute_major ? Json(std::to_string(*g.compute_major) + "." +
                                                   std::to_string(g.compute_minor.value_or(0)))
                                            : Json(nullptr);
  Json pcie;
  pcie["bus_id"] = OrNull(g.pcie.bus_id);
  pcie["generation"] = OrNull(g.pcie.generation);
  pcie["link_speed"] = OrNull(g.pcie.speed);
  pcie["link_width"] = OrNull(g.pcie.width);
  pcie["max_link_speed"] = OrNull(g.pcie.max_speed);
  pcie["max_link_width"] = OrNull(g.pcie.max_width);
  pcie["note"] = OrNull(g.pcie.note);
  j["pcie"] = pcie;
  if (bandwidth_asked) {
    const Bandwidth& b = g.bandwidth;
    Json bw;
    bw["what"] = b.what;
    bw["ran"] = b.ran;
    bw["error"] = OrNull(b.error);
    bw["bytes_per_copy"] = b.bytes;
    bw["copies"] = b.reps;
    bw["best_gib_per_s"] = b.ran ? Json(b.best_gib_s) : Json(nullptr);
    bw["mean_gib_per_s"] = b.ran ? Json(b.mean_gib_s) : Json(nullptr);
    j["bandwidth"] = bw;
  }
  return j;
}

Json PathJson(const PathReport& p) {
  Json j;
  j["path"] = p.path;
  j["exists"] = p.exists;
  j["error"] = OrNull(p.error);
  j["mount_point"] = OrNull(p.mount_point);
  j["mount_source"] = OrNull(p.mount_source);
  j["mount_fstype"] = OrNull(p.mount_fstype);
  j["mount_options"] = OrNull(p.mount_options);
  if (p.statfs_magic != 0) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(p.statfs_magic));
    j["statfs_type"] = hex;
  } else {
    j["statfs_type"] = nullptr;
  }
  j["statfs_name"] = OrNull(p.statfs_name);
  j["o_direct"] = TriJson(p.o_direct);
  j["o_direct_detail"] = OrNull(p.o_direct_detail);
  j["dio_mem_align"] = OrNull(p.dio_mem_align);
  j["dio_offset_align"] = OrNull(p.dio_offset_align);
  j["dio_align_note"] = OrNull(p.dio_align_note);
  j["read_path"] = p.read_path;
  if (p.io_rule_known) {
    const hipFileExtIoRule_t& r = p.io_rule;
    Json rule;
    rule["o_direct"] = r.o_direct != 0;
    rule["staged"] = r.staged != 0;
    rule["compat_allowed"] = r.compat_allowed != 0;
    rule["page_cache"] = r.page_cache != 0;
    rule["pin_after"] = r.pin_after;
    rule["io_uring"] = r.io_uring != 0;
    rule["residency_min_bytes"] = r.residency_min_bytes;
    rule["grouped_max_bytes"] = r.grouped_max_bytes;
    Json ways;
    for (int c = 0; c < HIPFILE_EXT_IO_CASE_COUNT; ++c) {
      const hipFileExtIoWay_t& w = r.ways[c];
      ways[hipFileExtIoCaseName(c)] = {{"path", hipFileExtPathName(w.path)},
                                       {"fallback", hipFileExtFallbackName(w.fallback)},
                                       {"o_direct", w.o_direct != 0},
                                       {"refused", w.refused != 0}};
    }
    rule["ways"] = ways;
    j["io_rule"] = rule;
  } else {
    j["io_rule"] = nullptr;
  }
  j["io_rule_error"] = OrNull(p.io_rule_error);
  j["usable"] = p.usable;
  return j;
}

}  // namespace

void PrintJson(const Report& r, std::FILE* out) {
  const Platform& p = r.platform;
  Json j;
  j["hipfile_check_format"] = 1;
  j["can_do_io"] = CanDoIo(r);
  j["library"] = {{"version", p.library_version},
                  {"build_features", FeatureNames(p.build_features)}};
  j["runtime"] = {{"name", p.runtime},
                  {"reason", p.runtime_reason},
                  {"device_memory_is_host_memory", p.device_memory_is_host}};
  j["driver"] = {{"opened", p.driver_opened},
                 {"error", OrNull(p.driver_error)},
                 {"hip_driver_version", OrNull(p.hip_driver_version)},
                 {"hip_runtime_version", OrNull(p.hip_runtime_version)}};
  Json gpus = Json::array();
  for (const Gpu& g : p.gpus) gpus.push_back(GpuJson(g, p.bandwidth_asked));
  j["gpus"] = gpus;
  j["gpu_error"] = OrNull(p.device_error);
  const IoUring& u = r.io_uring;
  j["io_uring"] = {{"usable", TriJson(u.usable)},
                   {"setup", u.setup_result},
                   {"reason", u.reason},
                   {"io_uring_disabled", OrNull(u.disabled_sysctl)},
                   {"memlock_limit_bytes", OrNull(u.memlock_bytes)},
                   {"memlock", u.memlock_note}};
  j["cufile"] = {{"resolved", OrNull(r.cufile.resolved)},
                 {"how", OrNull(r.cufile.how)},
                 {"is_dropin", TriJson(r.cufile.is_dropin)},
                 {"installed", OrNull(r.cufile.installed)}};
  j["paths_given"] = r.paths_given;
  Json paths = Json::array();
  for (const PathReport& pr : r.paths) paths.push_back(PathJson(pr));
  j["paths"] = paths;
  Json env = Json::array();
  for (const EnvVar& v : r.config.environment) {
    env.push_back({{"name", v.name},
                   {"value", v.value},
                   {"known", v.known},
                   {"source", v.known ? Json(SourceName(v.source)) : Json(nullptr)},
                   {"note", OrNull(v.note)}});
  }
  Json params = Json::array();
  for (const Parameter& q : r.config.parameters) {
    Json pj;
    pj["name"] = q.name;
    pj["type"] = q.type;
    if (!q.error.empty()) {
      pj["value"] = nullptr;
    } else if (q.type == "size_t") {
      pj["value"] = std::stoull(q.value);
    } else if (q.type == "bool") {
      pj["value"] = q.value == "true";
    } else {
      pj["value"] = q.value;
    }
    pj["error"] = OrNull(q.error);
    pj["source"] = SourceName(q.source);
    pj["variable"] = OrNull(q.source_variable);
    params.push_back(pj);
  }
  j["config"] = {
      {"config_file", OrNull(r.config.config_file)}, {"environment", env}, {"parameters", params}};
  std::fprintf(out, "%s\n", j.dump(2).c_str());
}

}  // namespace hipfile_check
