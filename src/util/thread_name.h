// SPDX-License-Identifier: MIT
// Names for the library's threads, as top -H, ps -L, perf, gdb and bench/probes/threadprof.py
// show them: "hf-<role>" or "hf-<role>-<index>", cut to the 15 characters Linux keeps.
#pragma once

namespace hipfile {

// Names the calling thread; index < 0 gives no index. A name that cannot be set is left as it
// was (naming is for people; nothing depends on it).
void NameThisThread(const char* role, int index = -1);

}  // namespace hipfile
