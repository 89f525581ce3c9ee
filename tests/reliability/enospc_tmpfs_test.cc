// SPDX-License-Identifier: MIT
// Real ENOSPC: a write into a 1 MiB tmpfs, on every API path, reports a short count of exactly
// the bytes that reached the file, and the next write, which can move nothing, reports ENOSPC
// with the file unchanged. Skipped, with the reason, where no tmpfs can be mounted.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <vector>

#include "api/status_map.h"
#include "fakes/tiny_tmpfs.h"
#include "reliability/io_path_fixture.h"

namespace hipfile::core {
namespace {

constexpr size_t kFsBytes = 1 << 20;
constexpr size_t kWriteBytes = 2 * kFsBytes;  // twice what fits

class EnospcTmpfsTest : public IoPathTest {
 protected:
  EnospcTmpfsTest() : IoPathTest(kWriteBytes) {
    const std::string mount_point = dir_.File("mnt");
    EXPECT_EQ(::mkdir(mount_point.c_str(), 0700), 0);
    fs_ = std::make_unique<testing::TinyTmpfs>(mount_point, kFsBytes);
  }

  std::unique_ptr<testing::TinyTmpfs> fs_;
};

TEST_P(EnospcTmpfsTest, WriteReportsExactlyWhatReachedTheFile) {
  if (!fs_->mounted()) GTEST_SKIP() << "cannot mount a tmpfs here: " << fs_->error();
  void* fh = Register(fs_->File("full"));
  const std::vector<unsigned char> data = testing::PatternBytes(kWriteBytes, 5);
  FillDevice(data);

  const Outcome out = Run(IoDirection::kWrite, fh, kWriteBytes, 0);
  ++g_faults;
  ASSERT_TRUE(out.ok) << "some bytes fit, so a short count is due: " << out.error.ToString();
  EXPECT_GT(out.bytes, 0u);
  EXPECT_LE(out.bytes, kFsBytes);
  std::vector<unsigned char> file = testing::ReadFileOrDie(path_);
  ASSERT_EQ(file.size(), out.bytes) << "the file does not hold exactly the reported bytes";
  EXPECT_TRUE(std::equal(file.begin(), file.end(), data.begin()));

  // Full now: a write that needs a new page moves nothing and reports ENOSPC.
  const off_t next_page = static_cast<off_t>((out.bytes + 4095) / 4096 * 4096);
  const Outcome full = Run(IoDirection::kWrite, fh, 64 * 1024, next_page);
  ++g_faults;
  ASSERT_FALSE(full.ok) << "reported " << full.bytes << " bytes written to a full file system";
  EXPECT_TRUE(full.error.IsErrno(ENOSPC)) << full.error.ToString();
  if (GetParam() == Path::kSync) {
    errno = 0;
    EXPECT_EQ(api::ToSsize(Result<size_t>(full.error)), -1);  // the C API's -1 with errno
    EXPECT_EQ(errno, ENOSPC);
  }
  EXPECT_EQ(testing::ReadFileOrDie(path_), file) << "a failed write changed the file";

  // Space freed: the same handle writes again, in full.
  ASSERT_EQ(::truncate(path_.c_str(), 0), 0);
  const Outcome again = Run(IoDirection::kWrite, fh, kFsBytes / 2, 0);
  ASSERT_TRUE(again.ok) << again.error.ToString();
  EXPECT_EQ(again.bytes, kFsBytes / 2);
  file = testing::ReadFileOrDie(path_);
  ASSERT_EQ(file.size(), kFsBytes / 2);
  EXPECT_TRUE(std::equal(file.begin(), file.end(), data.begin()));
}

INSTANTIATE_TEST_SUITE_P(AllPaths, EnospcTmpfsTest,
                         ::testing::Values(Path::kSync, Path::kAsync, Path::kBatch), PathName);

}  // namespace
}  // namespace hipfile::core
