// SPDX-License-Identifier: MIT
// The configuration file HIPFILE_CONFIG names: JSON with the keys of cuFile's cufile.json that
// have a meaning here (docs/config.md lists them), so that a cufile.json can be brought as it is
// (its // comments included). Read once with the environment (core/config.h), under it: a
// variable that is set wins over the file's key for the same setting.
//
// Nothing is ignored silently: a file that cannot be read or is not JSON, an unknown key and a bad
// value are each one error line naming the file and the key, listed in Config::problems; the rest
// of the file still applies (a file that is not JSON applies nothing). The driver opens all the
// same, as with a bad environment variable. A key cuFile has that means nothing here (RDMA, the
// nvidia-fs driver, file-system sections) is a note, said at info level, never an error.
#pragma once

#include <string>

#include "core/config.h"
#include "platform/sys.h"

namespace hipfile::core {

// Whether this build reads configuration files (nlohmann-json was found when it was built).
bool ConfigFileSupported();

// Applies the document `text` (read from `path`, named in the lines) to *config. Problems are
// logged at error level and appended to config->problems; notes only appended to config->notes
// (ProcessConfig says them once the log threshold and file are in place).
void ApplyConfigText(const std::string& text, const std::string& path, Config* config);

// Reads `path` through sys and applies it; a file that cannot be read is a problem.
void ApplyConfigFile(platform::Sys& sys, const std::string& path, Config* config);

}  // namespace hipfile::core
