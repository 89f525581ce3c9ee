// SPDX-License-Identifier: MIT
#include "data_set.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

namespace hipfile_bench {

void FillPattern(unsigned char* p, size_t n, uint64_t offset) {
  for (size_t i = 0; i < n; ++i) p[i] = Pattern(offset + i);
}

bool CheckPattern(const unsigned char* p, size_t n, uint64_t offset) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != Pattern(offset + i)) {
      std::fprintf(stderr, "hipfile-bench: verify failed at file offset %" PRIu64 "\n", offset + i);
      return false;
    }
  }
  return true;
}

std::string FormatSize(uint64_t bytes) {
  static const struct {
    uint64_t unit;
    const char* name;
  } kUnits[] = {{1ull << 30, "GiB"}, {1ull << 20, "MiB"}, {1ull << 10, "KiB"}};
  char text[64];
  for (const auto& u : kUnits) {
    if (bytes >= u.unit && bytes % u.unit == 0) {
      std::snprintf(text, sizeof text, "%" PRIu64 " %s", bytes / u.unit, u.name);
      return text;
    }
  }
  std::snprintf(text, sizeof text, "%" PRIu64 " bytes", bytes);
  return text;
}

namespace {

constexpr const char* kMarkerFormat =
    "hipfile-bench data set 1: dev=%ju ino=%ju size=%ju mtime=%jd.%ld pattern=%ju";

}  // namespace

bool DataSet::ReadMarker(const struct stat& st) {
  std::FILE* f = std::fopen(marker_.c_str(), "re");
  if (f == nullptr) {
    why_not_ours_ = "no marker " + marker_;
    return false;
  }
  char line[512] = {};
  const bool got = std::fgets(line, sizeof line, f) != nullptr;
  std::fclose(f);
  uintmax_t dev = 0, ino = 0, size = 0, pattern = 0;
  intmax_t sec = 0;
  long nsec = 0;
  int end = 0;
  std::string format = std::string(kMarkerFormat) + "%n";
  if (!got ||
      std::sscanf(line, format.c_str(), &dev, &ino, &size, &sec, &nsec, &pattern, &end) != 6 ||
      (line[end] != '\n' && line[end] != '\0') || pattern > size) {
    why_not_ours_ = "its marker " + marker_ + " is not one hipfile-bench writes";
    return false;
  }
  if (dev != static_cast<uintmax_t>(st.st_dev) || ino != static_cast<uintmax_t>(st.st_ino)) {
    why_not_ours_ = "its marker " + marker_ + " names another file";
    return false;
  }
  if (size != static_cast<uintmax_t>(st.st_size) || sec != st.st_mtim.tv_sec ||
      nsec != st.st_mtim.tv_nsec) {
    why_not_ours_ = "it changed since hipfile-bench last wrote it, says " + marker_;
    return false;
  }
  pattern_ = pattern;
  return true;
}

bool DataSet::WriteMarker(int fd) {
  struct stat st = {};
  if (::fstat(fd, &st) != 0) {
    std::fprintf(stderr, "hipfile-bench: %s: %s\n", path_.c_str(), std::strerror(errno));
    return false;
  }
  pattern_ = std::min<uint64_t>(pattern_, static_cast<uint64_t>(st.st_size));
  // Written whole under another name and renamed, so a reader never sees half a marker.
  const std::string tmp = marker_ + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "we");
  bool ok = f != nullptr;
  if (ok) {
    ok = std::fprintf(f, kMarkerFormat, static_cast<uintmax_t>(st.st_dev),
                      static_cast<uintmax_t>(st.st_ino), static_cast<uintmax_t>(st.st_size),
                      static_cast<intmax_t>(st.st_mtim.tv_sec), st.st_mtim.tv_nsec,
                      static_cast<uintmax_t>(pattern_)) > 0 &&
         std::fputc('\n', f) != EOF;
    ok = std::fclose(f) == 0 && ok;
  }
  if (!ok || std::rename(tmp.c_str(), marker_.c_str()) != 0) {
    std::fprintf(stderr, "hipfile-bench: writing the marker %s: %s\n", marker_.c_str(),
                 std::strerror(errno));
    return false;
  }
  return true;
}

uint64_t DataSet::Fill(int fd, uint64_t from, uint64_t to) {
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  std::vector<unsigned char> block(8 << 20);
  auto shown = std::chrono::steady_clock::now();
  uint64_t off = from;
  while (off < to) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(block.size(), to - off));
    FillPattern(block.data(), n, off);
    for (size_t done = 0; done < n;) {
      const ssize_t w = ::pwrite(fd, block.data() + done, n - done, static_cast<off_t>(off + done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        if (tty) std::fputc('\n', stderr);
        std::fprintf(stderr, "hipfile-bench: writing %s at byte %" PRIu64 ": %s\n", path_.c_str(),
                     off + done, w < 0 ? std::strerror(errno) : "nothing written");
        return off;
      }
      done += static_cast<size_t>(w);
    }
    off += n;
    const auto now = std::chrono::steady_clock::now();
    if (tty && (off == to || now - shown >= std::chrono::milliseconds(250))) {
      std::fprintf(stderr, "\rhipfile-bench: %s: %" PRIu64 " of %" PRIu64 " MiB", path_.c_str(),
                   (off - from) >> 20, (to - from) >> 20);
      shown = now;
    }
  }
  if (tty) std::fputc('\n', stderr);
  // Written back before the run starts, so that no write-back of it runs during the measurement.
  if (::fsync(fd) != 0) {
    std::fprintf(stderr, "hipfile-bench: fsync %s: %s\n", path_.c_str(), std::strerror(errno));
    return from;
  }
  return to;
}

int DataSet::Prepare(const Options& o) {
  path_ = o.file;
  marker_ = path_ + kMarkerSuffix;
  const char* path = path_.c_str();
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    fd = ::open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    created_ = fd >= 0;
  }
  if (fd < 0) {
    std::fprintf(stderr, "hipfile-bench: %s: %s\n", path, std::strerror(errno));
    return 1;
  }
  struct stat st = {};
  if (::fstat(fd, &st) != 0) {
    std::fprintf(stderr, "hipfile-bench: %s: %s\n", path, std::strerror(errno));
    ::close(fd);
    return 1;
  }
  if (!S_ISREG(st.st_mode)) {
    std::fprintf(stderr, "hipfile-bench: %s is not a regular file; the data set is one\n", path);
    ::close(fd);
    return 2;
  }
  const uint64_t length = static_cast<uint64_t>(st.st_size);
  // A file with no bytes loses nothing when written; any other needs its marker or --overwrite.
  const bool marked = !created_ && length > 0 && ReadMarker(st);
  const bool adopt = !created_ && length > 0 && !marked && o.overwrite;
  ours_ = created_ || length == 0 || marked || adopt;

  // What the run needs written before it starts: bytes [from, o.size) of the pattern.
  uint64_t from = o.size;
  if (!IsWrite(o) && o.verify && ours_) {
    from = std::min(pattern_, o.size);
  } else if (!IsWrite(o) || o.xfer == 4) {
    from = std::min(length, o.size);
  }
  const bool fill = from < o.size;
  const bool writes = IsWrite(o) || fill;
  if (writes && !ours_) {
    if (IsWrite(o)) {
      std::fprintf(stderr,
                   "hipfile-bench: %s is not hipfile-bench's data set (%s) and a write run would "
                   "overwrite it; --overwrite allows that\n",
                   path, why_not_ours_.c_str());
    } else {
      std::fprintf(stderr,
                   "hipfile-bench: %s holds %s, less than the data set's %s, and is not "
                   "hipfile-bench's data set (%s); --overwrite lets it write the rest\n",
                   path, FormatSize(length).c_str(), FormatSize(o.size).c_str(),
                   why_not_ours_.c_str());
    }
    ::close(fd);
    return 2;
  }
  if (!writes) {
    // A read run on a file long enough: nothing to write, and a file that is not ours stays so.
    ours_ = ours_ && !adopt;
    ::close(fd);
    return 0;
  }
  if (adopt) {
    std::fprintf(stderr, "hipfile-bench: --overwrite: %s becomes hipfile-bench's data set (%s)\n",
                 path, why_not_ours_.c_str());
  }
  why_not_ours_.clear();
  int status = 0;
  if (fill) {
    if (from == 0) {
      std::fprintf(stderr, "hipfile-bench: %s the data set %s: %s of its pattern (marker %s)\n",
                   created_ ? "creating" : "writing", path, FormatSize(o.size).c_str(),
                   marker_.c_str());
    } else {
      std::fprintf(stderr,
                   "hipfile-bench: writing the data set's pattern into %s, bytes %" PRIu64
                   " to %" PRIu64 " (%s; marker %s)\n",
                   path, from, o.size, FormatSize(o.size - from).c_str(), marker_.c_str());
    }
    const int wfd = ::open(path, O_RDWR | O_CLOEXEC);
    const uint64_t reached = wfd >= 0 ? Fill(wfd, from, o.size) : from;
    if (wfd < 0) std::fprintf(stderr, "hipfile-bench: %s: %s\n", path, std::strerror(errno));
    if (wfd >= 0) ::close(wfd);
    // The pattern now runs on to `reached` if it ran up to `from` (a read without -V extends the
    // file from its end, which is past the pattern after a write without -V).
    if (from <= pattern_) pattern_ = reached;
    if (reached < o.size) status = 1;
  } else if (created_) {
    std::fprintf(stderr, "hipfile-bench: creating %s for the write run (up to %s; marker %s)\n",
                 path, FormatSize(o.size).c_str(), marker_.c_str());
  }
  // Before the run, so that a marker that cannot be written stops it before it writes anything;
  // a run that does not finish leaves a file that no longer matches its marker.
  if (!WriteMarker(fd)) status = 1;
  ::close(fd);
  return status;
}

bool DataSet::RecordWrite(int fd, uint64_t pattern_end) {
  pattern_ = pattern_end;
  return WriteMarker(fd);
}

}  // namespace hipfile_bench
