// SPDX-License-Identifier: MIT
// The data side of stream-ordered staged I/O (engine/stream_staging.h): the slots and tables a
// stream copies through, the chunk steps a worker takes, and the split of the one pinned staging
// limit between transfers and streams.
#include "engine/stream_staging.h"

#include <errno.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "fakes/temp_dir.h"
#include "util/align.h"

namespace hipfile::engine {
namespace {

constexpr size_t kChunk = kStreamChunkBytes;

// A block and a stream's tables in ordinary memory: the steps make no GPU call, so none is needed.
struct HeapBlock {
  std::unique_ptr<unsigned char[]> bytes{new unsigned char[StreamStagingBlock::kBytes]};
  StreamStagingBlock block{bytes.get()};
  std::unique_ptr<runtime::CopyTable[]> table_bytes{new runtime::CopyTable[2]};
  StreamCopyTables tables{table_bytes.get()};
};

// An operation over all of `device`.
StagedChunks ChunksOver(std::vector<unsigned char>& device, uint32_t first_token = 0,
                        off_t file_offset = 0) {
  StagedChunks chunks;
  chunks.first_token = first_token;
  chunks.device = device.data();
  chunks.size = device.size();
  chunks.file_offset = file_offset;
  return chunks;
}

// Whether the stream's launch for `token` copies nothing from its table as the table is now
// (GpuRuntime::CopyTableAsync: a table filled for another token copies nothing).
bool LaunchCopiesNothing(const StreamCopyTables& tables, uint32_t token) {
  return tables.Table(token)->CopiesNothingFor(token);
}

// A stream in the test: makes the copies the launch for `token` makes, as CopyTableAsync would
// when the stream got there.
void CopyAsTheStreamWould(const StreamCopyTables& tables, uint32_t token) {
  if (LaunchCopiesNothing(tables, token)) return;
  const runtime::CopyTable* table = tables.Table(token);
  for (uint32_t i = 0; i < table->count; ++i) {
    const runtime::CopyTable::Copy& c = table->copy[i];
    std::memmove(reinterpret_cast<void*>(static_cast<uintptr_t>(c.dst)),
                 reinterpret_cast<const void*>(static_cast<uintptr_t>(c.src)), c.bytes);
  }
}

TEST(StreamStagingTest, TokensAlternateBetweenTwoSlotsAndTwoTables) {
  HeapBlock heap;
  const StreamStagingBlock& b = heap.block;
  EXPECT_EQ(b.Slot(0), heap.bytes.get());
  EXPECT_EQ(b.Slot(1), heap.bytes.get() + kChunk);
  EXPECT_EQ(b.Slot(2), b.Slot(0));
  EXPECT_EQ(b.Slot(1) + kChunk, heap.bytes.get() + StreamStagingBlock::kBytes);
  const StreamCopyTables& t = heap.tables;
  EXPECT_EQ(t.Table(0), heap.table_bytes.get());
  EXPECT_NE(t.Table(0), t.Table(1));
  EXPECT_EQ(t.Table(7), t.Table(1));
}

TEST(StreamStagingTest, AReadFillsEachSlotAndItsTableThenSaysReady) {
  HeapBlock heap;
  std::vector<unsigned char> device(2 * kChunk + 100);
  StagedChunks chunks = ChunksOver(device, 5, 4096);
  uint32_t ready = 0;
  std::vector<off_t> asked;
  const ChunkMover move = [&](void* staging, size_t bytes, off_t at) -> Result<size_t> {
    asked.push_back(at);
    std::memset(staging, 0x40 + static_cast<int>(asked.size()), bytes);
    return bytes;
  };
  EXPECT_EQ(StagedChunks::ChunksFor(chunks.size), 3u);
  for (size_t k = 0; k < 3; ++k) {
    chunks.FillForRead(heap.block, heap.tables, &ready, k, move);
    EXPECT_EQ(ready, 5 + k);
    const runtime::CopyTable* table = heap.tables.Table(chunks.Token(k));
    ASSERT_EQ(table->count, 1u);
    EXPECT_EQ(table->copy[0].dst, reinterpret_cast<uintptr_t>(device.data() + k * kChunk));
    EXPECT_EQ(table->copy[0].src, reinterpret_cast<uintptr_t>(heap.block.Slot(chunks.Token(k))));
    EXPECT_EQ(table->copy[0].bytes, k < 2 ? kChunk : 100u);
    EXPECT_EQ(table->last, k == 2 ? 1u : 0u) << "only the chunk that ends the read says so";
  }
  EXPECT_EQ(asked, (std::vector<off_t>{4096, 4096 + static_cast<off_t>(kChunk),
                                       4096 + 2 * static_cast<off_t>(kChunk)}));
  ASSERT_TRUE(chunks.Outcome().ok());
  EXPECT_EQ(*chunks.Outcome(), device.size());
}

TEST(StreamStagingTest, AShortReadStopsTheChunksAfterIt) {
  HeapBlock heap;
  std::vector<unsigned char> device(3 * kChunk);
  StagedChunks chunks = ChunksOver(device);
  uint32_t ready = 0;
  int calls = 0;
  const ChunkMover move = [&](void*, size_t bytes, off_t) -> Result<size_t> {
    return ++calls == 1 ? bytes : size_t{10};  // end of file in the second chunk
  };
  for (size_t k = 0; k < 3; ++k) chunks.FillForRead(heap.block, heap.tables, &ready, k, move);
  EXPECT_EQ(calls, 2);  // the third chunk asks for nothing
  EXPECT_EQ(heap.tables.Table(1)->copy[0].bytes, 10u);
  EXPECT_EQ(heap.tables.Table(1)->last, 1u) << "a short read ends the copies";
  EXPECT_TRUE(LaunchCopiesNothing(heap.tables, 2)) << "past end of file the stream copies nothing";
  EXPECT_EQ(ready, 2u);  // the stream is still let through every chunk
  EXPECT_EQ(*chunks.Outcome(), kChunk + 10);
}

TEST(StreamStagingTest, AFailedFirstChunkIsTheOutcome) {
  HeapBlock heap;
  std::vector<unsigned char> device(kChunk);
  StagedChunks chunks = ChunksOver(device);
  uint32_t ready = 0;
  const ChunkMover move = [](void*, size_t, off_t) -> Result<size_t> { return Status::Errno(EIO); };
  chunks.FillForRead(heap.block, heap.tables, &ready, 0, move);
  EXPECT_EQ(heap.tables.Table(0)->count, 0u);
  EXPECT_TRUE(chunks.Outcome().status().IsErrno(EIO));
}

// A file in memory: `file` at file offset `base`, whose bytes in [window_begin, window_end) are a
// pinned window (the finder's answer there) and the rest is staged from the same bytes.
struct FakeFile {
  std::vector<unsigned char> bytes;
  off_t base = 0;
  std::vector<std::pair<size_t, size_t>> windows;  // [begin, end) relative to base, sorted
  std::vector<off_t> staged_at;                    // what the mover was asked, in order
  int finds = 0;

  ChunkMover Mover() {
    return [this](void* staging, size_t n, off_t at) -> Result<size_t> {
      staged_at.push_back(at);
      const size_t from = static_cast<size_t>(at - base);
      const size_t got = from >= bytes.size() ? 0 : std::min(n, bytes.size() - from);
      std::memcpy(staging, bytes.data() + from, got);
      return got;
    };
  }
  WindowFinder Finder() {
    return [this](off_t at, size_t max) {
      ++finds;
      const size_t from = static_cast<size_t>(at - base);
      for (const auto& [begin, end] : windows) {
        if (from >= end) continue;
        if (from < begin) return ResidentPiece{nullptr, begin - from, nullptr};
        auto lease = std::make_shared<int>(0);
        return ResidentPiece{bytes.data() + from, std::min(max, end - from), lease};
      }
      return ResidentPiece{};
    };
  }
};

// Runs a read of `chunks` through FillForRead and the test's stream, chunk by chunk, as the
// executor orders them: chunk k is filled once the stream copied chunk k - 2, unless it is quiet.
// Returns the chunks that were filled without that wait.
size_t ReadThroughTheStream(StagedChunks& chunks, HeapBlock& heap, FakeFile& file) {
  uint32_t ready = chunks.first_token - 1;
  size_t quiet = 0;
  const size_t n = StagedChunks::ChunksFor(chunks.size);
  for (size_t k = 0; k < n; ++k) {
    if (chunks.Quiet(heap.tables, k)) ++quiet;
    chunks.FillForRead(heap.block, heap.tables, &ready, k, file.Mover(), file.Finder());
    EXPECT_EQ(ready, chunks.Token(k));
    CopyAsTheStreamWould(heap.tables, chunks.Token(k));
  }
  return quiet;
}

TEST(StreamStagingTest, AReadFromAWindowIsOneCopyAndTheChunksAfterItCopyNothing) {
  HeapBlock heap;
  std::vector<unsigned char> device(3 * kChunk + 100, 0xee);
  StagedChunks chunks = ChunksOver(device, 8, 4096);
  FakeFile file{testing::PatternBytes(device.size(), 3), 4096, {{0, device.size()}}, {}, 0};
  uint32_t ready = 0;
  chunks.FillForRead(heap.block, heap.tables, &ready, 0, file.Mover(), file.Finder());
  const runtime::CopyTable* first = heap.tables.Table(8);
  ASSERT_EQ(first->count, 1u);
  EXPECT_EQ(first->copy[0].src, reinterpret_cast<uintptr_t>(file.bytes.data()));
  EXPECT_EQ(first->copy[0].dst, reinterpret_cast<uintptr_t>(device.data()));
  EXPECT_EQ(first->copy[0].bytes, device.size()) << "one copy, past the chunk's 2 MiB";
  EXPECT_EQ(first->last, 1u) << "the read's copies end here (CopyTableRunAsync stops)";
  EXPECT_TRUE(chunks.Leased());
  EXPECT_EQ(chunks.leased_until, 8u);
  EXPECT_EQ(chunks.from_windows, device.size());
  // The chunks after it copy nothing: each goes at once, with the stream anywhere, and leaves its
  // table alone. Chunk 2's table still holds chunk 0's copy, which its launch does not make.
  for (size_t k = 1; k < 4; ++k) {
    EXPECT_TRUE(chunks.Quiet(heap.tables, k)) << "chunk " << k;
    chunks.FillForRead(heap.block, heap.tables, &ready, k, file.Mover(), file.Finder());
    EXPECT_EQ(ready, chunks.Token(k));
  }
  EXPECT_EQ(heap.tables.Table(10), first);
  EXPECT_EQ(first->token, 8u);
  EXPECT_EQ(first->count, 1u);
  CopyAsTheStreamWould(heap.tables, 8);
  EXPECT_EQ(device, file.bytes);
  std::fill(device.begin(), device.end(), 0xee);
  for (uint32_t token = 9; token <= 11; ++token) CopyAsTheStreamWould(heap.tables, token);
  EXPECT_EQ(device, std::vector<unsigned char>(device.size(), 0xee))
      << "a launch after chunk 0's copied again";
  EXPECT_TRUE(file.staged_at.empty()) << "nothing was staged";
  EXPECT_EQ(*chunks.Outcome(), device.size());
}

// In runs (a read copied ahead in parts: run_bytes), a run's first chunk takes its whole run
// where the copy ahead serves it, and its table ends the run (CopyTable::last); the run's other
// chunks copy nothing and go at once. A chunk never takes bytes of the next run, and a run whose
// first chunk is staged ends at the chunk that reaches its end. Every byte arrives.
TEST(StreamStagingTest, InRunsTheFirstChunkTakesItsRunAndTheOthersCopyNothing) {
  HeapBlock heap;
  std::vector<unsigned char> device(5 * kChunk + 100, 0xee);
  StagedChunks chunks = ChunksOver(device, 4, 8192);
  chunks.run_bytes = 2 * kChunk;  // runs: chunks 0-1, 2-3, 4-5
  FakeFile file{testing::PatternBytes(device.size(), 5), 8192, {}, {}, 0};
  size_t k = 0;
  bool serve = true;  // the copy ahead holds chunk k's run (file offsets [run start, run end))
  const WindowFinder ahead = [&](off_t at, size_t max) {
    const size_t from = static_cast<size_t>(at - file.base);
    const size_t run = k * kChunk / chunks.run_bytes;
    const size_t begin = run * chunks.run_bytes;
    const size_t end = std::min(device.size(), begin + chunks.run_bytes);
    if (!serve || from < begin || from >= end) return ResidentPiece{};
    return ResidentPiece{file.bytes.data() + from, std::min(max, end - from),
                         std::make_shared<int>(0)};
  };
  uint32_t ready = 0;
  const auto fill = [&](size_t chunk) {
    k = chunk;
    chunks.FillForRead(heap.block, heap.tables, &ready, chunk, file.Mover(), ahead);
    EXPECT_EQ(ready, chunks.Token(chunk));
  };
  for (size_t run = 0; run < 3; ++run) {
    SCOPED_TRACE(run);
    const size_t first = 2 * run;
    EXPECT_FALSE(chunks.Quiet(heap.tables, first));
    fill(first);
    const runtime::CopyTable* table = heap.tables.Table(chunks.Token(first));
    ASSERT_EQ(table->count, 1u);
    EXPECT_EQ(table->copy[0].bytes, std::min(2 * kChunk, device.size() - first * kChunk));
    EXPECT_EQ(table->last, 1u) << "the run's copies end with its first table";
    CopyAsTheStreamWould(heap.tables, chunks.Token(first));
    EXPECT_TRUE(chunks.Quiet(heap.tables, first + 1)) << "its run taken already";
    fill(first + 1);
    CopyAsTheStreamWould(heap.tables, chunks.Token(first + 1));
  }
  EXPECT_EQ(device, file.bytes);
  EXPECT_TRUE(file.staged_at.empty());
  EXPECT_EQ(*chunks.Outcome(), device.size());

  // Without the copy ahead (values bound elsewhere): the chunks stage their shares, and each
  // run's table that reaches its end says so.
  std::fill(device.begin(), device.end(), 0xee);
  StagedChunks staged = ChunksOver(device, 20, 8192);
  staged.run_bytes = 2 * kChunk;
  serve = false;
  for (size_t chunk = 0; chunk < 6; ++chunk) {
    SCOPED_TRACE(chunk);
    EXPECT_FALSE(staged.Quiet(heap.tables, chunk));
    k = chunk;
    staged.FillForRead(heap.block, heap.tables, &ready, chunk, file.Mover(), ahead);
    EXPECT_EQ(heap.tables.Table(staged.Token(chunk))->last, chunk % 2 == 1 ? 1u : 0u);
    CopyAsTheStreamWould(heap.tables, staged.Token(chunk));
  }
  EXPECT_EQ(device, file.bytes);
  EXPECT_EQ(file.staged_at.size(), 6u) << "each chunk its share";
}

// A table last filled for the very token 2^32 tokens earlier, with copies in it: the chunk that
// copies nothing cannot leave it so (the launch would make them); it waits and empties it.
TEST(StreamStagingTest, ATableFilledForTheSameTokenLongAgoIsEmptied) {
  HeapBlock heap;
  std::vector<unsigned char> device(2 * kChunk);
  StagedChunks chunks = ChunksOver(device, 6);
  chunks.stopped = true;  // nothing moves
  runtime::CopyTable* table = heap.tables.Table(7);
  table->token = 7;
  table->count = 1;
  EXPECT_TRUE(chunks.Quiet(heap.tables, 0));  // table 0: filled for token 0, copies nothing
  EXPECT_FALSE(chunks.Quiet(heap.tables, 1));
  uint32_t ready = 0;
  const ChunkMover move = [](void*, size_t, off_t) -> Result<size_t> { return size_t{0}; };
  chunks.FillForRead(heap.block, heap.tables, &ready, 1, move);
  EXPECT_EQ(ready, 7u);
  EXPECT_TRUE(LaunchCopiesNothing(heap.tables, 7));
  EXPECT_TRUE(chunks.Quiet(heap.tables, 1));
}

TEST(StreamStagingTest, WindowsAndStagingMixInOneChunkAndEveryByteArrives) {
  HeapBlock heap;
  constexpr size_t kHalf = kChunk / 2;
  constexpr off_t kBase = 1 << 20;  // the operation's file offset
  std::vector<unsigned char> device(4 * kChunk + 5, 0xee);
  StagedChunks chunks = ChunksOver(device, 3, kBase);
  // A window ending short of chunk 0's share, staged bytes up to the next window, a window that
  // runs past chunk 1's share, then staging to the end.
  FakeFile file{testing::PatternBytes(device.size(), 5),
                kBase,
                {{0, kHalf + kHalf / 2}, {kHalf * 5 / 2, 3 * kChunk}},
                {},
                0};
  const size_t quiet = ReadThroughTheStream(chunks, heap, file);
  EXPECT_EQ(device, file.bytes) << "every byte, from windows or staging";
  ASSERT_TRUE(chunks.Outcome().ok());
  EXPECT_EQ(*chunks.Outcome(), device.size());
  EXPECT_EQ(chunks.from_windows, kHalf + kHalf / 2 + 3 * kChunk - kHalf * 5 / 2);
  // Chunk 0: the window, then staging cut where the next window starts (1.25 chunks in), then,
  // past its share, the second window, to 3 chunks (windows only past the floor). Chunk 1:
  // staged to 4 chunks (one piece: its share was taken). Chunk 2: the rest; chunks 3 and 4 copy
  // nothing.
  EXPECT_EQ(file.staged_at, (std::vector<off_t>{kBase + static_cast<off_t>(kHalf + kHalf / 2),
                                                kBase + static_cast<off_t>(3 * kChunk),
                                                kBase + static_cast<off_t>(4 * kChunk)}));
  EXPECT_TRUE(LaunchCopiesNothing(heap.tables, chunks.Token(4)));
  EXPECT_EQ(quiet, 2u) << "chunks 3 and 4 copy nothing and go at once";
  EXPECT_EQ(chunks.leased_until, chunks.Token(0));
}

// A read across several windows, every byte in one (adjacent windows are separate pieces): its
// first table takes them all, past its share, and ends the run (CopyTable::last), so that the
// run's launch copies the whole read with its grid; the chunks after it copy nothing. The
// windows of one file follow one another in memory (one mapping), as the test's do: one copy
// takes them all. In runs (a read copied ahead in parts), no table goes past its floor through
// windows.
TEST(StreamStagingTest, AReadAcrossWindowsIsCopiedWholeByItsFirstTable) {
  HeapBlock heap;
  std::vector<unsigned char> device(4 * kChunk + 100, 0xee);
  const size_t size = device.size();
  FakeFile file{testing::PatternBytes(size, 10),
                8192,
                {{0, kChunk + kChunk / 2}, {kChunk + kChunk / 2, 3 * kChunk}, {3 * kChunk, size}},
                {},
                0};
  StagedChunks chunks = ChunksOver(device, 5, 8192);
  uint32_t ready = 0;
  chunks.FillForRead(heap.block, heap.tables, &ready, 0, file.Mover(), file.Finder());
  const runtime::CopyTable* first = heap.tables.Table(5);
  ASSERT_EQ(first->count, 1u) << "one copy through the windows, which follow one another";
  EXPECT_EQ(first->copy[0].bytes, size);
  EXPECT_EQ(first->last, 1u) << "the read's copies end with its first table";
  EXPECT_EQ(chunks.leases.size(), 3u) << "each window held";
  EXPECT_EQ(chunks.assigned, size);
  EXPECT_EQ(chunks.from_windows, size);
  EXPECT_EQ(chunks.leased_until, 5u);
  for (size_t k = 1; k < StagedChunks::ChunksFor(size); ++k) {
    EXPECT_TRUE(chunks.Quiet(heap.tables, k)) << "chunk " << k;
  }
  // Again through the stream, from a fresh buffer: every chunk after the first goes at once.
  std::fill(device.begin(), device.end(), 0xee);
  StagedChunks again = ChunksOver(device, 5, 8192);
  EXPECT_EQ(ReadThroughTheStream(again, heap, file), StagedChunks::ChunksFor(size) - 1);
  EXPECT_EQ(device, file.bytes);
  EXPECT_TRUE(file.staged_at.empty()) << "nothing was staged";

  // In runs of 2 chunks, no window past the floor: the first table takes the first window (1.5
  // chunks, past its 1-chunk share in one piece) and stops there.
  StagedChunks runs = ChunksOver(device, 20, 8192);
  runs.run_bytes = 2 * kChunk;
  runs.FillForRead(heap.block, heap.tables, &ready, 0, file.Mover(), file.Finder());
  EXPECT_EQ(heap.tables.Table(20)->count, 1u);
  EXPECT_EQ(runs.assigned, kChunk + kChunk / 2);
}

// More windows than a table has entries (a read across more than 127 64 MiB windows, 7.9 GiB):
// still one copy, ending the run with the first table, where a copy a window filled the table and
// left the rest of the read to the run's later tokens, which its launch takes on one block.
TEST(StreamStagingTest, AReadAcrossMoreWindowsThanATableHoldsIsOneCopy) {
  HeapBlock heap;
  constexpr size_t kWindow = 64 * 1024;
  constexpr size_t kWindows = runtime::CopyTable::kMaxCopies + 72;
  std::vector<unsigned char> device(kWindows * kWindow, 0xee);
  FakeFile file{testing::PatternBytes(device.size(), 12), 0, {}, {}, 0};
  for (size_t w = 0; w < kWindows; ++w) file.windows.emplace_back(w * kWindow, (w + 1) * kWindow);
  StagedChunks chunks = ChunksOver(device, 3, 0);
  EXPECT_EQ(ReadThroughTheStream(chunks, heap, file), StagedChunks::ChunksFor(device.size()) - 1)
      << "every chunk after the first copies nothing";
  const runtime::CopyTable* first = heap.tables.Table(3);
  ASSERT_EQ(first->count, 1u);
  EXPECT_EQ(first->copy[0].bytes, device.size());
  EXPECT_EQ(first->last, 1u);
  EXPECT_EQ(chunks.leases.size(), kWindows);
  EXPECT_EQ(chunks.from_windows, device.size());
  EXPECT_TRUE(file.staged_at.empty());
  EXPECT_EQ(device, file.bytes);
}

// Pieces that do not follow one another in memory stay copies of their own: two windows whose
// bytes lie apart, and a window after a staged piece.
TEST(StreamStagingTest, PiecesApartInMemoryAreCopiesOfTheirOwn) {
  HeapBlock heap;
  std::vector<unsigned char> device(3 * kChunk, 0xee);
  const std::vector<unsigned char> want = testing::PatternBytes(device.size(), 13);
  // [0, 1 chunk) and [1, 2 chunks) from two separate buffers; the rest staged.
  std::vector<unsigned char> low(want.begin(), want.begin() + kChunk);
  std::vector<unsigned char> high(want.begin() + kChunk, want.begin() + 2 * kChunk);
  ASSERT_NE(low.data() + low.size(), high.data()) << "the test needs the buffers apart";
  auto lease = std::make_shared<int>(0);
  const WindowFinder apart = [&](off_t at, size_t max) {
    const auto from = static_cast<size_t>(at);
    if (from < kChunk) return ResidentPiece{low.data() + from, std::min(max, kChunk - from), lease};
    if (from < 2 * kChunk) {
      return ResidentPiece{high.data() + (from - kChunk), std::min(max, 2 * kChunk - from), lease};
    }
    return ResidentPiece{};
  };
  const ChunkMover move = [&](void* staging, size_t n, off_t at) -> Result<size_t> {
    std::memcpy(staging, want.data() + at, n);
    return n;
  };
  StagedChunks chunks = ChunksOver(device);
  uint32_t ready = 0;
  chunks.FillForRead(heap.block, heap.tables, &ready, 0, move, apart);
  const runtime::CopyTable* table = heap.tables.Table(0);
  ASSERT_EQ(table->count, 2u) << "one copy a window: they lie apart";
  EXPECT_EQ(table->copy[1].src, reinterpret_cast<uintptr_t>(high.data()));
  CopyAsTheStreamWould(heap.tables, 0);
  for (size_t k = 1; k < 3; ++k) {
    chunks.FillForRead(heap.block, heap.tables, &ready, k, move, apart);
    CopyAsTheStreamWould(heap.tables, static_cast<uint32_t>(k));
  }
  EXPECT_EQ(*chunks.Outcome(), device.size());
  EXPECT_EQ(device, want);
}

// The kernel moves 16-byte words only where a copy starts on them (copy_kernel_body.h): a window
// that starts on words after one that does not stays a copy of its own, so that it moves in
// words; one after a copy that starts on words joins it (words go on through the join).
TEST(StreamStagingTest, AWindowOnWordsAfterOneOffThemIsNotJoined) {
  HeapBlock heap;
  std::vector<unsigned char> storage(kChunk + 64, 0xee);
  FakeFile file{testing::PatternBytes(kChunk + 32, 14), 0, {{5, 16}, {16, kChunk + 32}}, {}, 0};
  ASSERT_TRUE(IsAligned(file.bytes.data(), 16));
  auto* on_words =
      reinterpret_cast<unsigned char*>(AlignUp(reinterpret_cast<uintptr_t>(storage.data()), 16));
  StagedChunks off = ChunksOver(storage, 0, 5);
  off.device = on_words + 5;  // as far off words as the window's address of offset 5
  off.size = kChunk + 27;
  uint32_t ready = 0;
  off.FillForRead(heap.block, heap.tables, &ready, 0, file.Mover(), file.Finder());
  const runtime::CopyTable* table = heap.tables.Table(0);
  ASSERT_EQ(table->count, 2u);
  EXPECT_EQ(table->copy[0].bytes, 11u);
  EXPECT_EQ((table->copy[1].dst | table->copy[1].src) % 16, 0u);
  CopyAsTheStreamWould(heap.tables, 0);
  EXPECT_TRUE(std::equal(file.bytes.begin() + 5, file.bytes.end(), on_words + 5));

  StagedChunks on = ChunksOver(storage, 1, 0);
  on.device = on_words;
  on.size = kChunk + 32;
  file.windows = {{0, 16}, {16, kChunk + 32}};
  on.FillForRead(heap.block, heap.tables, &ready, 0, file.Mover(), file.Finder());
  ASSERT_EQ(heap.tables.Table(1)->count, 1u) << "on words from the start: one copy";
  EXPECT_EQ(heap.tables.Table(1)->copy[0].bytes, kChunk + 32);
}

TEST(StreamStagingTest, AShortStagedReadAfterAWindowEndsTheRead) {
  HeapBlock heap;
  std::vector<unsigned char> device(3 * kChunk, 0xee);
  StagedChunks chunks = ChunksOver(device, 0, 0);
  // The file ends 10 bytes into the third chunk's share; its first 3 MiB are a window.
  FakeFile file{testing::PatternBytes(2 * kChunk + 10, 6), 0, {{0, kChunk + kChunk / 2}}, {}, 0};
  ReadThroughTheStream(chunks, heap, file);
  ASSERT_TRUE(chunks.Outcome().ok());
  EXPECT_EQ(*chunks.Outcome(), 2 * kChunk + 10) << "short at end of file";
  EXPECT_TRUE(std::equal(file.bytes.begin(), file.bytes.end(), device.begin()));
  EXPECT_EQ(device[2 * kChunk + 10], 0xee) << "a byte past end of file was written";
  EXPECT_TRUE(chunks.stopped);
}

TEST(StreamStagingTest, AFailedStagedReadAfterAWindowKeepsTheWindowsBytes) {
  HeapBlock heap;
  std::vector<unsigned char> device(2 * kChunk, 0xee);
  StagedChunks chunks = ChunksOver(device);
  FakeFile file{testing::PatternBytes(2 * kChunk, 7), 0, {{0, kChunk / 2}}, {}, 0};
  const ChunkMover failing = [](void*, size_t, off_t) -> Result<size_t> {
    return Status::Errno(EIO);
  };
  uint32_t ready = 0;
  chunks.FillForRead(heap.block, heap.tables, &ready, 0, failing, file.Finder());
  CopyAsTheStreamWould(heap.tables, 0);
  chunks.FillForRead(heap.block, heap.tables, &ready, 1, failing, file.Finder());
  EXPECT_TRUE(LaunchCopiesNothing(heap.tables, 1));
  ASSERT_TRUE(chunks.Outcome().ok()) << "bytes before the failure are the outcome";
  EXPECT_EQ(*chunks.Outcome(), kChunk / 2);
  EXPECT_TRUE(chunks.error.IsErrno(EIO));
  EXPECT_TRUE(std::equal(device.begin(), device.begin() + kChunk / 2, file.bytes.begin()));
  EXPECT_EQ(device[kChunk / 2], 0xee);
}

TEST(StreamStagingTest, ATableFullOfSmallWindowsStillReachesItsShare) {
  HeapBlock heap;
  std::vector<unsigned char> device(2 * kChunk, 0xee);
  StagedChunks chunks = ChunksOver(device);
  // 4 KiB windows with 4 KiB gaps: more pieces than a table holds in chunk 0's share.
  FakeFile file{testing::PatternBytes(device.size(), 8), 0, {}, {}, 0};
  for (size_t at = 0; at < device.size(); at += 8192) file.windows.emplace_back(at, at + 4096);
  uint32_t ready = 0;
  chunks.FillForRead(heap.block, heap.tables, &ready, 0, file.Mover(), file.Finder());
  const runtime::CopyTable* table = heap.tables.Table(0);
  EXPECT_EQ(table->count, runtime::CopyTable::kMaxCopies);
  EXPECT_GE(chunks.assigned, kChunk) << "chunk 0 reaches its share whatever the pieces";
  CopyAsTheStreamWould(heap.tables, 0);
  chunks.FillForRead(heap.block, heap.tables, &ready, 1, file.Mover(), file.Finder());
  CopyAsTheStreamWould(heap.tables, 1);
  EXPECT_EQ(*chunks.Outcome(), device.size());
  EXPECT_EQ(device, file.bytes);
}

// The copy kernel moves words only between 16-byte aligned addresses: an offset off them into an
// aligned destination is staged (aligned slot to aligned memory), not copied from a window (whose
// address is as aligned as the offset). Off alike, either way is bytewise: the window is taken.
TEST(StreamStagingTest, AnOffsetOffWordsIntoAlignedMemoryIsStaged) {
  HeapBlock heap;
  std::vector<unsigned char> device(kChunk + 32, 0xee);
  FakeFile file{testing::PatternBytes(kChunk + 64, 9), 4096 - 5, {{0, kChunk + 64}}, {}, 0};
  StagedChunks aligned = ChunksOver(device, 0, 4096 - 5);
  aligned.device = device.data() + (16 - reinterpret_cast<uintptr_t>(device.data()) % 16) % 16;
  aligned.size = kChunk;
  ReadThroughTheStream(aligned, heap, file);
  EXPECT_EQ(file.finds, 0) << "no window was asked for";
  EXPECT_EQ(aligned.from_windows, 0u);
  EXPECT_EQ(*aligned.Outcome(), kChunk);

  StagedChunks alike = ChunksOver(device, 0, 4096 - 5);
  alike.device = static_cast<unsigned char*>(aligned.device) + 11;  // 11 = -5 mod 16
  alike.size = kChunk;
  file.staged_at.clear();
  ReadThroughTheStream(alike, heap, file);
  EXPECT_EQ(alike.from_windows, kChunk);
  EXPECT_TRUE(file.staged_at.empty());
  EXPECT_TRUE(std::equal(file.bytes.begin(), file.bytes.begin() + kChunk,
                         static_cast<unsigned char*>(alike.device)));
}

TEST(StreamStagingTest, AWriteReleasesChunksIntoSlotsAndWritesWhatTheStreamCopied) {
  HeapBlock heap;
  std::vector<unsigned char> device(kChunk + 7);
  StagedChunks chunks = ChunksOver(device, 1, 100);
  uint32_t ready = 0;
  chunks.ReleaseForWrite(heap.block, heap.tables, &ready, 0);
  chunks.ReleaseForWrite(heap.block, heap.tables, &ready, 1);
  EXPECT_EQ(ready, 2u);
  const runtime::CopyTable* second = heap.tables.Table(2);
  ASSERT_EQ(second->count, 1u);
  EXPECT_EQ(second->copy[0].src, reinterpret_cast<uintptr_t>(device.data() + kChunk));
  EXPECT_EQ(second->copy[0].dst, reinterpret_cast<uintptr_t>(heap.block.Slot(2)));
  EXPECT_EQ(second->copy[0].bytes, 7u);
  std::vector<std::pair<off_t, size_t>> wrote;
  const ChunkMover move = [&](void*, size_t bytes, off_t at) -> Result<size_t> {
    wrote.emplace_back(at, bytes);
    return bytes == 7 ? Result<size_t>(Status::Errno(ENOSPC)) : Result<size_t>(bytes);
  };
  chunks.WriteOut(heap.block, move);
  chunks.WriteOut(heap.block, move);
  EXPECT_EQ(chunks.written, 2u);
  EXPECT_EQ(wrote, (std::vector<std::pair<off_t, size_t>>{{100, kChunk},
                                                          {100 + static_cast<off_t>(kChunk), 7}}));
  // The chunk before the failed one was written: that is the outcome.
  EXPECT_EQ(*chunks.Outcome(), kChunk);
  EXPECT_TRUE(chunks.stopped);
}

TEST(StreamStagingTest, TheLimitIsSplitBetweenTransfersAndStreams) {
  constexpr size_t kMiB = size_t{1} << 20;
  // The defaults on the H200: 1 GiB, 8 MiB buffers, 16 I/O threads.
  StagingBudget b = SplitStagingBudget(1024 * kMiB, 0, 8 * kMiB, 16);
  EXPECT_EQ(b.limit, 1024 * kMiB);
  EXPECT_EQ(b.transfer_bytes, 256 * kMiB);
  EXPECT_EQ(b.stream_blocks, 768 * kMiB / StreamStagingBlock::kBytes);
  EXPECT_LE(b.transfer_bytes + b.stream_blocks * StreamStagingBlock::kBytes, b.limit);
  // A small limit: transfers get at most half, streams what is left.
  b = SplitStagingBudget(64 * kMiB, 0, 8 * kMiB, 16);
  EXPECT_EQ(b.transfer_bytes, 32 * kMiB);
  EXPECT_EQ(b.stream_blocks, 32 * kMiB / StreamStagingBlock::kBytes);
  // Never less than one transfer buffer, even when that leaves streams nothing.
  b = SplitStagingBudget(8 * kMiB, 0, 8 * kMiB, 16);
  EXPECT_EQ(b.transfer_bytes, 8 * kMiB);
  EXPECT_EQ(b.stream_blocks, 0u);
  // A quarter of physical memory at most.
  b = SplitStagingBudget(1024 * kMiB, 512 * kMiB, 8 * kMiB, 4);
  EXPECT_EQ(b.limit, 128 * kMiB);
  EXPECT_EQ(b.transfer_bytes, 64 * kMiB);
  EXPECT_EQ(b.stream_blocks, 64 * kMiB / StreamStagingBlock::kBytes);
}

}  // namespace
}  // namespace hipfile::engine
