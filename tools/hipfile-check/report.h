// SPDX-License-Identifier: MIT
// What hipfile-check found, as plain data: the probes fill it, text_output.cpp and
// json_output.cpp print it, and the exit status is read from it (CanDoIo).
#pragma once

#include <hipfile_ext.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hipfile_check {

// Yes, no, or not known (a probe that could not run, a fact the runtime does not give).
enum class Tri { kYes, kNo, kUnknown };
const char* TriName(Tri t);  // "yes", "no", "unknown"

struct PcieLink {
  std::string bus_id;             // "0000:17:00.0"
  std::optional<int> generation;  // from current_link_speed: 16.0 GT/s is generation 4
  std::string speed;              // sysfs current_link_speed, e.g. "16.0 GT/s PCIe"
  std::optional<int> width;       // sysfs current_link_width
  std::string max_speed;          // sysfs max_link_speed
  std::optional<int> max_width;   // sysfs max_link_width
  std::string note;               // why something is unknown
};

struct Bandwidth {
  bool ran = false;
  std::string error;   // why it did not run
  uint64_t bytes = 0;  // per copy
  int reps = 0;
  double best_gib_s = 0;  // the fastest copy
  double mean_gib_s = 0;  // all copies
  std::string what;       // "pinned host to GPU over PCIe" or "host memcpy (CPU runtime)"
};

struct Gpu {
  int index = 0;
  std::string name;
  std::string uuid;  // 8-4-4-4-12 hex digits, as hipfile-stats prints it; empty when unknown
  uint64_t total_bytes = 0;
  std::optional<uint64_t> free_bytes;
  std::optional<int> compute_major, compute_minor;
  PcieLink pcie;
  Bandwidth bandwidth;
};

struct Platform {
  std::string library_version;  // hipFileGetVersion
  unsigned build_features = 0;  // hipFileExtBuildFeatures
  std::string runtime;          // hipFileExtRuntimeName
  std::string runtime_reason;   // hipFileExtRuntimeReason
  std::optional<int> hip_driver_version, hip_runtime_version;
  bool device_memory_is_host = false;  // the CPU runtime (not cpu-staged)
  std::string device_error;            // hipGetDeviceCount's error, if any
  std::vector<Gpu> gpus;
  bool driver_opened = false;
  std::string driver_error;  // hipFileDriverOpen's error
  bool bandwidth_asked = false;
};

// io_uring for this process (not per file system): io_uring_setup, the sysctl, RLIMIT_MEMLOCK.
struct IoUring {
  Tri usable = Tri::kUnknown;
  std::string setup_result;               // "ok" or the errno's name
  std::string reason;                     // one sentence
  std::optional<int> disabled_sysctl;     // /proc/sys/kernel/io_uring_disabled
  std::optional<uint64_t> memlock_bytes;  // RLIMIT_MEMLOCK soft limit; nullopt: unlimited
  std::string memlock_note;
};

// Which libcufile.so.0 a program started here would load (cufile_probe.h).
struct Cufile {
  std::string resolved;  // its path; "" when none is on the loader's path
  std::string how;       // "LD_LIBRARY_PATH", "/etc/ld.so.conf", "the loader's default folders"
  Tri is_dropin = Tri::kUnknown;  // hipfile's drop-in (docs/cufile.md)
  std::string installed;          // this installation's drop-in, when it is there
};

struct PathReport {
  std::string path;  // as given, or the mount point
  bool exists = true;
  std::string error;        // why it could not be probed at all
  std::string mount_point;  // from /proc/self/mountinfo
  std::string mount_source;
  std::string mount_fstype;   // mountinfo's type
  std::string mount_options;  // mountinfo's super options
  uint64_t statfs_magic = 0;  // statfs f_type
  std::string statfs_name;    // its name, "unknown" when not in our table
  Tri o_direct = Tri::kUnknown;
  std::string o_direct_detail;  // how it was found out, or why it could not be
  std::optional<uint32_t> dio_mem_align, dio_offset_align;  // statx STATX_DIOALIGN
  std::string dio_align_note;
  bool io_rule_known = false;
  hipFileExtIoRule_t io_rule = {};     // hipFileExtGetIoRule on a file here
  std::string io_rule_error;           // why the library could not be asked
  std::vector<std::string> read_path;  // the way a read of a file here would go, clause by clause
  bool usable = false;                 // a read into GPU memory has a way here
};

// Where a setting's value came from, as the library says (hipfile_ext.h's
// hipFileExtSettingSource_t).
enum class Source { kDefault, kEnvironment, kConfigFile, kApi };
const char* SourceName(Source s);  // hipFileExtSourceName: "default", "environment", "file", "api"

struct EnvVar {
  std::string name, value;
  bool known = false;  // a variable this library version reads (hipFileExtVariableName)
  Source source = Source::kDefault;  // hipFileExtGetVariableSource, for a known one
  std::string note;
};

struct Parameter {
  std::string name;  // "hipFileParamProfileStats"
  std::string type;  // "size_t", "bool", "string"
  std::string value;
  std::string error;  // the getter's error, if it failed
  Source source = Source::kDefault;
  std::string source_variable;  // the HIPFILE_* variable behind it, if any
  std::string source_detail;    // beside the source: the variable, "HIPFILE_CONFIG", "X unset"
};

struct Config {
  std::vector<EnvVar> environment;
  std::vector<Parameter> parameters;
  std::string config_file;  // HIPFILE_CONFIG, when set
};

struct Report {
  Platform platform;
  IoUring io_uring;
  Cufile cufile;
  std::vector<PathReport> paths;
  bool paths_given = false;
  Config config;
};

// The names of hipFileExtBuildFeatures' bits that are set ("io_uring", "nvtx", "config_file"),
// and all of them in words: "io_uring, no nvtx, config_file (hipFileExtBuildFeatures)".
std::vector<std::string> FeatureNames(unsigned features);
std::string FeaturesText(unsigned features);

// The exit status's question: the driver opens, and every PATH given (without PATHs, at least
// one mount) has a way to read into GPU memory.
bool CanDoIo(const Report& r);

}  // namespace hipfile_check
