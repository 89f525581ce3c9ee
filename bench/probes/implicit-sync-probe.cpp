// SPDX-License-Identifier: MIT
// implicit-sync-probe: which GPU runtime calls wait for a stream that is stalled on a stream
// memory wait (the state of a stream carrying a stream-ordered hipFile operation). Any call that
// does must never run on the I/O path while such operations are in flight. Prints one line per
// call: "blocks" or "returns".
//
// Second part: the same calls while another thread is inside a HostUnregister that is blocked by
// the stalled stream. A call that blocks then must not run on the I/O path while a background
// thread may be unpinning memory (the page-cache pin cache unpins on such a thread).
#include <chrono>
#include <cstdio>
#include <future>
#include <string>
#include <vector>

#include "core/process_runtime.h"

using hipfile::runtime::GpuRuntime;
using hipfile::runtime::Stream;

int main() {
  GpuRuntime& gpu = hipfile::ProcessRuntime();
  std::printf("runtime %s\n", gpu.Name());
  uint32_t* word = nullptr;
  if (gpu.HostMalloc(reinterpret_cast<void**>(&word), 64, hipHostMallocMapped) != hipSuccess) {
    return 1;
  }
  std::vector<char> file_like(64 << 20, 1);
  void* pinned = nullptr;
  (void)gpu.HostMalloc(&pinned, 1 << 20, 0);
  struct Probe {
    const char* name;
    std::function<void()> call;
  };
  Stream other = nullptr;
  (void)gpu.StreamCreate(&other, hipStreamNonBlocking);
  void* dev = nullptr;
  (void)gpu.Malloc(&dev, 1 << 20);
  std::vector<Probe> probes = {
      {"StreamCreate",
       [&] {
         Stream s;
         (void)gpu.StreamCreate(&s, hipStreamNonBlocking);
       }},
      {"MemcpyAsync+StreamSynchronize(other stream)",
       [&] {
         (void)gpu.MemcpyAsync(dev, pinned, 1 << 20, hipMemcpyHostToDevice, other);
         (void)gpu.StreamSynchronize(other);
       }},
      {"HostMalloc 8 MiB",
       [&] {
         void* p;
         (void)gpu.HostMalloc(&p, 8 << 20, 0);
       }},
      {"HostRegister 64 MiB",
       [&] { (void)gpu.HostRegister(file_like.data(), file_like.size(), 0); }},
      {"HostUnregister 64 MiB", [&] { (void)gpu.HostUnregister(file_like.data()); }},
      {"HostFree 1 MiB", [&] { (void)gpu.HostFree(pinned); }},
      {"Malloc 1 MiB",
       [&] {
         void* p;
         (void)gpu.Malloc(&p, 1 << 20);
       }},
  };
  for (Probe& probe : probes) {
    Stream s = nullptr;
    (void)gpu.StreamCreate(&s, hipStreamNonBlocking);
    __atomic_store_n(word, 0u, __ATOMIC_SEQ_CST);
    (void)gpu.StreamWaitValue32(s, word, 1);  // stalled until the host writes 1
    auto done = std::async(std::launch::async, probe.call);
    const bool returned = done.wait_for(std::chrono::seconds(2)) == std::future_status::ready;
    __atomic_store_n(word, 1u, __ATOMIC_SEQ_CST);  // release the stream
    done.wait();
    (void)gpu.StreamSynchronize(s);
    std::printf("%-45s %s\n", probe.name, returned ? "returns" : "blocks");
  }

  // Part two: a HostUnregister blocked behind the stalled stream, then each call.
  std::vector<char> victim(64 << 20, 2);
  std::vector<char> target(64 << 20, 3);
  void* pinned2 = nullptr;
  (void)gpu.HostMalloc(&pinned2, 1 << 20, 0);
  std::vector<Probe> during = {
      {"MemcpyAsync+StreamSynchronize(other stream)",
       [&] {
         (void)gpu.MemcpyAsync(dev, pinned2, 1 << 20, hipMemcpyHostToDevice, other);
         (void)gpu.StreamSynchronize(other);
       }},
      {"HostRegister 64 MiB (other memory)",
       [&] { (void)gpu.HostRegister(target.data(), target.size(), 0); }},
      {"HostUnregister 64 MiB (other memory)", [&] { (void)gpu.HostUnregister(target.data()); }},
      {"HostMalloc 8 MiB",
       [&] {
         void* p;
         (void)gpu.HostMalloc(&p, 8 << 20, 0);
       }},
      {"StreamCreate",
       [&] {
         Stream s;
         (void)gpu.StreamCreate(&s, hipStreamNonBlocking);
       }},
  };
  for (Probe& probe : during) {
    if (gpu.HostRegister(victim.data(), victim.size(), 0) != hipSuccess) return 1;
    Stream s = nullptr;
    (void)gpu.StreamCreate(&s, hipStreamNonBlocking);
    __atomic_store_n(word, 0u, __ATOMIC_SEQ_CST);
    (void)gpu.StreamWaitValue32(s, word, 1);
    auto unpin = std::async(std::launch::async, [&] { (void)gpu.HostUnregister(victim.data()); });
    const bool unpin_blocked =
        unpin.wait_for(std::chrono::milliseconds(300)) != std::future_status::ready;
    auto done = std::async(std::launch::async, probe.call);
    const bool returned = done.wait_for(std::chrono::seconds(2)) == std::future_status::ready;
    __atomic_store_n(word, 1u, __ATOMIC_SEQ_CST);
    done.wait();
    unpin.wait();
    (void)gpu.StreamSynchronize(s);
    std::printf("during blocked unregister%s: %-40s %s\n", unpin_blocked ? "" : " (did not block)",
                probe.name, returned ? "returns" : "blocks");
  }
  return 0;
}
