// FileMapping: a read-only, shared mapping of part of a file, made for one request and unmapped
// by the destructor. It answers which pages are in the page cache (mincore) and is what the
// page-cache path pins and copies from. A fresh mapping per request sees the file as it is now.
//
// Pages past end of file must never be touched (SIGBUS): callers map only up to a size they
// read with fstat.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/plan.h"
#include "platform/sys.h"
#include "util/status.h"

namespace hipfile::engine {

class FileMapping {
 public:
  explicit FileMapping(platform::Sys& sys) : sys_(sys) {}
  ~FileMapping() { Unmap(); }
  FileMapping(const FileMapping&) = delete;
  FileMapping& operator=(const FileMapping&) = delete;

  // Maps the pages holding [offset, offset + size) of `fd`; `page` is the page size.
  Status Map(int fd, uint64_t offset, size_t size, size_t page);
  void Unmap();

  // The resident parts of [offset, offset + size), which must lie inside the mapping: sorted,
  // disjoint, neighbours merged.
  Status Residency(uint64_t offset, size_t size, std::vector<ByteRange>* resident) const;

  bool mapped() const { return base_ != nullptr; }
  char* base() const { return base_; }
  uint64_t file_offset() const { return file_offset_; }  // of base(); page aligned
  size_t length() const { return length_; }

 private:
  platform::Sys& sys_;
  char* base_ = nullptr;
  uint64_t file_offset_ = 0;
  size_t length_ = 0;
  size_t page_ = 4096;
};

}  // namespace hipfile::engine
