// SPDX-License-Identifier: MIT
#include "runtime/cpu/memory_table.h"

namespace hipfile::runtime::cpu {

bool MemoryTable::Insert(const Region& region) {
  MutexLock lock(mu_);
  auto next = regions_.lower_bound(region.base);
  if (next != regions_.end() && next->second.base < region.end()) return false;
  if (next != regions_.begin() && std::prev(next)->second.end() > region.base) return false;
  regions_.emplace(region.base, region);
  return true;
}

std::optional<Region> MemoryTable::Find(const void* p) const {
  const auto addr = reinterpret_cast<uintptr_t>(p);
  MutexLock lock(mu_);
  auto next = regions_.upper_bound(addr);
  if (next == regions_.begin()) return std::nullopt;
  const Region& region = std::prev(next)->second;
  if (addr >= region.end()) return std::nullopt;
  return region;
}

std::optional<Region> MemoryTable::Remove(const void* base, RegionKind kind) {
  MutexLock lock(mu_);
  auto it = regions_.find(reinterpret_cast<uintptr_t>(base));
  if (it == regions_.end() || it->second.kind != kind) return std::nullopt;
  Region region = it->second;
  regions_.erase(it);
  return region;
}

std::vector<Region> MemoryTable::TakeAll() {
  MutexLock lock(mu_);
  std::vector<Region> all;
  all.reserve(regions_.size());
  for (const auto& [base, region] : regions_) all.push_back(region);
  regions_.clear();
  return all;
}

}  // namespace hipfile::runtime::cpu
