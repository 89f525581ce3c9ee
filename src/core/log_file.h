// SPDX-License-Identifier: MIT
// The log file: where the logger's lines go (util/log.h), chosen by two string parameters whose
// defaults come from the configuration: hipFileParamEnvLogfilePath (HIPFILE_LOGFILE_PATH), a
// file, and hipFileParamLogDir (the configuration file's logging.dir), a directory in which the
// file is hipfile_<pid>.log, as cuFile writes cufile_<pid>.log there. The path wins over the
// directory; neither: stderr.
//
// The file is opened for appending (O_APPEND, so lines of several processes sharing one file stay
// whole) and created with mode 0600, since lines name the files a program reads and writes. A file
// that cannot be opened is said once per path on stderr, and lines keep going where they went;
// nothing fails because of it.
#pragma once

#include <string>

#include "platform/sys.h"

namespace hipfile::core {

// The log file for these parameter values: logfile_path if not empty, else
// <log_dir>/hipfile_<pid>.log if log_dir is not empty, else "" (stderr).
std::string LogFilePathFor(const std::string& logfile_path, const std::string& log_dir, int pid);

// Points the process's log at `path` ("" = stderr), opening it through sys unless it is the file
// in use already. Returns whether lines now go where `path` says. Thread-safe.
bool UseLogFile(platform::Sys& sys, const std::string& path);

}  // namespace hipfile::core
