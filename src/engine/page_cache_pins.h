// SPDX-License-Identifier: MIT
// PageCachePins: read-only mappings of the files being read, kept from one request to the next,
// and windows of them pinned for the GPU to copy from (the page-cache path).
//
// A file is mapped whole, once, and the mapping is reused while the file looks unchanged: same
// device, inode, size, modification and status-change times (the engine fstats before each
// read). A file that changed gets a fresh mapping, and the windows pinned in the old one retire.
// This is about correctness as much as speed: a truncated file's pages leave the page cache, but
// a pinned window would keep serving the old ones.
//
// Windows are fixed slices of the file, [k * window_bytes, (k + 1) * window_bytes). A window is
// pinned (read-only) when a read finds it wholly resident for the `pin_after_uses`-th time; until
// then its reads go through staging, so data read once does not pay for pinning. Pinned bytes
// are capped at `max_pinned_bytes`; past the cap, reads go through staging.
//
// Pin-ahead (`pin_ahead_windows` > 0): data read once (loading model weights) never reaches a
// window's second read, so it would always go through staging. When a read arrives at a window
// whose predecessor was read (or at the file's first window), the reader pins its window itself
// and queues the next `pin_ahead_windows` windows for pinner threads of their own
// (`pin_ahead_threads`), so that a sequential reader finds them pinned. A reader that reaches a
// queued window before a pinner does pins it itself; one that reaches a window being pinned reads
// it through staging. Queued windows count against the cap from the moment they are queued.
//
// Windows a few pages short: a window is pinned only when every page of it is resident, and the
// engine reads cold pages with O_DIRECT, which never brings them into the page cache - so a
// window that lost a few pages (memory pressure, a file half written back) would never be pinned,
// and all its reads would go through staging, run after run. When a window's pin is due and it
// lacks at most an eighth of its bytes, the missing pages are asked for (MADV_WILLNEED: the
// kernel reads them in without the caller waiting; said at debug level), and a later read pins
// it. A window colder than that is left to the cold path.
//
// Pinning aside (`pin_aside`): on CUDA a pin holds its context's lock for the whole pin (1-2 ms
// for a 64 MiB window), and every copy another thread queues meanwhile waits for it: pins and
// copies then take turns, and a first pass runs at their serial rate. Pinned aside - from a
// context of the runtime's own (GpuRuntime::HostRegisterAside) - the copies go on at the link
// while the pins are made. Readers then leave pin-ahead's pins to one pinner thread (the runtime
// makes such pins one at a time) and never wait for one: a reader whose window is not pinned yet
// reads it through staging, takes it off the queue if it was there (a pin now would serve only
// the rest of the pass), and the pinner works on the windows further ahead.
//
// Unpinning is an implicit synchronization on CUDA: it waits for every stream of the device, and
// while it waits every other GPU call of the process waits too (measured on the H200 by
// bench/probes/implicit-sync-probe). A stream stalled on a stream-ordered operation waits for the
// engine, so unpinning with such an operation in flight would deadlock. Pins are therefore
// released only by UnpinRetired, which the caller runs where no stream-ordered operation is in
// flight (handle deregistration, driver close), and by the destructor.
//
// Thread-safe.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "engine/plan.h"
#include "platform/sys.h"
#include "runtime/gpu_runtime.h"
#include "util/mutex.h"
#include "util/status.h"

namespace hipfile::engine {

// What a mapping of a file is valid for.
struct FileIdentity {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  timespec mtime = {};
  timespec ctime = {};

  static FileIdentity Of(const struct stat& st);
  friend bool operator==(const FileIdentity& a, const FileIdentity& b);
};

class PinnedWindow;

// A read-only, shared mapping of a whole file, as it was when mapped.
class MappedFile {
 public:
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // The resident parts of [offset, offset + size), which must lie inside the file: sorted,
  // disjoint, neighbours merged.
  Status Residency(uint64_t offset, size_t size, std::vector<ByteRange>* resident) const;

  const FileIdentity& identity() const { return identity_; }
  uint64_t size() const { return static_cast<uint64_t>(identity_.size); }

 private:
  friend class PageCachePins;
  struct Slot {
    // kQueued: waiting for a pinner thread (pin-ahead), its bytes counted against the cap.
    enum class State : uint8_t { kIdle, kQueued, kPinning, kPinned, kOff };
    State state = State::kIdle;
    unsigned uses = 0;
    std::shared_ptr<PinnedWindow> window;
  };

  MappedFile(platform::Sys& sys, const FileIdentity& identity, char* base, size_t length,
             size_t page, size_t window_bytes);

  platform::Sys& sys_;
  const FileIdentity identity_;
  char* const base_;
  const size_t length_;  // the file size rounded up to pages: pages past it must not be touched
  const size_t page_;
  // One per window; guarded by the owning PageCachePins' mu_ (no GUARDED_BY: the analysis
  // cannot name another object's mutex).
  std::vector<Slot> slots_;
};

// A pinned window of a mapping; it keeps the mapping alive.
class PinnedWindow {
 public:
  PinnedWindow(std::shared_ptr<MappedFile> file, uint64_t offset, char* base, size_t length)
      : file_(std::move(file)), offset_(offset), base_(base), length_(length) {}

  // The address of file offset `offset`, which must lie inside the window.
  const char* At(uint64_t offset) const { return base_ + (offset - offset_); }
  uint64_t offset() const { return offset_; }
  size_t length() const { return length_; }
  char* base() const { return base_; }
  const MappedFile& file() const { return *file_; }

 private:
  std::shared_ptr<MappedFile> file_;
  uint64_t offset_;
  char* base_;
  size_t length_;
};

class PageCachePins {
 public:
  struct Options {
    bool pinning = true;  // false: mappings only (residency), never a pin
    size_t window_bytes = 64u << 20;
    uint64_t max_pinned_bytes = 0;
    unsigned pin_after_uses = 2;
    size_t page_size = 4096;
    unsigned pin_ahead_windows = 0;  // 0: off (see above)
    unsigned pin_ahead_threads = 2;  // 1 when pinning aside
    // Pins through GpuRuntime::HostRegisterAside (see "Pinning aside" above).
    bool pin_aside = false;
  };
  struct Counters {
    uint64_t pinned_bytes = 0;  // retired windows included, until unpinned
    uint64_t windows_pinned = 0;
    uint64_t windows_unpinned = 0;
    uint64_t hits = 0;                  // reads of a chunk from a window already pinned
    uint64_t windows_pinned_ahead = 0;  // of windows_pinned, by a pinner thread
  };

  // sys and gpu must outlive the object.
  PageCachePins(platform::Sys& sys, runtime::GpuRuntime& gpu, Options options);
  // Stops the pinner threads (waiting for a pin in progress), then unpins everything: no request
  // may be running, and no stream-ordered operation in flight.
  ~PageCachePins();
  PageCachePins(const PageCachePins&) = delete;
  PageCachePins& operator=(const PageCachePins&) = delete;

  // The mapping of the file open as `fd`, whose fstat is `st` (a regular file of nonzero size):
  // the one made earlier while the file is unchanged, else a fresh one.
  Result<std::shared_ptr<MappedFile>> Map(int fd, const struct stat& st);

  // The pinned window holding file offset `offset` of `file`, pinning it now if it is due (see
  // above); nullptr when the bytes should go through staging instead.
  std::shared_ptr<const PinnedWindow> Pin(const std::shared_ptr<MappedFile>& file, uint64_t offset);
  // Pin's decision without its runtime call, for a thread that must never wait for one (a
  // stream-ordered worker: docs/async.md): the pinned window holding `offset`, counted as Pin
  // counts it; a window Pin would pin now is queued for the pinner threads instead (its bytes
  // reserved under the cap), and nullptr returned: its bytes go through staging until a pinner
  // has pinned it. Makes no GPU call and waits for no pin.
  std::shared_ptr<const PinnedWindow> FindOrQueue(const std::shared_ptr<MappedFile>& file,
                                                  uint64_t offset);
  // The pinned window holding `offset`, or nullptr: a look, not a read - it counts no use and
  // no hit, queues nothing and pins nothing (a stream-ordered submission asking whether windows
  // hold a read's bytes, which its worker will read: AsyncExecutor::PlanAhead).
  std::shared_ptr<const PinnedWindow> FindPinned(const std::shared_ptr<MappedFile>& file,
                                                 uint64_t offset) const;

  // Forgets the mapping of the file (dev, ino) and retires its windows. Makes no GPU call.
  void Forget(dev_t dev, ino_t ino);
  // Whether any page of the file (dev, ino) is pinned, in a live or a retired window. An
  // O_DIRECT write must not cover such pages: the kernel cannot drop a pinned page from the page
  // cache, which would then keep the bytes from before the write.
  bool HasPinned(dev_t dev, ino_t ino) const;
  // An O_DIRECT write of the file (dev, ino) may start: true, and until EndDirectWrite no page of
  // the file is pinned, when no page of it is pinned or being pinned now; false otherwise (the
  // write goes through the page cache). A pin made while the write was in flight would hold a
  // page the kernel must drop after writing around it.
  bool BeginDirectWrite(dev_t dev, ino_t ino);
  void EndDirectWrite(dev_t dev, ino_t ino);

  // Unpins the retired windows no request is using; returns how many. On CUDA this waits for
  // every stream: call it only where no stream-ordered operation can be in flight.
  size_t UnpinRetired();

  Counters counters() const;
  uint64_t max_pinned_bytes() const { return options_.max_pinned_bytes; }

 private:
  using Key = std::pair<dev_t, ino_t>;

  // Moves the pinned windows of `file` to retired_ and turns its slots off (a queued slot's
  // bytes leave the cap).
  void RetireLocked(MappedFile& file) REQUIRES(mu_);
  // The bytes of window k of `file`.
  size_t WindowLength(const MappedFile& file, size_t k) const;
  // Counts `length` more bytes against the cap; false when they do not fit (said once, at warn,
  // for a reader: its bytes go through staging from here on).
  bool ReserveLocked(uint64_t length, bool reader) REQUIRES(mu_);
  // Whether window k of `file` continues a sequential reader: the first window, or one whose
  // predecessor has been read, queued or pinned.
  bool SequentialLocked(const MappedFile& file, size_t k) const REQUIRES(mu_);
  // Queues the idle windows after k for the pinner threads, starting them if needed.
  void ScheduleAheadLocked(const std::shared_ptr<MappedFile>& file, size_t k) REQUIRES(mu_);
  // A window lacking at most 1/kFillShare of its `length` bytes at `begin` (the rest `resident`):
  // asks the kernel to read the missing pages in (MADV_WILLNEED).
  void AskForHoles(const MappedFile& file, uint64_t begin, size_t length,
                   const std::vector<ByteRange>& resident);
  static constexpr uint64_t kFillShare = 8;
  // Starts the pinner threads not running yet; false when none runs (a thread could not be
  // started: pin-ahead is off from then on, and the windows queued go back to idle).
  bool StartPinnersLocked() REQUIRES(mu_);
  // Pins window k of `file`, whose state is kPinning and whose `length` bytes are reserved.
  std::shared_ptr<const PinnedWindow> PinReserved(const std::shared_ptr<MappedFile>& file, size_t k,
                                                  size_t length, bool ahead) EXCLUDES(mu_);
  // A pinner thread: pins queued windows until the object is destroyed.
  void PinnerLoop() EXCLUDES(mu_);
  bool HasPinnedLocked(dev_t dev, ino_t ino) const REQUIRES(mu_);
  void Unpin(const PinnedWindow& window) EXCLUDES(mu_);

  platform::Sys& sys_;
  runtime::GpuRuntime& gpu_;
  const Options options_;

  mutable Mutex mu_;
  std::map<Key, std::shared_ptr<MappedFile>> files_ GUARDED_BY(mu_);
  std::vector<std::shared_ptr<PinnedWindow>> retired_ GUARDED_BY(mu_);
  std::map<Key, unsigned> direct_writers_ GUARDED_BY(mu_);  // O_DIRECT writes in flight, by file
  Counters counters_ GUARDED_BY(mu_);
  bool refused_ GUARDED_BY(mu_) = false;  // the runtime refused to pin a file mapping: stop trying

  // Pin-ahead: windows waiting for a pinner (an entry whose slot left kQueued is skipped).
  struct Queued {
    std::shared_ptr<MappedFile> file;
    size_t window = 0;
    bool ahead = true;  // queued ahead of a reader (counted in windows_pinned_ahead)
  };
  std::deque<Queued> ahead_ GUARDED_BY(mu_);
  std::vector<std::thread> pinners_ GUARDED_BY(mu_);
  bool pinners_refused_ GUARDED_BY(mu_) = false;  // a pinner thread could not be started
  bool stopping_ GUARDED_BY(mu_) = false;
  CondVar ahead_cv_;
};

}  // namespace hipfile::engine
