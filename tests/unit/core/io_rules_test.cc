// SPDX-License-Identifier: MIT
#include "core/io_rules.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace hipfile::core {
namespace {

TEST(MaxRwCountTest, IsIntMaxRoundedDownToAPage) {
  EXPECT_EQ(MaxRwCount(4096), 0x7ffff000u);
  EXPECT_EQ(MaxRwCount(65536), 0x7fff0000u);
  EXPECT_EQ(MaxRwCount(0), 0x7ffff000u);     // unknown page size: 4 KiB
  EXPECT_EQ(MaxRwCount(3000), 0x7ffff000u);  // not a power of two: 4 KiB
}

TEST(IoRangeValidTest, OffsetInsideAndSizeFitting) {
  EXPECT_TRUE(IoRangeValid(100, 100, 0));
  EXPECT_TRUE(IoRangeValid(100, 0, 99));
  EXPECT_TRUE(IoRangeValid(100, 1, 99));
  EXPECT_FALSE(IoRangeValid(100, 2, 99));
  EXPECT_FALSE(IoRangeValid(100, 0, 100));  // bo must be < length, even for size 0
  EXPECT_FALSE(IoRangeValid(100, 101, 0));
  EXPECT_FALSE(IoRangeValid(100, SIZE_MAX, 1));
  EXPECT_FALSE(IoRangeValid(100, 1, -1));
  EXPECT_FALSE(IoRangeValid(0, 0, 0));
}

TEST(MeetsDioAlignmentTest, NeedsADirectDescriptorAndAlignedEverything) {
  engine::IoFile file;
  file.buffered_fd = 3;
  const void* aligned = reinterpret_cast<const void*>(uintptr_t{1} << 20);
  EXPECT_FALSE(MeetsDioAlignment(file, aligned, 4096, 0));
  file.direct_fd = 4;
  file.dio_mem_align = 512;
  file.dio_offset_align = 4096;
  EXPECT_TRUE(MeetsDioAlignment(file, aligned, 4096, 8192));
  EXPECT_TRUE(MeetsDioAlignment(file, static_cast<const char*>(aligned) + 512, 4096, 0));
  EXPECT_FALSE(MeetsDioAlignment(file, static_cast<const char*>(aligned) + 1, 4096, 0));
  EXPECT_FALSE(MeetsDioAlignment(file, aligned, 4095, 0));
  EXPECT_FALSE(MeetsDioAlignment(file, aligned, 4096, 512));
}

}  // namespace
}  // namespace hipfile::core
