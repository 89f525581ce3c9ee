// SPDX-License-Identifier: MIT
#include "cufile/announce.h"

#include <dlfcn.h>
#include <hipfile.h>
#include <hipfile_ext.h>

#include <mutex>

#include "util/log.h"

namespace hipfile::cufile {

void AnnounceOnce() {
  // Called at every registration: only the first call looks itself up and logs.
  static std::once_flag once;
  std::call_once(once, [] {
    Dl_info info{};
    const char* path =
        dladdr(reinterpret_cast<void*>(&AnnounceOnce), &info) != 0 && info.dli_fname != nullptr
            ? info.dli_fname
            : "(unknown path)";
    HF_LOG_ONCE(kInfo,
                "cuFile calls answered by hipfile's drop-in %s (engine of hipfile %d.%d, runtime "
                "%s; no GPU-direct kernel driver: docs/cufile.md)",
                path, HIPFILE_VERSION_MAJOR, HIPFILE_VERSION_MINOR, hipFileExtRuntimeName());
  });
}

}  // namespace hipfile::cufile
