// SPDX-License-Identifier: MIT
// Which libcufile.so.0 a program started from this environment would load, and whether it is
// hipfile's drop-in (docs/cufile.md): LD_LIBRARY_PATH's folders, then those /etc/ld.so.conf names
// (its `include` globs followed), then the loader's default folders - the dynamic loader's
// order for a program without a run path. A file is the drop-in when it holds the line the
// drop-in logs ("cuFile calls answered by hipfile's drop-in"). The lookup is a pure function of
// the folders and a file test, so a unit test can give it any layout.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "report.h"

namespace hipfile_check {

// What a file found under the name libcufile.so.0 is.
enum class CufileKind { kDropIn, kOther };

struct CufileFacts {
  std::string ld_library_path;            // the variable's value ("" when unset)
  std::vector<std::string> conf_folders;  // from /etc/ld.so.conf, in order
  std::vector<std::string> default_folders;
  std::string installed;  // this installation's drop-in, if the file exists ("" otherwise)
};

// The first folder holding libcufile.so.0, in the loader's order; `exists` tests a path,
// `kind` tells what the file found is.
Cufile LookUpCufile(const CufileFacts& facts, const std::function<bool(const std::string&)>& exists,
                    const std::function<CufileKind(const std::string&)>& kind);

// The folders /etc/ld.so.conf (or `conf`) names, `include` lines' globs followed (relative ones
// against the file's folder), each folder once, in order.
std::vector<std::string> ReadLdSoConf(const std::string& conf = "/etc/ld.so.conf");

// Looks at this process's environment and files.
Cufile ProbeCufile();

}  // namespace hipfile_check
