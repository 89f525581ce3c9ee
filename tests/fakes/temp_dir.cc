// SPDX-License-Identifier: MIT
#include "fakes/temp_dir.h"

#include <fcntl.h>
#include <ftw.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace hipfile::testing {
namespace {

[[noreturn]] void Die(const char* what, const std::string& path) {
  std::fprintf(stderr, "test setup failed: %s %s: %s\n", what, path.c_str(), std::strerror(errno));
  std::abort();
}

int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); }

}  // namespace

TempDir::TempDir() {
  const char* base = std::getenv("HIPFILE_TEST_TMPDIR");
  if (base == nullptr || *base == '\0') base = std::getenv("TMPDIR");
  if (base == nullptr || *base == '\0') base = "/tmp";
  std::string pattern = std::string(base) + "/hipfile-test.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) Die("mkdtemp", pattern);
  path_ = pattern;
}

TempDir::~TempDir() { ::nftw(path_.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS); }

std::vector<unsigned char> PatternBytes(size_t size, unsigned seed) {
  std::vector<unsigned char> out(size);
  uint64_t state = 0x9E3779B97F4A7C15ull * (seed + 1);
  const auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<unsigned char>(state >> 32);
  };
  // A byte a step, stored eight at a time (under TSan a store a byte was much of the stress
  // tests' time); the bytes are the same as one store a step.
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the word's first byte is its lowest");
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word = 0;
    for (unsigned k = 0; k < 8; ++k) word |= uint64_t{next()} << (8 * k);
    std::memcpy(out.data() + i, &word, 8);
  }
  for (; i < size; ++i) out[i] = next();
  return out;
}

void WriteFileOrDie(const std::string& path, const std::vector<unsigned char>& data) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) Die("open", path);
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Die("write", path);
    done += static_cast<size_t>(n);
  }
  ::close(fd);
}

std::vector<unsigned char> ReadFileOrDie(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Die("open", path);
  std::vector<unsigned char> out;
  unsigned char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) Die("read", path);
    if (n == 0) break;
    out.insert(out.end(), chunk, chunk + n);
  }
  ::close(fd);
  return out;
}

std::string ReadTextOrEmpty(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace hipfile::testing
