// SPDX-License-Identifier: MIT
// MemoryTable: the address ranges the CPU runtime knows about, so that PointerGetInfo can answer
// for any pointer inside one and copies can be checked against the end of their allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <vector>

#include "util/mutex.h"

namespace hipfile::runtime::cpu {

enum class RegionKind {
  kDevice,      // Malloc: "device" memory (host memory in this runtime)
  kPinnedHost,  // HostMalloc
  kRegistered,  // HostRegister of the caller's memory
  kManaged,     // MallocManaged: host memory reported as managed
};

struct Region {
  uintptr_t base = 0;
  size_t size = 0;
  RegionKind kind = RegionKind::kDevice;
  unsigned flags = 0;
  int device = 0;  // the device current when it was made

  uintptr_t end() const { return base + size; }
};

// Thread-safe. Regions never overlap.
class MemoryTable {
 public:
  // False (and nothing inserted) when region overlaps one already present.
  bool Insert(const Region& region);
  // The region holding address p, if any.
  std::optional<Region> Find(const void* p) const;
  // Removes the region that starts exactly at base and is of the given kind.
  std::optional<Region> Remove(const void* base, RegionKind kind);
  // Removes and returns every region.
  std::vector<Region> TakeAll();

 private:
  mutable Mutex mu_;
  std::map<uintptr_t, Region> regions_ GUARDED_BY(mu_);  // by base
};

}  // namespace hipfile::runtime::cpu
