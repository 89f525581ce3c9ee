// SPDX-License-Identifier: MIT
// The drop-in reads the cufile.json that CUFILE_ENV_PATH_JSON names, as NVIDIA's library does,
// whenever HIPFILE_CONFIG (which wins) is unset; libhipfile.so reads only HIPFILE_CONFIG. Not
// /etc/cufile.json by default, as NVIDIA's does: the CUDA toolkit installs it with NVIDIA's
// defaults, which on the H200 cut this engine's staging and turned its statistics off for clients
// that never asked (docs/cufile.md).
#include "core/config.h"

namespace {

// Set when the library is loaded, before any call can read the configuration.
[[maybe_unused]] const bool kFallbackSet = [] {
  hipfile::core::SetConfigFallback({"CUFILE_ENV_PATH_JSON", nullptr});
  return true;
}();

}  // namespace
