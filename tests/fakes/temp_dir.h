// SPDX-License-Identifier: MIT
// TempDir: a fresh directory for one test, removed with everything in it at the end.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hipfile::testing {

class TempDir {
 public:
  TempDir();  // under $HIPFILE_TEST_TMPDIR, else $TMPDIR, else /tmp
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Bytes where byte i is a function of (seed, i), so misplaced data is detected.
std::vector<unsigned char> PatternBytes(size_t size, unsigned seed = 1);
// Writes `data` to `path` (created or truncated), aborting the test on failure.
void WriteFileOrDie(const std::string& path, const std::vector<unsigned char>& data);
std::vector<unsigned char> ReadFileOrDie(const std::string& path);
// The file's text, or "" when it cannot be read (a log file that was never made).
std::string ReadTextOrEmpty(const std::string& path);

}  // namespace hipfile::testing
