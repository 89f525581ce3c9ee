// SPDX-License-Identifier: MIT
#include "engine/page_cache_pins.h"

#include <sys/mman.h>

#include <algorithm>

#include "util/align.h"
#include "util/errors.h"
#include "util/log.h"
#include "util/thread_name.h"

namespace hipfile::engine {

FileIdentity FileIdentity::Of(const struct stat& st) {
  FileIdentity id;
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  id.size = st.st_size;
  id.mtime = st.st_mtim;
  id.ctime = st.st_ctim;
  return id;
}

bool operator==(const FileIdentity& a, const FileIdentity& b) {
  return a.dev == b.dev && a.ino == b.ino && a.size == b.size && a.mtime.tv_sec == b.mtime.tv_sec &&
         a.mtime.tv_nsec == b.mtime.tv_nsec && a.ctime.tv_sec == b.ctime.tv_sec &&
         a.ctime.tv_nsec == b.ctime.tv_nsec;
}

MappedFile::MappedFile(platform::Sys& sys, const FileIdentity& identity, char* base, size_t length,
                       size_t page, size_t window_bytes)
    : sys_(sys),
      identity_(identity),
      base_(base),
      length_(length),
      page_(page),
      slots_((length + window_bytes - 1) / window_bytes) {}

MappedFile::~MappedFile() {
  const Status s = sys_.Munmap(base_, length_);
  if (!s.ok()) HF_LOG(kWarn, "unmapping a file failed: %s", s.ToString().c_str());
}

Status MappedFile::Residency(uint64_t offset, size_t size, std::vector<ByteRange>* resident) const {
  resident->clear();
  if (size == 0) return Status::Ok();
  const uint64_t first = AlignDown(offset, page_);
  const uint64_t last = AlignUp(offset + size, page_);
  if (last > length_) return Status::Errno(EINVAL);
  std::vector<unsigned char> pages(static_cast<size_t>((last - first) / page_));
  HF_RETURN_IF_ERROR(sys_.Mincore(base_ + first, static_cast<size_t>(last - first), pages.data()));
  const uint64_t end = offset + size;
  for (size_t i = 0; i < pages.size(); ++i) {
    if ((pages[i] & 1) == 0) continue;
    const uint64_t b = std::max<uint64_t>(first + i * page_, offset);
    const uint64_t e = std::min<uint64_t>(first + (i + 1) * page_, end);
    if (!resident->empty() && resident->back().end == b) {
      resident->back().end = e;
    } else {
      resident->push_back(ByteRange{b, e});
    }
  }
  return Status::Ok();
}

PageCachePins::PageCachePins(platform::Sys& sys, runtime::GpuRuntime& gpu, Options options)
    : sys_(sys), gpu_(gpu), options_(options) {}

PageCachePins::~PageCachePins() {
  std::vector<std::thread> pinners;
  {
    MutexLock lock(mu_);
    stopping_ = true;
    pinners.swap(pinners_);
  }
  ahead_cv_.NotifyAll();
  for (std::thread& t : pinners) t.join();  // a pin in progress finishes first
  std::vector<std::shared_ptr<PinnedWindow>> all;
  {
    MutexLock lock(mu_);
    ahead_.clear();  // RetireLocked below takes queued bytes off the cap
    for (auto& entry : files_) RetireLocked(*entry.second);
    files_.clear();
    all.swap(retired_);
  }
  for (const auto& window : all) Unpin(*window);
}

Result<std::shared_ptr<MappedFile>> PageCachePins::Map(int fd, const struct stat& st) {
  const FileIdentity identity = FileIdentity::Of(st);
  if (identity.size <= 0) return Status::Errno(EINVAL);
  MutexLock lock(mu_);
  const Key key{identity.dev, identity.ino};
  auto it = files_.find(key);
  if (it != files_.end()) {
    if (it->second->identity() == identity) return it->second;
    RetireLocked(*it->second);
    files_.erase(it);
  }
  const size_t length = AlignUp(static_cast<uint64_t>(identity.size), options_.page_size);
  Result<void*> base = sys_.Mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, 0);
  if (!base.ok()) return base.status();
  auto file =
      std::shared_ptr<MappedFile>(new MappedFile(sys_, identity, static_cast<char*>(*base), length,
                                                 options_.page_size, options_.window_bytes));
  files_[key] = file;
  return file;
}

size_t PageCachePins::WindowLength(const MappedFile& file, size_t k) const {
  const uint64_t begin = uint64_t{k} * options_.window_bytes;
  return static_cast<size_t>(std::min<uint64_t>(options_.window_bytes, file.length_ - begin));
}

bool PageCachePins::ReserveLocked(uint64_t length, bool reader) {
  if (counters_.pinned_bytes + length > options_.max_pinned_bytes) {
    if (!reader) return false;
    // A fallback that costs speed: resident data is copied through staging from here on.
    HF_LOG_ONCE(kWarn,
                "page-cache pin limit reached (%llu bytes pinned, limit %llu: "
                "HIPFILE_PAGE_CACHE_MAX_PINNED_MB); resident data past it is read through "
                "staging (said once)",
                static_cast<unsigned long long>(counters_.pinned_bytes),
                static_cast<unsigned long long>(options_.max_pinned_bytes));
    return false;
  }
  counters_.pinned_bytes += length;
  return true;
}

bool PageCachePins::SequentialLocked(const MappedFile& file, size_t k) const {
  if (k == 0) return true;
  const MappedFile::Slot& prev = file.slots_[k - 1];
  return prev.uses > 0 || prev.state == MappedFile::Slot::State::kQueued ||
         prev.state == MappedFile::Slot::State::kPinning ||
         prev.state == MappedFile::Slot::State::kPinned;
}

void PageCachePins::ScheduleAheadLocked(const std::shared_ptr<MappedFile>& file, size_t k) {
  if (stopping_ || pinners_refused_ || refused_) return;
  const Key key{file->identity_.dev, file->identity_.ino};
  if (direct_writers_.count(key) != 0) return;
  const size_t last = std::min(file->slots_.size(), k + 1 + options_.pin_ahead_windows);
  bool queued = false;
  for (size_t j = k + 1; j < last; ++j) {
    MappedFile::Slot& slot = file->slots_[j];
    if (slot.state != MappedFile::Slot::State::kIdle) continue;
    if (!ReserveLocked(WindowLength(*file, j), /*reader=*/false)) break;
    slot.state = MappedFile::Slot::State::kQueued;
    ahead_.push_back(Queued{file, j});
    queued = true;
  }
  if (!queued) return;
  StartPinnersLocked();
  ahead_cv_.NotifyAll();
}

bool PageCachePins::StartPinnersLocked() {
  // Pins made aside are made one at a time (by the runtime): one pinner then.
  const unsigned want = options_.pin_aside ? 1u : std::max(options_.pin_ahead_threads, 1u);
  while (!pinners_refused_ && pinners_.size() < want) {
    Result<std::thread> t = sys_.StartThread([this] { PinnerLoop(); });
    if (!t.ok()) {
      // Exhaustion is a fault like any other: the queued windows go back to idle (readers pin
      // or stage them), and pin-ahead stops being tried.
      pinners_refused_ = true;
      HF_LOG(kWarn, "pin-ahead off: a pinner thread could not be started (%s)",
             t.status().ToString().c_str());
      if (pinners_.empty()) {
        for (const Queued& q : ahead_) {
          MappedFile::Slot& slot = q.file->slots_[q.window];
          if (slot.state != MappedFile::Slot::State::kQueued) continue;
          slot.state = MappedFile::Slot::State::kIdle;
          counters_.pinned_bytes -= WindowLength(*q.file, q.window);
        }
        ahead_.clear();
      }
      break;
    }
    pinners_.push_back(std::move(*t));
  }
  return !pinners_.empty();
}

void PageCachePins::PinnerLoop() {
  NameThisThread("pin");
  for (;;) {
    Queued q;
    size_t length = 0;
    {
      MutexLock lock(mu_);
      while (!stopping_ && ahead_.empty()) ahead_cv_.Wait(mu_);
      if (stopping_) return;
      q = std::move(ahead_.front());
      ahead_.pop_front();
      MappedFile::Slot& slot = q.file->slots_[q.window];
      // A reader took it over (and pins it), or the file was retired (its bytes left the cap).
      if (slot.state != MappedFile::Slot::State::kQueued) continue;
      slot.state = MappedFile::Slot::State::kPinning;
      length = WindowLength(*q.file, q.window);
    }
    PinReserved(q.file, q.window, length, q.ahead);
  }
}

std::shared_ptr<const PinnedWindow> PageCachePins::Pin(const std::shared_ptr<MappedFile>& file,
                                                       uint64_t offset) {
  if (!options_.pinning) return nullptr;
  const size_t k = static_cast<size_t>(offset / options_.window_bytes);
  size_t length = 0;
  {
    MutexLock lock(mu_);
    if (refused_ || k >= file->slots_.size()) return nullptr;
    MappedFile::Slot& slot = file->slots_[k];
    const bool ahead = options_.pin_ahead_windows > 0 && SequentialLocked(*file, k);
    switch (slot.state) {
      case MappedFile::Slot::State::kPinned:
        ++counters_.hits;
        if (ahead) ScheduleAheadLocked(file, k);
        return slot.window;
      case MappedFile::Slot::State::kQueued:
        if (options_.pin_aside) {
          // Readers do not wait for pins: this one reads the window through staging, and the
          // pinner skips it (a pin now would serve only the rest of this pass) for windows
          // further ahead.
          slot.state = MappedFile::Slot::State::kIdle;
          counters_.pinned_bytes -= WindowLength(*file, k);
          ++slot.uses;
          ScheduleAheadLocked(file, k);
          return nullptr;
        }
        // The pinners are behind: this reader pins it (its bytes are reserved already).
        ++slot.uses;
        slot.state = MappedFile::Slot::State::kPinning;
        length = WindowLength(*file, k);
        ScheduleAheadLocked(file, k);
        break;
      case MappedFile::Slot::State::kPinning:
      case MappedFile::Slot::State::kOff:
        return nullptr;
      case MappedFile::Slot::State::kIdle:
        // Not while an O_DIRECT write of the file is in flight (BeginDirectWrite); the use does
        // not count, so the window is pinned by a later read.
        if (direct_writers_.count(Key{file->identity_.dev, file->identity_.ino}) != 0) {
          return nullptr;
        }
        if (++slot.uses < options_.pin_after_uses && !ahead) return nullptr;
        if (ahead && options_.pin_aside && !pinners_refused_) {
          // Read through staging now; the pinner works ahead of the readers.
          ScheduleAheadLocked(file, k);
          return nullptr;
        }
        length = WindowLength(*file, k);
        if (!ReserveLocked(length, /*reader=*/true)) return nullptr;
        slot.state = MappedFile::Slot::State::kPinning;
        if (ahead) ScheduleAheadLocked(file, k);
        break;
    }
  }
  return PinReserved(file, k, length, /*ahead=*/false);
}

std::shared_ptr<const PinnedWindow> PageCachePins::FindPinned(
    const std::shared_ptr<MappedFile>& file, uint64_t offset) const {
  if (!options_.pinning) return nullptr;
  const size_t k = static_cast<size_t>(offset / options_.window_bytes);
  MutexLock lock(mu_);
  if (refused_ || stopping_ || k >= file->slots_.size()) return nullptr;
  const MappedFile::Slot& slot = file->slots_[k];
  return slot.state == MappedFile::Slot::State::kPinned ? slot.window : nullptr;
}

std::shared_ptr<const PinnedWindow> PageCachePins::FindOrQueue(
    const std::shared_ptr<MappedFile>& file, uint64_t offset) {
  if (!options_.pinning) return nullptr;
  const size_t k = static_cast<size_t>(offset / options_.window_bytes);
  MutexLock lock(mu_);
  if (refused_ || stopping_ || k >= file->slots_.size()) return nullptr;
  MappedFile::Slot& slot = file->slots_[k];
  const bool ahead = options_.pin_ahead_windows > 0 && SequentialLocked(*file, k);
  switch (slot.state) {
    case MappedFile::Slot::State::kPinned:
      ++counters_.hits;
      if (ahead) ScheduleAheadLocked(file, k);
      return slot.window;
    case MappedFile::Slot::State::kQueued:  // a pinner gets to it; staged meanwhile
      ++slot.uses;
      if (ahead) ScheduleAheadLocked(file, k);
      return nullptr;
    case MappedFile::Slot::State::kPinning:
    case MappedFile::Slot::State::kOff:
      return nullptr;
    case MappedFile::Slot::State::kIdle:
      break;
  }
  // As Pin: not while an O_DIRECT write of the file is in flight, and not before the window's
  // pin_after_uses-th read unless it continues a sequential reader.
  if (direct_writers_.count(Key{file->identity_.dev, file->identity_.ino}) != 0) return nullptr;
  if (++slot.uses < options_.pin_after_uses && !ahead) return nullptr;
  if (ahead && options_.pin_aside && !pinners_refused_) {
    // As Pin when pinning aside: this window is staged now, the pinner works ahead of it.
    ScheduleAheadLocked(file, k);
    return nullptr;
  }
  if (pinners_refused_ || !ReserveLocked(WindowLength(*file, k), /*reader=*/true)) return nullptr;
  slot.state = MappedFile::Slot::State::kQueued;
  ahead_.push_front(Queued{file, k, /*ahead=*/false});  // before windows queued further ahead
  if (ahead) ScheduleAheadLocked(file, k);
  if (!StartPinnersLocked()) return nullptr;  // the queue was emptied, the slot is idle again
  ahead_cv_.NotifyAll();
  return nullptr;
}

void PageCachePins::AskForHoles(const MappedFile& file, uint64_t begin, size_t length,
                                const std::vector<ByteRange>& resident) {
  uint64_t resident_bytes = 0;
  for (const ByteRange& span : resident) resident_bytes += span.end - span.begin;
  const uint64_t missing = length - std::min<uint64_t>(length, resident_bytes);
  if (missing == 0 || missing > length / kFillShare) return;
  bool asked = false;
  uint64_t cursor = begin;
  auto ask = [&](uint64_t hole_end) {
    if (hole_end <= cursor) return;
    // Advice: a refusal leaves the window to staging, as before.
    asked |= sys_.Madvise(file.base_ + cursor, hole_end - cursor, MADV_WILLNEED).ok();
  };
  for (const ByteRange& span : resident) {
    ask(span.begin);
    cursor = std::max(cursor, span.end);
  }
  ask(begin + length);
  if (asked) {
    HF_LOG(kDebug, "page-cache window at offset %llu lacks %llu of its %zu bytes: asked for them",
           static_cast<unsigned long long>(begin), static_cast<unsigned long long>(missing),
           length);
  }
}

std::shared_ptr<const PinnedWindow> PageCachePins::PinReserved(
    const std::shared_ptr<MappedFile>& file, size_t k, size_t length, bool ahead) {
  const uint64_t begin = uint64_t{k} * options_.window_bytes;
  // Pinning faults in every page of the window; one that is not resident would be read from the
  // disk, one page at a time, inside the pin. Such a window is copied through staging instead.
  char* base = file->base_ + begin;
  hipError_t pinned = hipErrorUnknown;
  std::vector<ByteRange> spans;
  const bool looked = file->Residency(begin, length, &spans).ok();
  const bool resident =
      looked && spans.size() == 1 && spans[0].begin == begin && spans[0].end == begin + length;
  if (resident) {
    pinned = options_.pin_aside ? gpu_.HostRegisterAside(base, length, hipHostRegisterReadOnly)
                                : gpu_.HostRegister(base, length, hipHostRegisterReadOnly);
  } else if (looked) {
    AskForHoles(*file, begin, length, spans);
  }

  MutexLock lock(mu_);
  MappedFile::Slot& slot = file->slots_[k];
  if (pinned != hipSuccess) {
    counters_.pinned_bytes -= length;
    if (slot.state == MappedFile::Slot::State::kPinning) {
      slot.state = MappedFile::Slot::State::kIdle;
      slot.uses = 0;
    }
    if (resident && !refused_) {
      refused_ = true;
      HF_LOG(kWarn,
             "pinning a page-cache window failed (%s); resident data is read through staging",
             GpuErrorName(pinned));
    }
    return nullptr;
  }
  ++counters_.windows_pinned;
  if (ahead) ++counters_.windows_pinned_ahead;
  auto window = std::make_shared<PinnedWindow>(file, begin, base, length);
  const auto it = files_.find(Key{file->identity_.dev, file->identity_.ino});
  if (it == files_.end() || it->second != file || slot.state != MappedFile::Slot::State::kPinning) {
    retired_.push_back(window);  // the file changed or was forgotten meanwhile
  } else {
    slot.state = MappedFile::Slot::State::kPinned;
    slot.window = window;
  }
  return window;
}

void PageCachePins::Forget(dev_t dev, ino_t ino) {
  MutexLock lock(mu_);
  const auto it = files_.find(Key{dev, ino});
  if (it == files_.end()) return;
  RetireLocked(*it->second);
  files_.erase(it);
}

bool PageCachePins::HasPinned(dev_t dev, ino_t ino) const {
  MutexLock lock(mu_);
  return HasPinnedLocked(dev, ino);
}

bool PageCachePins::BeginDirectWrite(dev_t dev, ino_t ino) {
  MutexLock lock(mu_);
  if (HasPinnedLocked(dev, ino)) return false;
  ++direct_writers_[Key{dev, ino}];
  return true;
}

void PageCachePins::EndDirectWrite(dev_t dev, ino_t ino) {
  MutexLock lock(mu_);
  const auto it = direct_writers_.find(Key{dev, ino});
  if (it != direct_writers_.end() && --it->second == 0) direct_writers_.erase(it);
}

bool PageCachePins::HasPinnedLocked(dev_t dev, ino_t ino) const {
  const auto it = files_.find(Key{dev, ino});
  if (it != files_.end()) {
    for (const MappedFile::Slot& slot : it->second->slots_) {
      if (slot.window != nullptr || slot.state == MappedFile::Slot::State::kPinning ||
          slot.state == MappedFile::Slot::State::kQueued) {
        return true;
      }
    }
  }
  return std::any_of(retired_.begin(), retired_.end(), [&](const auto& window) {
    const FileIdentity& id = window->file().identity();
    return id.dev == dev && id.ino == ino;
  });
}

size_t PageCachePins::UnpinRetired() {
  std::vector<std::shared_ptr<PinnedWindow>> idle;
  {
    MutexLock lock(mu_);
    // Only the list holds an idle window: a request using one holds a reference of its own, and
    // a retired window cannot be handed out again.
    auto busy = std::partition(retired_.begin(), retired_.end(),
                               [](const auto& w) { return w.use_count() == 1; });
    idle.assign(std::make_move_iterator(retired_.begin()), std::make_move_iterator(busy));
    retired_.erase(retired_.begin(), busy);
  }
  for (const auto& window : idle) Unpin(*window);
  return idle.size();
}

PageCachePins::Counters PageCachePins::counters() const {
  MutexLock lock(mu_);
  return counters_;
}

void PageCachePins::RetireLocked(MappedFile& file) {
  for (size_t k = 0; k < file.slots_.size(); ++k) {
    MappedFile::Slot& slot = file.slots_[k];
    if (slot.state == MappedFile::Slot::State::kQueued) {
      counters_.pinned_bytes -= WindowLength(file, k);
    }
    if (slot.window != nullptr) retired_.push_back(std::move(slot.window));
    slot.window = nullptr;
    slot.state = MappedFile::Slot::State::kOff;
  }
}

void PageCachePins::Unpin(const PinnedWindow& window) {
  const hipError_t e = options_.pin_aside ? gpu_.HostUnregisterAside(window.base())
                                          : gpu_.HostUnregister(window.base());
  if (e != hipSuccess) HF_LOG(kWarn, "unpinning a page-cache window failed: %s", GpuErrorName(e));
  MutexLock lock(mu_);
  counters_.pinned_bytes -= window.length();
  ++counters_.windows_unpinned;
}

}  // namespace hipfile::engine
