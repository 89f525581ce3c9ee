// SPDX-License-Identifier: MIT
// hipfile-bench's data set: byte N of the file holds Pattern(N), and a marker file next to it,
// FILE.hipfile-bench, says that hipfile-bench made the file and how much of it holds the pattern.
//
// The marker is one line of text:
//   hipfile-bench data set 1: dev=D ino=I size=S mtime=SEC.NSEC pattern=P
// D, I, S and the modification time are the file's as hipfile-bench last left it, so a file that
// was replaced, or written by another program since, no longer matches: it is not the data set
// any more (nor is a file that a run killed while writing left behind). P is how many bytes from
// offset 0 hold the pattern: a write run without -V writes offset 0's pattern into every block,
// and then P is 0. The marker sits outside the file, so every byte of the file is the pattern
// and other programs (kvikio-bench.py, cufile-bench) read the same file.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "options.h"

namespace hipfile_bench {

// Appended to the data set's path to name its marker.
inline constexpr const char* kMarkerSuffix = ".hipfile-bench";

// Byte `offset` of the data set: misplaced bytes show up in verification.
inline unsigned char Pattern(uint64_t offset) {
  const uint64_t x = offset * 0x9E3779B97F4A7C15ull;
  return static_cast<unsigned char>((x >> 56) ^ (offset >> 12));
}
void FillPattern(unsigned char* p, size_t n, uint64_t offset);
// Whether the `n` bytes at `p` are the pattern of file offset `offset` on; prints the first file
// offset that is not.
bool CheckPattern(const unsigned char* p, size_t n, uint64_t offset);

// "16 MiB", "8 GiB", "4097 bytes": exact, for messages.
std::string FormatSize(uint64_t bytes);

// The file of one run, as hipfile-bench found it and made it.
class DataSet {
 public:
  // Opens (or creates) o.file and makes it hold what the run needs: a read run o.size bytes, and
  // the pattern over them with -V; a -x 4 write (which maps the file) o.size bytes. Writes only a
  // file it created, its own data set, an empty file, or any file with --overwrite; says on
  // stderr what it creates or writes (with progress on a terminal). Returns 0, else the exit
  // status after one line on stderr: 2 for a file it will not write or a path that is no regular
  // file, 1 for a failed system call.
  int Prepare(const Options& o);

  // After a write run on the file open as `fd`: records in the marker what the file holds now,
  // of which the first `pattern_end` bytes (at most) are the pattern. False after a message.
  bool RecordWrite(int fd, uint64_t pattern_end);

  // Whether the file is hipfile-bench's data set (or became it for this run).
  bool ours() const { return ours_; }
  // How many bytes from offset 0 hold the pattern (0 for a file that is not ours).
  uint64_t pattern() const { return pattern_; }
  // Why the file is not ours, in words ("no marker FILE.hipfile-bench", ...).
  const std::string& not_ours_reason() const { return why_not_ours_; }

 private:
  // Whether the marker names the file as `st` describes it; sets pattern_ or why_not_ours_.
  bool ReadMarker(const struct stat& st);
  // Writes the marker for the file open as `fd`, with pattern_.
  bool WriteMarker(int fd);
  // Writes the pattern into bytes [from, to) of the file open as `fd`; returns the offset up to
  // which it did (`to`, or less after a message).
  uint64_t Fill(int fd, uint64_t from, uint64_t to);

  std::string path_;
  std::string marker_;
  bool created_ = false;
  bool ours_ = false;
  uint64_t pattern_ = 0;
  std::string why_not_ours_;
};

}  // namespace hipfile_bench
