// SPDX-License-Identifier: MIT
// The way each kind of bytes goes (engine/io_rule.h): the planner's answers for a file with and
// without O_DIRECT, on a GPU and on the CPU runtime, with the compatibility path off, io_uring
// off and direct writes off.
#include "engine/io_rule.h"

#include <gtest/gtest.h>

namespace hipfile::engine {
namespace {

IoRuleInputs Gpu(bool direct) {
  IoRuleInputs in;
  in.staged = true;
  in.page_cache = true;
  if (direct) {
    in.file.direct_fd = 100;  // never used: only whether there is one
    in.file.dio_mem_align = 512;
    in.file.dio_offset_align = 512;
  }
  return in;
}

const IoWay& Way(const IoRule& r, IoCase c) { return r.ways[static_cast<size_t>(c)]; }

void ExpectWay(const IoRule& r, IoCase c, IoPath path, Fallback why, bool o_direct = false,
               bool refused = false) {
  const IoWay& w = Way(r, c);
  EXPECT_EQ(w.path, path) << IoCaseName(c) << ": " << IoPathName(w.path);
  EXPECT_EQ(w.why, why) << IoCaseName(c) << ": " << FallbackName(w.why);
  EXPECT_EQ(w.o_direct, o_direct) << IoCaseName(c);
  EXPECT_EQ(w.refused, refused) << IoCaseName(c);
}

TEST(IoRule, GpuWithODirect) {
  const IoRule r = DescribeIoRule(Gpu(true));
  ExpectWay(r, IoCase::kReadWarm, IoPath::kPageCache, Fallback::kNone);
  ExpectWay(r, IoCase::kReadWarmUnpinned, IoPath::kBuffered, Fallback::kNotPinned);
  ExpectWay(r, IoCase::kReadCold, IoPath::kDirect, Fallback::kNone, true);
  ExpectWay(r, IoCase::kReadUnaligned, IoPath::kBuffered, Fallback::kUnaligned);
  ExpectWay(r, IoCase::kReadSmall, IoPath::kBuffered, Fallback::kSmall);
  ExpectWay(r, IoCase::kBatchSmall, IoPath::kIoUring, Fallback::kNone);
  ExpectWay(r, IoCase::kWriteAligned, IoPath::kDirect, Fallback::kNone, true);
  ExpectWay(r, IoCase::kWriteUnaligned, IoPath::kBuffered, Fallback::kUnaligned);
  EXPECT_EQ(r.grouped_max_bytes, SyncEngine::kMaxGroupedBytes);
}

TEST(IoRule, PinnedAtTheFirstReadHasNoUnpinnedReads) {
  IoRuleInputs in = Gpu(true);
  in.options.page_cache_pin_after_uses = 1;
  ExpectWay(DescribeIoRule(in), IoCase::kReadWarmUnpinned, IoPath::kPageCache, Fallback::kNone);
}

TEST(IoRule, GpuWithoutODirectNorPageCacheNorRing) {
  IoRuleInputs in = Gpu(false);
  in.page_cache = false;
  in.ring = false;
  const IoRule r = DescribeIoRule(in);
  // Nothing to look residency up for: warm data is read as cold, buffered for want of O_DIRECT.
  ExpectWay(r, IoCase::kReadWarm, IoPath::kBuffered, Fallback::kNoDirect);
  ExpectWay(r, IoCase::kReadCold, IoPath::kBuffered, Fallback::kNoDirect);
  ExpectWay(r, IoCase::kBatchSmall, IoPath::kBuffered, Fallback::kNoRing);
  ExpectWay(r, IoCase::kWriteAligned, IoPath::kBuffered, Fallback::kNoDirect);
}

TEST(IoRule, DirectWritesOffAndIoUringOff) {
  IoRuleInputs in = Gpu(true);
  in.options.direct_writes = false;
  in.options.io_uring = false;
  const IoRule r = DescribeIoRule(in);
  ExpectWay(r, IoCase::kWriteAligned, IoPath::kBuffered, Fallback::kDirectOff);
  ExpectWay(r, IoCase::kBatchSmall, IoPath::kBuffered, Fallback::kNoRing);
  ExpectWay(r, IoCase::kReadCold, IoPath::kDirect, Fallback::kNone, true);
}

TEST(IoRule, CompatOffIsDirectOnlyAndRefusesTheRest) {
  IoRuleInputs in = Gpu(true);
  in.allow_compat = false;
  IoRule r = DescribeIoRule(in);
  // No residency lookup: cached data is read with O_DIRECT too, small reads as well.
  ExpectWay(r, IoCase::kReadWarm, IoPath::kDirect, Fallback::kNone, true);
  ExpectWay(r, IoCase::kReadSmall, IoPath::kDirect, Fallback::kNone, true);
  ExpectWay(r, IoCase::kReadUnaligned, IoPath::kBuffered, Fallback::kUnaligned, false, true);
  ExpectWay(r, IoCase::kWriteUnaligned, IoPath::kBuffered, Fallback::kUnaligned, false, true);
  EXPECT_EQ(r.grouped_max_bytes, 0u);  // small entries are not grouped
  in.file = IoFile{};                  // and without O_DIRECT nothing reads
  r = DescribeIoRule(in);
  ExpectWay(r, IoCase::kReadCold, IoPath::kBuffered, Fallback::kNoDirect, false, true);
}

TEST(IoRule, HostMemoryIsNeverRefused) {
  IoRuleInputs in = Gpu(true);
  in.staged = false;  // the CPU runtime: device memory is host memory
  in.page_cache = PageCacheEnabled(PageCacheMode::kAuto, /*device_memory_is_host=*/true);
  in.allow_compat = false;
  const IoRule r = DescribeIoRule(in);
  ExpectWay(r, IoCase::kReadWarm, IoPath::kHost, Fallback::kWarm);
  ExpectWay(r, IoCase::kReadCold, IoPath::kHost, Fallback::kNone, true);
  ExpectWay(r, IoCase::kReadUnaligned, IoPath::kHost, Fallback::kUnaligned);
  ExpectWay(r, IoCase::kWriteAligned, IoPath::kHost, Fallback::kNone, true);
  EXPECT_EQ(r.grouped_max_bytes, 0u);
}

TEST(IoRule, CaseNames) {
  EXPECT_STREQ(IoCaseName(IoCase::kReadWarm), "read_warm");
  EXPECT_STREQ(IoCaseName(IoCase::kWriteUnaligned), "write_unaligned");
  EXPECT_STREQ(IoCaseName(static_cast<IoCase>(kIoCaseCount)), "unknown");
}

}  // namespace
}  // namespace hipfile::engine
