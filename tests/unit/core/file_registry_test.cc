// SPDX-License-Identifier: MIT
#include "core/file_registry.h"

#include <errno.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdint>
#include <set>
#include <vector>

#include "core_test_util.h"

namespace hipfile::core {
namespace {

using testing::SysOp;

class OpenFileTest : public CoreTest {
 protected:
  std::string path_ = MakeFile("data", 8192);
};

TEST_F(OpenFileTest, NegativeOrClosedDescriptorIsInvalidValue) {
  EXPECT_EQ(OpenFile(sys_, -1).status(), Status::Op(hipFileInvalidValue));
  int fd = ::open(path_.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ::close(fd);
  EXPECT_EQ(OpenFile(sys_, fd).status(), Status::Op(hipFileInvalidValue));
}

TEST_F(OpenFileTest, OtherFlagFailuresKeepTheirErrno) {
  ScopedFd fd(path_, O_RDONLY);
  sys_.FailNth(SysOp::kGetFileFlags, 1, EIO);
  EXPECT_EQ(OpenFile(sys_, fd.get()).status(), Status::Errno(EIO));
}

TEST_F(OpenFileTest, DirectoriesPipesSocketsAndCharDevicesAreInvalidFileTypes) {
  ScopedFd dir(dir_.path(), O_RDONLY | O_DIRECTORY);
  EXPECT_EQ(OpenFile(sys_, dir.get()).status(), Status::Op(hipFileInvalidFileType));
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  ScopedFd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  EXPECT_EQ(OpenFile(sys_, read_end.get()).status(), Status::Op(hipFileInvalidFileType));
  ScopedFd sock(::socket(AF_UNIX, SOCK_STREAM, 0));
  EXPECT_EQ(OpenFile(sys_, sock.get()).status(), Status::Op(hipFileInvalidFileType));
  ScopedFd null_dev("/dev/null", O_RDWR);
  EXPECT_EQ(OpenFile(sys_, null_dev.get()).status(), Status::Op(hipFileInvalidFileType));
}

TEST_F(OpenFileTest, PathAndAppendDescriptorsAreInvalidOpenFlags) {
  ScopedFd path_fd(path_, O_PATH);
  EXPECT_EQ(OpenFile(sys_, path_fd.get()).status(), Status::Op(hipFileInvalidFileOpenFlag));
  ScopedFd append_fd(path_, O_WRONLY | O_APPEND);
  EXPECT_EQ(OpenFile(sys_, append_fd.get()).status(), Status::Op(hipFileInvalidFileOpenFlag));
}

TEST_F(OpenFileTest, EveryAccessModeIsAccepted) {
  for (const int mode : {O_RDONLY, O_WRONLY, O_RDWR}) {
    ScopedFd fd(path_, mode);
    Result<std::shared_ptr<File>> file = OpenFile(sys_, fd.get());
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    const FileInfo& info = (*file)->info();
    EXPECT_TRUE(info.is_regular);
    EXPECT_FALSE(info.is_block_device);
    EXPECT_EQ(info.client_fd, fd.get());
    EXPECT_NE(info.io.buffered_fd, fd.get());
    EXPECT_EQ(info.open_flags & O_ACCMODE, mode);
    EXPECT_EQ(::fcntl(info.io.buffered_fd, F_GETFL) & O_ACCMODE, mode);
  }
}

TEST_F(OpenFileTest, BufferedDescriptorGetsOwnBufferedAndODirectOnesClosedWithTheFile) {
  ScopedFd fd(path_, O_RDWR);
  Result<std::shared_ptr<File>> file = OpenFile(sys_, fd.get());
  ASSERT_TRUE(file.ok());
  const FileInfo info = (*file)->info();
  if (info.io.direct_fd < 0) GTEST_SKIP() << "the test directory's file system refuses O_DIRECT";
  EXPECT_NE(info.io.direct_fd, fd.get());
  EXPECT_NE(info.io.buffered_fd, fd.get());
  EXPECT_NE(::fcntl(info.io.direct_fd, F_GETFL) & O_DIRECT, 0);
  EXPECT_EQ(::fcntl(info.io.buffered_fd, F_GETFL) & O_DIRECT, 0);
  for (const int own : {info.io.direct_fd, info.io.buffered_fd}) {
    EXPECT_NE(::fcntl(own, F_GETFD) & FD_CLOEXEC, 0);
    EXPECT_TRUE(FdIsOpen(own));
  }
  EXPECT_GT(info.io.dio_mem_align, 0u);
  EXPECT_GT(info.io.dio_offset_align, 0u);
  file = Status::Op(hipFileInternalError);  // drops the File
  EXPECT_FALSE(FdIsOpen(info.io.direct_fd));
  EXPECT_FALSE(FdIsOpen(info.io.buffered_fd));
  EXPECT_TRUE(FdIsOpen(fd.get()));  // the caller's descriptor is never closed
}

// Regression: buffered I/O used to go through the caller's descriptor, so a caller that closed it
// while an operation was in flight, and then opened another file under the same number, had that
// operation read the other file (tests/reliability/closed_descriptor_test.cc).
TEST_F(OpenFileTest, IoNeverUsesTheCallersDescriptor) {
  for (const int flags : {O_RDONLY, O_RDWR | O_DIRECT}) {
    ScopedFd fd(::open(path_.c_str(), flags));
    if (fd.get() < 0) continue;  // no O_DIRECT here
    Result<std::shared_ptr<File>> file = OpenFile(sys_, fd.get());
    ASSERT_TRUE(file.ok());
    EXPECT_NE((*file)->io().buffered_fd, fd.get());
    EXPECT_NE((*file)->io().direct_fd, fd.get());
  }
}

TEST_F(OpenFileTest, ODirectDescriptorGetsABufferedTwin) {
  ScopedFd fd(::open(path_.c_str(), O_RDWR | O_DIRECT));
  if (fd.get() < 0) GTEST_SKIP() << "the test directory's file system refuses O_DIRECT";
  Result<std::shared_ptr<File>> file = OpenFile(sys_, fd.get());
  ASSERT_TRUE(file.ok());
  const FileInfo& info = (*file)->info();
  EXPECT_NE(::fcntl(info.io.direct_fd, F_GETFL) & O_DIRECT, 0);
  EXPECT_EQ(::fcntl(info.io.buffered_fd, F_GETFL) & O_DIRECT, 0);
}

TEST_F(OpenFileTest, EinvalOnTheODirectOpenMeansNoDirectDescriptor) {
  ScopedFd fd(path_, O_RDONLY);
  sys_.FailNth(SysOp::kOpen, 1, EINVAL);
  Result<std::shared_ptr<File>> file = OpenFile(sys_, fd.get());
  ASSERT_TRUE(file.ok());
  const FileInfo& info = (*file)->info();
  EXPECT_EQ(info.io.direct_fd, -1);
  EXPECT_GE(info.io.buffered_fd, 0);
  EXPECT_EQ(info.io.dio_mem_align, 0u);
  EXPECT_EQ(info.io.dio_offset_align, 0u);
}

TEST_F(OpenFileTest, SecondOpenFailuresMapToHipFileErrors) {
  ScopedFd fd(path_, O_RDONLY);
  const struct {
    int error;
    Status expected;
  } cases[] = {{EMFILE, Status::Op(hipFileGetNewFDFailed)},
               {ENFILE, Status::Op(hipFileGetNewFDFailed)},
               {EACCES, Status::Op(hipFilePermissionDenied)},
               {EPERM, Status::Op(hipFilePermissionDenied)},
               {EIO, Status::Errno(EIO)}};
  for (const auto& c : cases) {
    sys_.FailNth(SysOp::kOpen, 1, c.error);
    EXPECT_EQ(OpenFile(sys_, fd.get()).status(), c.expected) << c.error;
  }
}

TEST_F(OpenFileTest, AFailedBufferedReopenClosesTheODirectOne) {
  ScopedFd fd(path_, O_RDONLY);
  sys_.FailNth(SysOp::kOpen, 2, EMFILE);  // the buffered reopen, after the O_DIRECT one
  EXPECT_EQ(OpenFile(sys_, fd.get()).status(), Status::Op(hipFileGetNewFDFailed));
  const bool direct = ScopedFd(::open(path_.c_str(), O_RDONLY | O_DIRECT)).get() >= 0;
  EXPECT_EQ(sys_.Calls(SysOp::kClose), direct ? 1u : 0u);  // the O_DIRECT one, not leaked
}

// Statx without STATX_DIOALIGN in its answer.
class NoDioAlignSys : public EnvSys {
 public:
  Status Statx(int fd, unsigned mask, struct statx* out) override {
    const Status status = EnvSys::Statx(fd, mask, out);
    out->stx_mask &= ~STATX_DIOALIGN;
    out->stx_dio_mem_align = 0;
    out->stx_dio_offset_align = 0;
    return status;
  }
};

TEST_F(OpenFileTest, UnreportedDioAlignmentDefaultsTo4096) {
  NoDioAlignSys sys;
  ScopedFd fd(path_, O_RDONLY);
  Result<std::shared_ptr<File>> file = OpenFile(sys, fd.get());
  ASSERT_TRUE(file.ok());
  if ((*file)->io().direct_fd < 0) GTEST_SKIP() << "no O_DIRECT here";
  EXPECT_EQ((*file)->io().dio_mem_align, 4096u);
  EXPECT_EQ((*file)->io().dio_offset_align, 4096u);
}

TEST_F(OpenFileTest, FileSystemComesFromMountinfo) {
  ScopedFd fd(path_, O_RDONLY);
  Result<std::shared_ptr<File>> file = OpenFile(sys_, fd.get());
  ASSERT_TRUE(file.ok());
  const FileSystemInfo& fs = (*file)->info().fs;
  EXPECT_TRUE(fs.found);
  EXPECT_FALSE(fs.name.empty());
  EXPECT_NE(fs.type, FsType::kUnknown);
}

TEST_F(OpenFileTest, UnreadableMountinfoStillRegisters) {
  ScopedFd fd(path_, O_RDONLY);
  sys_.FailNth(SysOp::kReadTextFile, 1, EACCES);
  Result<std::shared_ptr<File>> file = OpenFile(sys_, fd.get());
  ASSERT_TRUE(file.ok());
  EXPECT_FALSE((*file)->info().fs.found);
  EXPECT_EQ((*file)->info().fs.type, FsType::kUnknown);
}

TEST(ClassifyMountTest, RecognisesTheFileSystemsThePolicyNeeds) {
  platform::MountEntry m;
  EXPECT_FALSE(ClassifyMount(nullptr).found);
  m.fs_type = "ext4";
  m.super_options = "rw,errors=remount-ro";
  EXPECT_EQ(ClassifyMount(&m).type, FsType::kExt4);
  EXPECT_EQ(ClassifyMount(&m).ext4_data, Ext4DataMode::kOrdered);  // absent means ordered
  m.super_options = "rw,data=journal";
  EXPECT_EQ(ClassifyMount(&m).ext4_data, Ext4DataMode::kJournal);
  m.super_options = "rw,data=writeback";
  EXPECT_EQ(ClassifyMount(&m).ext4_data, Ext4DataMode::kWriteback);
  m.super_options = "rw,data=odd";
  EXPECT_EQ(ClassifyMount(&m).ext4_data, Ext4DataMode::kUnknown);
  m.fs_type = "xfs";
  EXPECT_EQ(ClassifyMount(&m).type, FsType::kXfs);
  EXPECT_EQ(ClassifyMount(&m).ext4_data, Ext4DataMode::kNotExt4);
  m.fs_type = "nfs4";
  m.super_options = "rw,vers=4.2,proto=rdma";
  EXPECT_EQ(ClassifyMount(&m).type, FsType::kNfs);
  EXPECT_EQ(ClassifyMount(&m).nfs_proto, "rdma");
  m.fs_type = "tmpfs";
  EXPECT_EQ(ClassifyMount(&m).type, FsType::kTmpfs);
  m.fs_type = "btrfs";
  EXPECT_EQ(ClassifyMount(&m).type, FsType::kOther);
  EXPECT_EQ(ClassifyMount(&m).name, "btrfs");
}

class FileRegistryTest : public OpenFileTest {
 protected:
  // A File for descriptor number `fd` that owns no descriptor: cheap enough for many cycles.
  std::shared_ptr<File> FakeFile(int fd) {
    FileInfo info;
    info.client_fd = fd;
    return std::make_shared<File>(sys_, std::move(info));
  }
};

TEST_F(FileRegistryTest, InsertFindRemove) {
  ScopedFd fd(path_, O_RDONLY);
  FileRegistry registry;
  std::shared_ptr<File> file = *OpenFile(sys_, fd.get());
  const Result<void*> handle = registry.Insert(file);
  ASSERT_TRUE(handle.ok());
  EXPECT_NE(*handle, nullptr);
  EXPECT_TRUE(registry.ContainsFd(fd.get()));
  EXPECT_EQ(registry.Find(*handle), file);
  EXPECT_EQ(registry.Find(&registry), nullptr);

  std::shared_ptr<File> again = *OpenFile(sys_, fd.get());
  EXPECT_EQ(registry.Insert(again).status(), Status::Op(hipFileHandleAlreadyRegistered));

  std::shared_ptr<File> removed;
  // `file` is a reference held outside the registry, like an operation in flight.
  EXPECT_EQ(registry.Remove(*handle, &removed), FileRegistry::RemoveResult::kBusy);
  File* const stored = file.get();
  file.reset();
  EXPECT_EQ(registry.Remove(*handle, &removed), FileRegistry::RemoveResult::kRemoved);
  EXPECT_EQ(removed.get(), stored);
  EXPECT_EQ(registry.Remove(*handle, &removed), FileRegistry::RemoveResult::kUnknown);
  EXPECT_FALSE(registry.ContainsFd(fd.get()));
  EXPECT_EQ(registry.size(), 0u);
}

// The bug: the handle was the File's address, so the next registration - typically of the same
// descriptor number, closed and opened on another file - could get the value back, and a stale
// handle then read and wrote the other file.
TEST_F(FileRegistryTest, StaleHandleNamedTheNextFileRegistered) {
  FileRegistry registry;
  const Result<void*> a = registry.Insert(FakeFile(7));
  ASSERT_TRUE(a.ok());
  std::shared_ptr<File> removed;
  ASSERT_EQ(registry.Remove(*a, &removed), FileRegistry::RemoveResult::kRemoved);
  removed.reset();  // A's File is freed: its address may be B's
  std::shared_ptr<File> b_file = FakeFile(7);
  const Result<void*> b = registry.Insert(b_file);
  ASSERT_TRUE(b.ok());
  EXPECT_NE(*b, *a);
  EXPECT_EQ(registry.Find(*a), nullptr);
  EXPECT_EQ(registry.Find(*b), b_file);
  b_file.reset();
  EXPECT_EQ(registry.Remove(*a, &removed), FileRegistry::RemoveResult::kUnknown);
  EXPECT_EQ(registry.size(), 1u) << "removing the stale handle left B alone";
}

TEST_F(FileRegistryTest, HandlesAreNeverReused) {
  FileRegistry registry;
  std::set<void*> seen;
  std::vector<void*> live;
  // Cycles of one file, then of several at once (slots reused in other orders), then clears.
  for (int i = 0; i < 10000; ++i) {
    const Result<void*> h = registry.Insert(FakeFile(3));
    ASSERT_TRUE(h.ok());
    ASSERT_TRUE(seen.insert(*h).second) << "value repeated at cycle " << i;
    std::shared_ptr<File> removed;
    ASSERT_EQ(registry.Remove(*h, &removed), FileRegistry::RemoveResult::kRemoved);
  }
  for (int round = 0; round < 100; ++round) {
    for (int fd = 0; fd < 8; ++fd) {
      const Result<void*> h = registry.Insert(FakeFile(fd));
      ASSERT_TRUE(h.ok());
      ASSERT_TRUE(seen.insert(*h).second) << "value repeated in round " << round;
      live.push_back(*h);
    }
    if (round % 2 == 0) {
      EXPECT_EQ(registry.Clear().size(), 8u);
    } else {
      for (auto it = live.rbegin(); it != live.rend(); ++it) {
        std::shared_ptr<File> removed;
        ASSERT_EQ(registry.Remove(*it, &removed), FileRegistry::RemoveResult::kRemoved);
      }
    }
    for (void* h : live) EXPECT_EQ(registry.Find(h), nullptr);
    live.clear();
  }
}

TEST_F(FileRegistryTest, ASlotWhoseGenerationsRunOutIsRetired) {
  FileRegistry registry(UINT32_MAX - 1);  // each slot has two generations left
  std::set<void*> seen;
  for (int i = 0; i < 5; ++i) {
    const Result<void*> h = registry.Insert(FakeFile(3));
    ASSERT_TRUE(h.ok());
    EXPECT_TRUE(seen.insert(*h).second) << i;
    std::shared_ptr<File> removed;
    ASSERT_EQ(registry.Remove(*h, &removed), FileRegistry::RemoveResult::kRemoved);
    EXPECT_EQ(registry.Find(*h), nullptr);
  }
  EXPECT_EQ(registry.retired(), 2u);  // slot 0 after two cycles, slot 1 after two more
}

TEST_F(FileRegistryTest, ValuesNeverHandedOutAreUnknown) {
  FileRegistry registry;
  std::shared_ptr<File> file = FakeFile(3);
  const Result<void*> h = registry.Insert(file);
  ASSERT_TRUE(h.ok());
  const uintptr_t value = reinterpret_cast<uintptr_t>(*h);
  int local = 0;
  for (const uintptr_t bogus : {uintptr_t{0}, uintptr_t{1}, value & UINT32_MAX, value + 1,
                                value + (uintptr_t{1} << 32), reinterpret_cast<uintptr_t>(&local),
                                reinterpret_cast<uintptr_t>(file.get()), UINTPTR_MAX}) {
    EXPECT_EQ(registry.Find(reinterpret_cast<void*>(bogus)), nullptr) << std::hex << bogus;
  }
  EXPECT_EQ(registry.Find(*h), file);
}

TEST_F(FileRegistryTest, ClearHandsBackEveryFileAndStalesEveryHandle) {
  ScopedFd a(path_, O_RDONLY), b(path_, O_RDONLY);
  FileRegistry registry;
  const Result<void*> ha = registry.Insert(*OpenFile(sys_, a.get()));
  ASSERT_TRUE(ha.ok());
  ASSERT_TRUE(registry.Insert(*OpenFile(sys_, b.get())).ok());
  EXPECT_EQ(registry.Clear().size(), 2u);
  EXPECT_EQ(registry.size(), 0u);
  EXPECT_FALSE(registry.ContainsFd(a.get()));
  EXPECT_EQ(registry.Find(*ha), nullptr);
  const Result<void*> again = registry.Insert(*OpenFile(sys_, a.get()));
  ASSERT_TRUE(again.ok());
  EXPECT_NE(*again, *ha);
}

}  // namespace
}  // namespace hipfile::core
