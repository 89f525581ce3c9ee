// SPDX-License-Identifier: MIT
// A probe's source buffer in the page cache, as the library's windows are: a file of `bytes`
// written through the page cache (fill(block, offset, n) makes each block's bytes), mapped
// read-only and shared with every page populated, and unlinked (the mapping keeps its pages).
// Exits the probe on any failure. The caller registers it with CUDA and munmaps it.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

template <typename Fill>
unsigned char* MapFileSource(const std::string& path, size_t bytes, Fill fill) {
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) {
    std::perror(path.c_str());
    std::exit(2);
  }
  std::vector<unsigned char> block(size_t{1} << 20);
  for (size_t done = 0; done < bytes; done += block.size()) {
    const size_t n = bytes - done < block.size() ? bytes - done : block.size();
    fill(block.data(), done, n);
    if (write(fd, block.data(), n) != static_cast<ssize_t>(n)) {
      std::perror("write");
      std::exit(2);
    }
  }
  void* p = mmap(nullptr, bytes, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
  close(fd);
  unlink(path.c_str());
  if (p == MAP_FAILED) {
    std::perror("mmap");
    std::exit(2);
  }
  return static_cast<unsigned char*>(p);
}
