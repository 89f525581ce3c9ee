// SPDX-License-Identifier: MIT
// CUDA's driver lock, on the CPU runtime: while a call that waits for the device (freeing or
// unregistering memory) waits, every other runtime call of any thread waits with it.
//
// Seen on the H200 (driver 580): cuMemFree and cuMemHostUnregister wait for every stream of the
// context to drain while holding a context-wide lock, and cuMemcpyAsync, cuMemHostAlloc,
// cuStreamGetCtx... of other threads block on that lock meanwhile. So a library thread that makes
// any GPU call - or waits for a lock held across one - on the way to releasing a stream that
// waits for the library deadlocks with a program freeing memory at the wrong moment. The CPU
// runtime's Free already waits for queued work, as cudaFree does; this wrapper adds the lock, so
// that tests on machines without a GPU meet the same deadlocks as the H200 (tests/stress,
// tests/unit/async: "DriverLock").
//
// Calls that wait for the device and take the lock exclusively: Free, HostFree, HostUnregister,
// DeviceReset. Every other call takes it shared, stream and event synchronization included (they
// wait without the lock on CUDA: a thread synchronizing a stream does not stop others' calls).
// Work already queued runs on the streams' own threads and takes no lock, as a GPU's does.
#pragma once

#include <memory>

#include "runtime/gpu_runtime.h"

namespace hipfile::runtime::cpu {

// `inner` with the lock in front of every call.
std::unique_ptr<GpuRuntime> WithDriverLock(std::unique_ptr<GpuRuntime> inner);

}  // namespace hipfile::runtime::cpu
