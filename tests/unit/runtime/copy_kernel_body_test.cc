// SPDX-License-Identifier: MIT
// The copy kernels' thread bodies (runtime/cuda/copy_kernel_body.h, the code nvcc compiles into
// the PTX the library carries) run on the host, every thread of a launch in turn: what a table
// or a gather launch copies, for grids of any size, aligned and not, and what it leaves alone.
// The GPU runs the same bodies (bench/probes/gpu-test-run.sh runs the suite there).
#include "runtime/cuda/copy_kernel_body.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/cuda/gather_kernel.h"

namespace hipfile::kernels {
namespace {

constexpr unsigned char kUntouched = 0xEE;

// Source and destination memory, allocated as the kernels' 16-byte words (what they load and
// store), with a reference of what the destination must hold.
class Memory {
 public:
  explicit Memory(size_t bytes)
      : src_(bytes / sizeof(Word16) + 1),
        dst_(src_.size()),
        expected_(src_.size() * sizeof(Word16)) {
    auto* s = reinterpret_cast<unsigned char*>(src_.data());
    for (size_t i = 0; i < expected_.size(); ++i) s[i] = static_cast<unsigned char>(i * 131 + 7);
    std::memset(dst_.data(), kUntouched, expected_.size());
    std::memset(expected_.data(), kUntouched, expected_.size());
  }

  // A copy of `bytes` from source offset `from` to destination offset `to`, expected made.
  GatherCopy Copy(size_t from, size_t to, size_t bytes) {
    std::memcpy(expected_.data() + to, reinterpret_cast<unsigned char*>(src_.data()) + from, bytes);
    return Unexpected(from, to, bytes);
  }
  // The same copy, expected not to be made.
  GatherCopy Unexpected(size_t from, size_t to, size_t bytes) {
    return {Address(dst_.data()) + to, Address(src_.data()) + from, bytes};
  }

  bool Matches() const { return std::memcmp(dst_.data(), expected_.data(), expected_.size()) == 0; }
  size_t FirstDifference() const {
    const auto* d = reinterpret_cast<const unsigned char*>(dst_.data());
    for (size_t i = 0; i < expected_.size(); ++i) {
      if (d[i] != expected_[i]) return i;
    }
    return expected_.size();
  }

 private:
  static unsigned long long Address(void* p) { return reinterpret_cast<uintptr_t>(p); }

  std::vector<Word16> src_, dst_;
  std::vector<unsigned char> expected_;
};

// A launch of hipfile_copy_table: every thread of `blocks` x `threads`.
void RunTable(const GatherArgs& table, unsigned token, unsigned blocks, unsigned threads) {
  const unsigned long long grid = static_cast<unsigned long long>(blocks) * threads;
  for (unsigned long long t = 0; t < grid; ++t) CopyTableThread(&table, token, t, grid);
}

// A launch of hipfile_gather_copy: one block per copy.
void RunGather(const GatherArgs& args, unsigned threads) {
  for (unsigned b = 0; b < args.count; ++b) {
    for (unsigned t = 0; t < threads; ++t) GatherThread(args, b, t, threads);
  }
}

struct Grid {
  unsigned blocks, threads;
};
// The library's table grid (runtime::kCopyTableBlocks x kGatherThreadsPerBlock), one thread, and
// one whose stride divides no size below.
constexpr Grid kGrids[] = {
    {runtime::kCopyTableBlocks, runtime::kGatherThreadsPerBlock}, {1, 1}, {3, 7}};

// Copies of every kind a table holds: whole words, words and a tail, a destination or a source off
// the 16-byte grain (byte by byte), nothing, one byte.
void FillMixed(Memory& m, GatherArgs& table, unsigned token) {
  table.token = token;
  table.count = 0;
  auto add = [&](size_t from, size_t to, size_t bytes) {
    table.op[table.count++] = m.Copy(from, to, bytes);
  };
  add(0, 0, (1 << 20) + 16);               // a megabyte of words: the four-loads loop and its rest
  add(2 << 20, (2 << 20) + 64, 4096 + 7);  // words then a tail of 7 bytes
  add(3 << 20, (3 << 20) + 3, 1000);       // destination off the grain
  add((3 << 20) + 5, (3 << 20) + 4096, 777);  // source off the grain
  add(4 << 20, 4 << 20, 0);
  add((4 << 20) + 100, (4 << 20) + 200, 1);
  for (size_t words = 1; words < 200; words += 13) {  // around each grid's four-loads stride
    const size_t at = (5 << 20) + words * 64;
    add(at, at, words * 16);
  }
}

TEST(CopyKernelBodyTest, ATableFilledForItsTokenCopiesEveryEntryOnAnyGrid) {
  for (const Grid& grid : kGrids) {
    SCOPED_TRACE(testing::Message() << grid.blocks << " x " << grid.threads);
    Memory m(6 << 20);
    GatherArgs table{};
    FillMixed(m, table, 41);
    RunTable(table, 41, grid.blocks, grid.threads);
    EXPECT_TRUE(m.Matches()) << "first difference at byte " << m.FirstDifference();
  }
}

// A table filled for another launch (two tokens back: the slot is filled for the next chunk; one
// ahead), or of no copies, copies nothing.
TEST(CopyKernelBodyTest, ATableForAnotherTokenOrOfNoCopiesCopiesNothing) {
  Memory m(1 << 20);
  GatherArgs table{};
  table.token = 8;
  table.count = 2;
  table.op[0] = m.Unexpected(0, 0, 4096);
  table.op[1] = m.Unexpected(8192, 8192, 100);
  RunTable(table, 6, runtime::kCopyTableBlocks, runtime::kGatherThreadsPerBlock);
  RunTable(table, 9, 3, 7);
  table.count = 0;  // op[0] left from an earlier chunk: not a copy now
  RunTable(table, 8, runtime::kCopyTableBlocks, runtime::kGatherThreadsPerBlock);
  EXPECT_TRUE(m.Matches()) << "first difference at byte " << m.FirstDifference();
}

TEST(CopyKernelBodyTest, ACountPastTheTableMakesItsCopiesOnly) {
  Memory m(1 << 20);
  GatherArgs table{};
  table.token = 1;
  table.count = 1000;
  for (size_t e = 0; e < 128; ++e) table.op[e] = m.Copy(e * 4096, e * 4096 + 16, 64 + e);
  RunTable(table, 1, 3, 7);
  EXPECT_TRUE(m.Matches()) << "first difference at byte " << m.FirstDifference();
}

// hipfile_copy_table_run: its first table ends the run where it is filled for the run's first
// token and says `last`; otherwise the first block takes each token in turn (CopyRunToken, once
// Released), which copies a table filled for the token - every kind of copy, by the block's
// threads with loads made anew - and nothing from one filled for another.
TEST(CopyKernelBodyTest, ARunEndsWithItsFirstTableOrTakesItsTokensOneByOne) {
  GatherArgs tables[2] = {};
  tables[1].token = 7;
  tables[1].last = 1;
  EXPECT_TRUE(RunEndsWithFirst(&tables[1], 7));
  EXPECT_FALSE(RunEndsWithFirst(&tables[1], 5)) << "filled for another token";
  tables[1].last = 0;
  EXPECT_FALSE(RunEndsWithFirst(&tables[1], 7)) << "later tokens copy";
  tables[0].token = 0;
  tables[0].last = 1;
  EXPECT_TRUE(RunEndsWithFirst(&tables[0], 0));

  volatile unsigned ready = 0xfffffffeu;
  EXPECT_TRUE(Released(&ready, 0xfffffffdu));
  EXPECT_TRUE(Released(&ready, 0xfffffffeu));
  EXPECT_FALSE(Released(&ready, 0xffffffffu));
  EXPECT_FALSE(Released(&ready, 0u)) << "compared across the wrap";
  ready = 1;
  EXPECT_TRUE(Released(&ready, 0xffffffffu));

  Memory m(6 << 20);
  GatherArgs run[2] = {};
  FillMixed(m, run[1], 41);
  run[0].token = 38;  // filled two tokens back: copies nothing now
  run[0].count = 1;
  run[0].op[0] = m.Unexpected(0, 100, 4096);
  for (const unsigned token : {41u, 42u}) {
    for (unsigned t = 0; t < runtime::kGatherThreadsPerBlock; ++t) {
      CopyRunToken(run, token, t, runtime::kGatherThreadsPerBlock);
    }
  }
  EXPECT_TRUE(m.Matches()) << "first difference at byte " << m.FirstDifference();
}

TEST(CopyKernelBodyTest, AGatherLaunchMakesOneCopyPerBlock) {
  for (const unsigned threads : {runtime::kGatherThreadsPerBlock, 7u, 1u}) {
    SCOPED_TRACE(threads);
    Memory m(128 * 65536 + 65536);
    GatherArgs args{};
    for (size_t e = 0; e < 128; ++e) {
      // Up to the largest copy the library gives the kernel, every fourth off the grain.
      const size_t bytes = e == 0 ? runtime::kGatherMaxCopyBytes : (e * 509) % 65536;
      const size_t skew = e % 4 == 3 ? e % 16 : 0;
      args.op[args.count++] = m.Copy(e * 65536 + skew, e * 65536, bytes);
    }
    RunGather(args, threads);
    EXPECT_TRUE(m.Matches()) << "first difference at byte " << m.FirstDifference();
  }
}

}  // namespace
}  // namespace hipfile::kernels
