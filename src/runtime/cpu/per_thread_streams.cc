// SPDX-License-Identifier: MIT
#include "runtime/cpu/per_thread_streams.h"

#include <map>

#include "runtime/cpu/cpu_runtime_impl.h"
#include "util/mutex.h"

namespace hipfile::runtime::cpu::per_thread {
namespace {

// The runtimes alive, by id. Never destroyed: a thread may exit after static destructors ran.
struct Alive {
  Mutex mu;
  std::map<uint64_t, CpuRuntime*> runtimes GUARDED_BY(mu);
};
Alive& Runtimes() {
  static Alive* const alive = new Alive;
  return *alive;
}

struct Entry {
  uint64_t runtime;  // 0: free
  int device;
  Stream stream;
};
constexpr size_t kEntries = 64;
// Trivially destructible, so that a call made after the thread's destructors ran (a process
// exiting) still reads valid memory; Cleanup below empties it at thread exit.
thread_local Entry entries[kEntries] = {};

bool IsAlive(uint64_t runtime) {
  Alive& alive = Runtimes();
  MutexLock lock(alive.mu);
  return alive.runtimes.count(runtime) != 0;
}

// Destroys the thread's streams when it exits. Made on a thread's first Remember.
struct Cleanup {
  bool armed = false;
  ~Cleanup() {
    Alive& alive = Runtimes();
    for (Entry& e : entries) {
      if (e.runtime == 0) continue;
      {
        MutexLock lock(alive.mu);  // held: the runtime cannot go meanwhile (Withdraw)
        if (auto it = alive.runtimes.find(e.runtime); it != alive.runtimes.end()) {
          (void)it->second->StreamDestroy(e.stream);
        }
      }
      e = Entry{};
    }
  }
};
thread_local Cleanup cleanup;

}  // namespace

Stream Find(uint64_t runtime, int device) {
  for (const Entry& e : entries) {
    if (e.runtime == runtime && e.device == device) return e.stream;
  }
  return nullptr;
}

bool Remember(uint64_t runtime, int device, Stream stream) {
  cleanup.armed = true;  // odr-used: its destructor runs at this thread's exit
  Entry* slot = nullptr;
  for (Entry& e : entries) {
    if (e.runtime == 0 || !IsAlive(e.runtime)) {  // a destroyed runtime's stream went with it
      slot = &e;
      break;
    }
  }
  if (slot == nullptr) return false;
  *slot = Entry{runtime, device, stream};
  return true;
}

void Enlist(uint64_t id, CpuRuntime* runtime) {
  Alive& alive = Runtimes();
  MutexLock lock(alive.mu);
  alive.runtimes[id] = runtime;
}

void Withdraw(uint64_t id) {
  Alive& alive = Runtimes();
  MutexLock lock(alive.mu);
  alive.runtimes.erase(id);
}

}  // namespace hipfile::runtime::cpu::per_thread
