// SPDX-License-Identifier: MIT
#include "core/stats_region.h"

#include <errno.h>
#include <sys/mman.h>
#include <time.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "util/log.h"

namespace hipfile::core {
namespace {

// The counters start on their own cache line.
constexpr size_t kCountersOffset = (sizeof(StatsRegionHeader) + 63) / 64 * 64;
constexpr size_t kRegionSize = kCountersOffset + sizeof(StatsCounters);

static_assert(std::atomic<int64_t>::is_always_lock_free, "the header's pid is shared");

bool IsRegionName(const std::string& link) {
  const std::string prefix = std::string("/memfd:") + kStatsMemoryFileName;
  return link.compare(0, prefix.size(), prefix) == 0 &&
         (link.size() == prefix.size() || link[prefix.size()] == ' ');
}

uint64_t UnixNanos() {
  struct timespec ts = {};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

StatsRegion::~StatsRegion() {
  (void)sys_.Munmap(base_, size_);
  if (own_fd_) (void)sys_.Close(fd_);
}

const StatsCounters& StatsRegion::counters() const {
  return *reinterpret_cast<const StatsCounters*>(static_cast<const char*>(base_) +
                                                 header().counters_offset);
}

StatsCounters* StatsRegion::mutable_counters() {
  return reinterpret_cast<StatsCounters*>(static_cast<char*>(base_) + kCountersOffset);
}

Result<std::unique_ptr<StatsRegion>> StatsRegion::Create(platform::Sys& sys) {
  HF_ASSIGN_OR_RETURN(const int fd, sys.CreateMemoryFile(kStatsMemoryFileName, 0));
  // The memory file is zero-filled: every counter 0, the pid unclaimed.
  Status sized = sys.Ftruncate(fd, static_cast<off_t>(kRegionSize));
  Result<void*> mapped =
      sized.ok() ? sys.Mmap(nullptr, kRegionSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                 : Result<void*>(sized);
  if (!mapped.ok()) {
    (void)sys.Close(fd);
    return mapped.status();
  }
  auto* header = new (*mapped) StatsRegionHeader{};
  std::memcpy(header->magic, kStatsRegionMagic, sizeof header->magic);
  header->version = kStatsRegionVersion;
  header->header_size = sizeof(StatsRegionHeader);
  header->counters_offset = kCountersOffset;
  header->counters_size = sizeof(StatsCounters);
  return std::unique_ptr<StatsRegion>(new StatsRegion(sys, *mapped, kRegionSize, fd, true));
}

Result<std::unique_ptr<StatsRegion>> StatsRegion::Map(platform::Sys& sys, int fd, bool writable,
                                                      bool own_fd) {
  struct stat st = {};
  HF_RETURN_IF_ERROR(sys.Fstat(fd, &st));
  if (!S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) < kCountersOffset) {
    return Status::Errno(EINVAL);
  }
  const size_t size = static_cast<size_t>(st.st_size);
  HF_ASSIGN_OR_RETURN(
      void* base,
      sys.Mmap(nullptr, size, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0));
  auto region = std::unique_ptr<StatsRegion>(new StatsRegion(sys, base, size, fd, own_fd));
  const StatsRegionHeader& h = region->header();
  if (std::memcmp(h.magic, kStatsRegionMagic, sizeof h.magic) != 0) return Status::Errno(EINVAL);
  if (h.version != kStatsRegionVersion) return Status::Errno(EPROTO);
  // Within a version the layout is fixed; a reader still checks the sizes it maps.
  const bool ok = h.counters_offset >= sizeof h && h.counters_size == sizeof(StatsCounters) &&
                  h.counters_offset + h.counters_size <= size &&
                  (!writable || h.counters_offset == kCountersOffset);
  if (!ok) return Status::Errno(EPROTO);  // unmapped (and closed when owned) on the way out
  return region;
}

Result<std::unique_ptr<StatsRegion>> StatsRegion::Find(platform::Sys& sys, pid_t pid) {
  if (pid <= 0) return Status::Errno(EINVAL);
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  Result<std::vector<std::string>> names = sys.ListDirectory(dir.c_str());
  if (!names.ok()) {
    const int e = names.status().code();
    return Status::Errno(e == ENOENT ? ESRCH : e);
  }
  int missing = ENOENT;  // EPROTO once a region of another layout was seen
  for (const std::string& name : *names) {
    const std::string path = dir + "/" + name;
    Result<std::string> link = sys.ReadLink(path.c_str());
    if (!link.ok() || !IsRegionName(*link)) continue;
    Result<int> fd = sys.Open(path.c_str(), O_RDONLY | O_CLOEXEC, 0);
    if (!fd.ok()) continue;
    Result<std::unique_ptr<StatsRegion>> region = Map(sys, *fd, false, true);
    if (!region.ok()) {
      if (region.status().code() == EPROTO) missing = EPROTO;
      continue;
    }
    // An inherited region another process claimed is that process's.
    if ((*region)->header().pid.load(std::memory_order_acquire) == pid) return region;
  }
  return Status::Errno(missing);
}

bool StatsRegion::Claim(pid_t pid, uint64_t unix_ns) {
  auto* header = static_cast<StatsRegionHeader*>(base_);
  int64_t unclaimed = 0;
  if (!header->pid.compare_exchange_strong(unclaimed, pid, std::memory_order_acq_rel)) {
    return false;
  }
  header->published_unix_ns.store(unix_ns, std::memory_order_relaxed);
  return true;
}

namespace {

// HIPFILE_STATS_FD's region when it is one and this process claims it.
std::unique_ptr<StatsRegion> AdoptInherited(platform::Sys& sys, pid_t self) {
  const char* value = sys.Getenv(kEnvStatsFd);
  if (value == nullptr || *value == '\0') return nullptr;
  char* end = nullptr;
  const long fd = std::strtol(value, &end, 10);
  if (*end != '\0' || fd < 0 || fd > 1 << 20) return nullptr;
  // The number may name another file here (a descendant that did not inherit it): only a
  // memory file of our name is mapped.
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  Result<std::string> link = sys.ReadLink(path.c_str());
  if (!link.ok() || !IsRegionName(*link)) return nullptr;
  Result<std::unique_ptr<StatsRegion>> region =
      StatsRegion::Map(sys, static_cast<int>(fd), true, false);
  if (!region.ok() || !(*region)->Claim(self, UnixNanos())) return nullptr;
  return std::move(*region);
}

}  // namespace

StatsRegion* PublishProcessStats(platform::Sys& sys, unsigned level) {
  const pid_t self = sys.GetPid();
  std::unique_ptr<StatsRegion> region = AdoptInherited(sys, self);
  if (region == nullptr) {
    Result<std::unique_ptr<StatsRegion>> made = StatsRegion::Create(sys);
    if (!made.ok()) {
      // At level 0 nothing is counted: a region would only have said so.
      if (level > 0) {
        HF_LOG(kWarn,
               "statistics are not published for tools (hipfile-stats): no memory file (%s); "
               "hipFileGetStats still works",
               std::strerror(made.status().code()));
      }
      return nullptr;
    }
    region = std::move(*made);
    (void)region->Claim(self, UnixNanos());
  }
  return region.release();
}

}  // namespace hipfile::core
