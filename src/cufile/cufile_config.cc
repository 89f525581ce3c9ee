// SPDX-License-Identifier: MIT
// The drop-in reads cuFile's configuration as NVIDIA's library does: the file CUFILE_ENV_PATH_JSON
// names, else /etc/cufile.json when it exists - whenever HIPFILE_CONFIG (which wins) is unset.
// Its keys are cufile.json's (docs/config.md); libhipfile.so reads only HIPFILE_CONFIG.
#include "core/config.h"

namespace {

// Set when the library is loaded, before any call can read the configuration.
[[maybe_unused]] const bool kFallbackSet = [] {
  hipfile::core::SetConfigFallback({"CUFILE_ENV_PATH_JSON", "/etc/cufile.json"});
  return true;
}();

}  // namespace
