// SPDX-License-Identifier: MIT
// The data side of stream-ordered staged I/O (engine/stream_staging.h): the slots and tables a
// stream copies through, the chunk steps a worker takes, and the split of the one pinned staging
// limit between transfers and streams.
#include "engine/stream_staging.h"

#include <errno.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

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
  EXPECT_EQ(heap.tables.Table(2)->count, 0u) << "past end of file the stream copies nothing";
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
  EXPECT_EQ(b.stream_blocks, 8u);
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
