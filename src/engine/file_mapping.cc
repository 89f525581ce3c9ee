#include "engine/file_mapping.h"

#include <sys/mman.h>

#include <algorithm>

#include "util/align.h"
#include "util/log.h"

namespace hipfile::engine {

Status FileMapping::Map(int fd, uint64_t offset, size_t size, size_t page) {
  Unmap();
  const uint64_t begin = AlignDown(offset, page);
  const uint64_t end = AlignUp(offset + size, page);
  Result<void*> p = sys_.Mmap(nullptr, static_cast<size_t>(end - begin), PROT_READ, MAP_SHARED, fd,
                              static_cast<off_t>(begin));
  if (!p.ok()) return p.status();
  base_ = static_cast<char*>(*p);
  file_offset_ = begin;
  length_ = static_cast<size_t>(end - begin);
  page_ = page;
  return Status::Ok();
}

void FileMapping::Unmap() {
  if (base_ == nullptr) return;
  const Status s = sys_.Munmap(base_, length_);
  if (!s.ok()) HF_LOG(kWarn, "unmapping a file window failed: %s", s.ToString().c_str());
  base_ = nullptr;
  length_ = 0;
}

Status FileMapping::Residency(uint64_t offset, size_t size,
                              std::vector<ByteRange>* resident) const {
  resident->clear();
  if (size == 0) return Status::Ok();
  const uint64_t first = AlignDown(offset, page_);
  const uint64_t last = AlignUp(offset + size, page_);
  std::vector<unsigned char> pages(static_cast<size_t>((last - first) / page_));
  HF_RETURN_IF_ERROR(sys_.Mincore(base_ + (first - file_offset_), static_cast<size_t>(last - first),
                                  pages.data()));
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

}  // namespace hipfile::engine
