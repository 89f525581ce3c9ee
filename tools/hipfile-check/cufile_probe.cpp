// SPDX-License-Identifier: MIT
#include "cufile_probe.h"

#include <dlfcn.h>
#include <glob.h>
#include <hipfile.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace hipfile_check {

namespace {

constexpr const char* kName = "libcufile.so.0";
// The drop-in's own log line (src/cufile/announce.cc); no other library holds it.
constexpr const char* kMarker = "cuFile calls answered by hipfile's drop-in";

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

void ReadConf(const std::string& conf, int depth, std::vector<std::string>* out) {
  if (depth > 8) return;  // an include loop
  std::ifstream in(conf);
  std::string line;
  while (std::getline(in, line)) {
    line = Trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    if (line.rfind("include", 0) == 0 && line.size() > 7 && (line[7] == ' ' || line[7] == '\t')) {
      std::string pattern = Trim(line.substr(8));
      if (!pattern.empty() && pattern[0] != '/') pattern = Dirname(conf) + "/" + pattern;
      glob_t g{};
      if (glob(pattern.c_str(), 0, nullptr, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; ++i) ReadConf(g.gl_pathv[i], depth + 1, out);
      }
      globfree(&g);
      continue;
    }
    if (line[0] != '/') continue;  // hwcap lines and the like
    if (std::find(out->begin(), out->end(), line) == out->end()) out->push_back(line);
  }
}

bool IsFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

CufileKind KindOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str().find(kMarker) != std::string::npos ? CufileKind::kDropIn : CufileKind::kOther;
}

// <libdir>/hipfile-cufile/libcufile.so.0 beside the libhipfile.so this process loaded.
std::string InstalledDropIn() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&hipFileDriverOpen), &info) == 0 ||
      info.dli_fname == nullptr) {
    return "";
  }
  // The loader names it as the run path found it ("<prefix>/bin/../lib/..."): say it plainly.
  std::string dir = Dirname(info.dli_fname);
  if (char* real = realpath(dir.c_str(), nullptr)) {
    dir = real;
    std::free(real);
  }
  const std::string path = dir + "/hipfile-cufile/" + kName;
  return IsFile(path) ? path : "";
}

}  // namespace

std::vector<std::string> ReadLdSoConf(const std::string& conf) {
  std::vector<std::string> out;
  ReadConf(conf, 0, &out);
  return out;
}

Cufile LookUpCufile(const CufileFacts& facts, const std::function<bool(const std::string&)>& exists,
                    const std::function<CufileKind(const std::string&)>& kind) {
  Cufile c;
  c.installed = facts.installed;
  auto try_folder = [&](const std::string& folder, const std::string& how) {
    if (folder.empty() || !c.resolved.empty()) return;
    const std::string path = (folder == "/" ? "" : folder) + "/" + kName;
    if (!exists(path)) return;
    c.resolved = path;
    c.how = how;
    c.is_dropin = kind(path) == CufileKind::kDropIn ? Tri::kYes : Tri::kNo;
  };
  std::string folder;
  std::istringstream ld(facts.ld_library_path);
  while (std::getline(ld, folder, ':')) try_folder(folder, "LD_LIBRARY_PATH");
  for (const std::string& f : facts.conf_folders) try_folder(f, "/etc/ld.so.conf");
  for (const std::string& f : facts.default_folders) try_folder(f, "the loader's default folders");
  if (c.resolved.empty()) c.is_dropin = Tri::kNo;
  return c;
}

Cufile ProbeCufile() {
  CufileFacts facts;
  const char* ld = std::getenv("LD_LIBRARY_PATH");
  facts.ld_library_path = ld != nullptr ? ld : "";
  facts.conf_folders = ReadLdSoConf();
  facts.default_folders = {"/lib/x86_64-linux-gnu",
                           "/usr/lib/x86_64-linux-gnu",
                           "/lib64",
                           "/usr/lib64",
                           "/lib",
                           "/usr/lib"};
  facts.installed = InstalledDropIn();
  return LookUpCufile(facts, IsFile, KindOf);
}

}  // namespace hipfile_check
