// SPDX-License-Identifier: MIT
#include "util/thread_name.h"

#include <pthread.h>

#include <cstdio>

namespace hipfile {

void NameThisThread(const char* role, int index) {
  char name[16];  // 15 characters and the terminator: Linux's limit (TASK_COMM_LEN)
  if (index < 0) {
    std::snprintf(name, sizeof name, "hf-%s", role);
  } else {
    std::snprintf(name, sizeof name, "hf-%s-%d", role, index);
  }
  (void)pthread_setname_np(pthread_self(), name);
}

}  // namespace hipfile
