// SPDX-License-Identifier: MIT
// Each thread's default streams (hipStreamPerThread) on the CPU runtime: a table per thread of
// the streams it was given, by runtime and device, and the runtimes alive to take them back. A
// thread's streams are destroyed (as StreamDestroy does: queued work still runs) when it exits,
// by the runtime that made them if that one still exists; a runtime's destructor joins the rest.
#pragma once

#include <cstdint>

#include "runtime/gpu_runtime.h"

namespace hipfile::runtime::cpu {

class CpuRuntime;

namespace per_thread {

// The calling thread's stream of `runtime`'s `device`, or null when it has none.
Stream Find(uint64_t runtime, int device);
// Remembers `stream` as that stream, to be destroyed through `runtime` when the thread exits.
// False when the thread's table is full of streams of runtimes still alive (64 of them).
bool Remember(uint64_t runtime, int device, Stream stream);

// A runtime is alive from Enlist to Withdraw (its constructor and destructor): an exiting thread
// destroys its streams through it only in between. Withdraw waits for such a destroy to finish.
void Enlist(uint64_t id, CpuRuntime* runtime);
void Withdraw(uint64_t id);

}  // namespace per_thread
}  // namespace hipfile::runtime::cpu
