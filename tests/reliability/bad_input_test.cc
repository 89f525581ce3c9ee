// SPDX-License-Identifier: MIT
// Bad input at every C API entry point of include/hipfile.h, on the process runtime: NULLs,
// negative and overflowing offsets and sizes, unknown or deregistered handles, buffers, streams
// and batches, out-of-range enum values and flags, double (de)registration, wrong file types and
// wrong open modes. Each case asserts the documented error (hipfile.h, spec §1) and that nothing
// crashed. The total is printed at exit as "bad-input cases: N".
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "fakes/batch_entry.h"
#include "fakes/raw_enum.h"
#include "unit/api/api_test_util.h"

namespace hipfile::api {
namespace {

int g_cases = 0;

class CountPrinter : public ::testing::Environment {
 public:
  void TearDown() override { std::printf("bad-input cases: %d\n", g_cases); }
};
const auto* const kPrinter = ::testing::AddGlobalTestEnvironment(new CountPrinter);

constexpr size_t kBuf = 64 * 1024;

// A call returning hipFileError_t and the error it must return.
struct ErrCase {
  std::string name;
  std::function<hipFileError_t()> call;
  hipFileOpError_t want;
  hipError_t want_hip = hipSuccess;
};

// A call returning ssize_t: want >= 0 is a byte count; -1 means errno must be want_errno.
struct SsizeCase {
  std::string name;
  std::function<ssize_t()> call;
  ssize_t want;
  int want_errno = 0;
};

void RunTable(const std::vector<ErrCase>& table) {
  for (const ErrCase& c : table) {
    ++g_cases;
    const hipFileError_t e = c.call();
    EXPECT_EQ(e.err, c.want) << c.name << ": got " << hipFileGetOpErrorString(e.err);
    EXPECT_EQ(e.hip_drv_err, c.want_hip) << c.name;
  }
}

void RunTable(const std::vector<SsizeCase>& table) {
  for (const SsizeCase& c : table) {
    ++g_cases;
    errno = 0;
    const ssize_t got = c.call();
    const int err = errno;
    EXPECT_EQ(got, c.want) << c.name;
    if (c.want == -1) {
      EXPECT_EQ(err, c.want_errno) << c.name << ": " << std::strerror(err);
    }
  }
}

using testing::RawEnum;

class BadInputTest : public ApiTest {
 protected:
  hipFileError_t RegisterFd(int fd, hipFileHandle_t* fh) {
    hipFileDescr_t descr = {};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd;
    return hipFileHandleRegister(fh, &descr);
  }
  bool OnCpuRuntime() { return std::string(ProcessRuntime().Name()).find("cpu") == 0; }
};

TEST_F(BadInputTest, VersionErrorStringsAndStats) {
  const char* unknown = hipFileGetOpErrorString(RawEnum<hipFileOpError_t>(99999));
  ASSERT_NE(unknown, nullptr);
  EXPECT_STREQ(unknown, "Unknown hipFile error");
  for (int raw : {-1, INT_MIN, INT_MAX, HIPFILE_BASE_ERR + 21, HIPFILE_BASE_ERR + 32}) {
    ++g_cases;
    EXPECT_NE(hipFileGetOpErrorString(RawEnum<hipFileOpError_t>(raw)), nullptr) << raw;
  }
  RunTable(std::vector<ErrCase>{
      {"GetVersion(NULL x3)", [] { return hipFileGetVersion(nullptr, nullptr, nullptr); },
       hipFileSuccess},
      {"GetStatsL1(NULL)", [] { return hipFileGetStatsL1(nullptr); }, hipFileInvalidValue},
      {"GetStatsL2(NULL)", [] { return hipFileGetStatsL2(nullptr); }, hipFileInvalidValue},
      {"GetStatsL3(NULL)", [] { return hipFileGetStatsL3(nullptr); }, hipFileInvalidValue},
  });
  EXPECT_EQ(hipFileUseCount(), 0) << "stats and version must not open the driver";
}

TEST_F(BadInputTest, DriverCalls) {
  hipFileDriverProps_t props;
  RunTable(std::vector<ErrCase>{
      {"DriverClose at count 0", [] { return hipFileDriverClose(); }, hipFileDriverNotInitialized},
      {"GetProperties(NULL)", [] { return hipFileDriverGetProperties(nullptr); },
       hipFileInvalidValue},
      {"GetProperties closed", [&] { return hipFileDriverGetProperties(&props); },
       hipFileDriverNotInitialized},
      {"SetMaxDirectIOSize(0)", [] { return hipFileDriverSetMaxDirectIOSize(0); },
       hipFileInvalidValue},
      {"SetMaxDirectIOSize(3 KiB)", [] { return hipFileDriverSetMaxDirectIOSize(3); },
       hipFileInvalidValue},
      {"SetMaxDirectIOSize(SIZE_MAX)", [] { return hipFileDriverSetMaxDirectIOSize(SIZE_MAX); },
       hipFileInvalidValue},
      {"SetMaxPinnedMemSize(0)", [] { return hipFileDriverSetMaxPinnedMemSize(0); },
       hipFileInvalidValue},
      {"SetMaxPinnedMemSize(SIZE_MAX)", [] { return hipFileDriverSetMaxPinnedMemSize(SIZE_MAX); },
       hipFileInvalidValue},
      {"SetMaxCacheSize(SIZE_MAX)", [] { return hipFileDriverSetMaxCacheSize(SIZE_MAX); },
       hipFileInvalidValue},
      {"SetPollMode(true, SIZE_MAX)", [] { return hipFileDriverSetPollMode(true, SIZE_MAX); },
       hipFileInvalidValue},
  });
  EXPECT_EQ(hipFileUseCount(), 0);
}

TEST_F(BadInputTest, ParameterCalls) {
  size_t size_value = 0;
  bool bool_value = false;
  char text[8];
  using SP = hipFileSizeTConfigParameter_t;
  using BP = hipFileBoolConfigParameter_t;
  using TP = hipFileStringConfigParameter_t;
  std::vector<ErrCase> table = {
      {"GetSizeT(NULL)", [] { return hipFileGetParameterSizeT(hipFileParamProfileStats, nullptr); },
       hipFileInvalidValue},
      {"GetBool(NULL)",
       [] { return hipFileGetParameterBool(hipFileParamPropertiesUsePollMode, nullptr); },
       hipFileInvalidValue},
      {"GetString(NULL)",
       [] { return hipFileGetParameterString(hipFileParamLoggingLevel, nullptr, 8); },
       hipFileInvalidValue},
      {"GetString(len 0)",
       [&] { return hipFileGetParameterString(hipFileParamLoggingLevel, text, 0); },
       hipFileInvalidValue},
      {"GetString(len -1)",
       [&] { return hipFileGetParameterString(hipFileParamLoggingLevel, text, -1); },
       hipFileInvalidValue},
      {"GetString(len 1, value does not fit)",
       [&] { return hipFileGetParameterString(hipFileParamLoggingLevel, text, 1); },
       hipFileInvalidValue},
      {"SetString(NULL)",
       [] { return hipFileSetParameterString(hipFileParamLoggingLevel, nullptr); },
       hipFileInvalidValue},
      {"SetString(level 'bogus')",
       [] { return hipFileSetParameterString(hipFileParamLoggingLevel, "bogus"); },
       hipFileInvalidValue},
      {"SetString(4096 chars)",
       [] {
         const std::string big(4096, 'a');
         return hipFileSetParameterString(hipFileParamLogDir, big.c_str());
       },
       hipFileInvalidValue},
      {"SetSizeT(ProfileStats 4)",
       [] { return hipFileSetParameterSizeT(hipFileParamProfileStats, 4); }, hipFileInvalidValue},
      {"SetSizeT(IOBatchsize 0)",
       [] { return hipFileSetParameterSizeT(hipFileParamPropertiesIOBatchsize, 0); },
       hipFileInvalidValue},
      {"SetSizeT(IOBatchsize SIZE_MAX)",
       [] { return hipFileSetParameterSizeT(hipFileParamPropertiesIOBatchsize, SIZE_MAX); },
       hipFileInvalidValue},
      {"SetSizeT(MaxIOQueueDepth 0)",
       [] { return hipFileSetParameterSizeT(hipFileParamExecutionMaxIOQueueDepth, 0); },
       hipFileInvalidValue},
      {"SetSizeT(BatchIOTimeoutMs SIZE_MAX)",
       [] { return hipFileSetParameterSizeT(hipFileParamPropertiesBatchIOTimeoutMs, SIZE_MAX); },
       hipFileInvalidValue},
  };
  for (int raw : {-1, INT_MIN, 12, INT_MAX}) {
    const std::string n = std::to_string(raw);
    table.push_back({"GetSizeT(param " + n + ")",
                     [&, raw] { return hipFileGetParameterSizeT(RawEnum<SP>(raw), &size_value); },
                     hipFileInvalidValue});
    table.push_back({"SetSizeT(param " + n + ")",
                     [raw] { return hipFileSetParameterSizeT(RawEnum<SP>(raw), 1); },
                     hipFileInvalidValue});
    table.push_back({"GetBool(param " + n + ")",
                     [&, raw] { return hipFileGetParameterBool(RawEnum<BP>(raw), &bool_value); },
                     hipFileInvalidValue});
    table.push_back({"SetBool(param " + n + ")",
                     [raw] { return hipFileSetParameterBool(RawEnum<BP>(raw), true); },
                     hipFileInvalidValue});
  }
  for (int raw : {-1, 3, INT_MAX}) {
    const std::string n = std::to_string(raw);
    table.push_back({"GetString(param " + n + ")",
                     [&, raw] { return hipFileGetParameterString(RawEnum<TP>(raw), text, 8); },
                     hipFileInvalidValue});
    table.push_back({"SetString(param " + n + ")",
                     [raw] { return hipFileSetParameterString(RawEnum<TP>(raw), "x"); },
                     hipFileInvalidValue});
  }
  RunTable(table);
  // Setters while open: refused with hipFileDriverAlreadyOpen, values untouched.
  ASSERT_TRUE(IsSuccess(hipFileDriverOpen()));
  RunTable(std::vector<ErrCase>{
      {"SetSizeT while open",
       [] { return hipFileSetParameterSizeT(hipFileParamPropertiesIOBatchsize, 8); },
       hipFileDriverAlreadyOpen},
      {"SetBool while open",
       [] { return hipFileSetParameterBool(hipFileParamPropertiesUsePollMode, true); },
       hipFileDriverAlreadyOpen},
      {"SetSizeT(param 12) while open: the value check comes first",
       [] { return hipFileSetParameterSizeT(RawEnum<SP>(12), 1); }, hipFileInvalidValue},
  });
}

TEST_F(BadInputTest, HandleRegistration) {
  hipFileHandle_t fh = nullptr;
  hipFileDescr_t descr = {};
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = OpenFile("f", 4096, O_RDWR);

  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  int sock_fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sock_fds), 0);
  const int dir_fd = ::open(dir_.path().c_str(), O_RDONLY | O_DIRECTORY);
  const int path_fd = ::open(dir_.File("f").c_str(), O_PATH);
  const int append_fd = ::open(dir_.File("f").c_str(), O_WRONLY | O_APPEND);
  const int null_fd = ::open("/dev/null", O_RDWR);
  for (int fd :
       {pipe_fds[0], pipe_fds[1], sock_fds[0], sock_fds[1], dir_fd, path_fd, append_fd, null_fd}) {
    ASSERT_GE(fd, 0);
    fds_.push_back(fd);
  }

  std::vector<ErrCase> table = {
      {"Register(NULL fh)", [&] { return hipFileHandleRegister(nullptr, &descr); },
       hipFileInvalidValue},
      {"Register(NULL descr)", [&] { return hipFileHandleRegister(&fh, nullptr); },
       hipFileInvalidValue},
      {"Register(NULL, NULL)", [] { return hipFileHandleRegister(nullptr, nullptr); },
       hipFileInvalidValue},
  };
  for (int type :
       {0, int{hipFileHandleTypeOpaqueWin32}, int{hipFileHandleTypeUserspaceFS}, 4, -1, INT_MAX}) {
    table.push_back({"Register(type " + std::to_string(type) + ")",
                     [&, type] {
                       hipFileDescr_t d = descr;
                       d.type = RawEnum<hipFileFileHandleType_t>(type);
                       return hipFileHandleRegister(&fh, &d);
                     },
                     hipFileIONotSupported});
  }
  const struct {
    const char* name;
    int fd;
    hipFileOpError_t want;
  } fds[] = {
      {"fd -1", -1, hipFileInvalidValue},
      {"fd INT_MIN", INT_MIN, hipFileInvalidValue},
      {"fd not open (INT_MAX)", INT_MAX, hipFileInvalidValue},
      {"fd not open (1<<20)", 1 << 20, hipFileInvalidValue},
      {"pipe read end", pipe_fds[0], hipFileInvalidFileType},
      {"pipe write end", pipe_fds[1], hipFileInvalidFileType},
      {"socket", sock_fds[0], hipFileInvalidFileType},
      {"directory", dir_fd, hipFileInvalidFileType},
      {"character device /dev/null", null_fd, hipFileInvalidFileType},
      {"O_PATH", path_fd, hipFileInvalidFileOpenFlag},
      {"O_APPEND", append_fd, hipFileInvalidFileOpenFlag},
  };
  for (const auto& f : fds) {
    table.push_back({std::string("Register(") + f.name + ")",
                     [&, fd = f.fd] { return RegisterFd(fd, &fh); }, f.want});
  }
  fh = nullptr;
  RunTable(table);
  EXPECT_EQ(fh, nullptr) << "a failed registration wrote the handle";
  EXPECT_EQ(hipFileUseCount(), 0) << "a failed registration opened the driver";

  // Double registration of one descriptor.
  hipFileHandle_t first = Register(descr.handle.fd);
  ASSERT_NE(first, nullptr);
  RunTable(std::vector<ErrCase>{{"Register twice", [&] { return RegisterFd(descr.handle.fd, &fh); },
                                 hipFileHandleAlreadyRegistered}});

  // Deregistration of NULL, unknown and already deregistered handles is ignored; the real one
  // stays usable until its own deregistration.
  void* dev = DeviceAlloc(kBuf);
  int local = 0;
  hipFileHandleDeregister(nullptr);
  hipFileHandleDeregister(&local);
  hipFileHandleDeregister(reinterpret_cast<hipFileHandle_t>(uintptr_t{0x10}));
  g_cases += 3;
  EXPECT_EQ(hipFileRead(first, dev, 4096, 0, 0), 4096);
  hipFileHandleDeregister(first);
  hipFileHandleDeregister(first);
  ++g_cases;
  RunTable(std::vector<SsizeCase>{
      {"Read(deregistered handle)", [&] { return hipFileRead(first, dev, 4096, 0, 0); },
       -static_cast<ssize_t>(hipFileHandleNotRegistered)},
  });
  // The descriptor can be registered again after deregistration.
  hipFileHandle_t again = Register(descr.handle.fd);
  EXPECT_NE(again, nullptr);
  hipFileHandleDeregister(again);
}

TEST_F(BadInputTest, BufferRegistration) {
  char* dev = static_cast<char*>(DeviceAlloc(kBuf));
  char* host = static_cast<char*>(HostAlloc(kBuf));
  std::vector<char> plain(kBuf);
  RunTable(std::vector<ErrCase>{
      {"BufDeregister closed driver", [&] { return hipFileBufDeregister(dev); },
       hipFileDriverClosing},
      {"BufRegister(NULL)", [] { return hipFileBufRegister(nullptr, kBuf, 0); },
       hipFileInvalidValue},
      {"BufRegister(length 0)", [&] { return hipFileBufRegister(dev, 0, 0); }, hipFileInvalidValue},
      {"BufRegister(length SIZE_MAX)", [&] { return hipFileBufRegister(dev, SIZE_MAX, 0); },
       hipFileHipPointerRangeError},
      {"BufRegister(length alloc+1)", [&] { return hipFileBufRegister(dev, kBuf + 1, 0); },
       hipFileHipPointerRangeError},
      {"BufRegister(interior, past end)", [&] { return hipFileBufRegister(dev + 1, kBuf, 0); },
       hipFileHipPointerRangeError},
      {"BufRegister(host alloc, length SIZE_MAX)",
       [&] { return hipFileBufRegister(host, SIZE_MAX, 0); }, hipFileHipPointerRangeError},
      {"BufRegister(plain malloc memory)",
       [&] { return hipFileBufRegister(plain.data(), kBuf, 0); }, hipFileHipMemoryTypeInvalid},
  });
  // hipFile opens the driver before it checks a buffer registration's arguments.
  EXPECT_EQ(hipFileUseCount(), 1) << "failed registrations did not open the driver";
  RunTable(std::vector<ErrCase>{
      {"BufRegister(flags -1: stored, unused)", [&] { return hipFileBufRegister(dev, kBuf, -1); },
       hipFileSuccess},
      {"BufRegister twice", [&] { return hipFileBufRegister(dev, kBuf, 0); },
       hipFileMemoryAlreadyRegistered},
      {"BufRegister twice, other length", [&] { return hipFileBufRegister(dev, 4096, 0); },
       hipFileMemoryAlreadyRegistered},
      {"BufDeregister(NULL)", [] { return hipFileBufDeregister(nullptr); }, hipFileInvalidValue},
      {"BufDeregister(interior pointer)", [&] { return hipFileBufDeregister(dev + 1); },
       hipFileMemoryNotRegistered},
      {"BufDeregister(never registered)", [&] { return hipFileBufDeregister(host); },
       hipFileMemoryNotRegistered},
      {"BufDeregister(plain memory)", [&] { return hipFileBufDeregister(plain.data()); },
       hipFileMemoryNotRegistered},
      {"BufDeregister", [&] { return hipFileBufDeregister(dev); }, hipFileSuccess},
      {"BufDeregister twice", [&] { return hipFileBufDeregister(dev); },
       hipFileMemoryNotRegistered},
  });
}

TEST_F(BadInputTest, SyncIo) {
  char* dev = static_cast<char*>(DeviceAlloc(kBuf));
  char* host = static_cast<char*>(HostAlloc(kBuf));
  std::vector<char> plain(kBuf);
  const int rw = OpenFile("rw", kBuf, O_RDWR);
  const int ro = OpenFile("ro", kBuf, O_RDONLY);
  const int wo = OpenFile("wo", kBuf, O_WRONLY);
  int local = 0;

  RunTable(std::vector<SsizeCase>{
      {"Read closed driver", [&] { return hipFileRead(&local, dev, 1, 0, 0); }, -1, EINVAL},
      {"Write closed driver", [&] { return hipFileWrite(&local, dev, 1, 0, 0); }, -1, EINVAL},
  });
  hipFileHandle_t fh = Register(rw);
  hipFileHandle_t fh_ro = Register(ro);
  hipFileHandle_t fh_wo = Register(wo);
  ASSERT_TRUE(fh && fh_ro && fh_wo);
  ASSERT_TRUE(IsSuccess(hipFileBufRegister(host, kBuf, 0)));
  const ssize_t not_registered = -static_cast<ssize_t>(hipFileHandleNotRegistered);
  const ssize_t invalid = -static_cast<ssize_t>(hipFileInvalidValue);

  std::vector<SsizeCase> table;
  for (const bool write : {false, true}) {
    const std::string op = write ? "Write" : "Read";
    auto io = [write](hipFileHandle_t h, void* b, size_t s, hoff_t fo, hoff_t bo) {
      return write ? hipFileWrite(h, b, s, fo, bo) : hipFileRead(h, b, s, fo, bo);
    };
    const std::vector<SsizeCase> rows = {
        {op + "(NULL handle)", [=] { return io(nullptr, dev, 1, 0, 0); }, not_registered},
        {op + "(unknown handle)", [=, &local] { return io(&local, dev, 1, 0, 0); }, not_registered},
        {op + "(NULL buffer)", [=] { return io(fh, nullptr, 1, 0, 0); }, invalid},
        {op + "(plain memory)", [=, &plain] { return io(fh, plain.data(), 1, 0, 0); },
         -static_cast<ssize_t>(hipFileHipMemoryTypeInvalid)},
        {op + "(file_offset -1)", [=] { return io(fh, dev, 1, -1, 0); }, -1, EINVAL},
        {op + "(file_offset INT64_MIN)", [=] { return io(fh, dev, 1, INT64_MIN, 0); }, -1, EINVAL},
        {op + "(buffer_offset -1)", [=] { return io(fh, dev, 1, 0, -1); }, -1, EINVAL},
        {op + "(buffer_offset INT64_MIN)", [=] { return io(fh, dev, 1, 0, INT64_MIN); }, -1,
         EINVAL},
        {op + "(buffer_offset = length)", [=] { return io(fh, dev, 1, 0, kBuf); }, invalid},
        {op + "(buffer_offset INT64_MAX)", [=] { return io(fh, dev, 1, 0, INT64_MAX); }, invalid},
        {op + "(size SIZE_MAX)", [=] { return io(fh, dev, SIZE_MAX, 0, 0); }, invalid},
        {op + "(size length+1)", [=] { return io(fh, dev, kBuf + 1, 0, 0); }, invalid},
        {op + "(size + buffer_offset past end)", [=] { return io(fh, dev, kBuf, 0, 1); }, invalid},
        {op + "(registered host, past its length)", [=] { return io(fh, host, kBuf, 0, 1); },
         invalid},
        {op + "(size 0)", [=] { return io(fh, dev, 0, 0, 0); }, 0},
    };
    table.insert(table.end(), rows.begin(), rows.end());
  }
  table.push_back(
      {"Read(beyond end of file)", [=] { return hipFileRead(fh, dev, 4096, 1LL << 40, 0); }, 0});
  // Wrong open modes: the system call's EBADF, untranslated.
  table.push_back(
      {"Read(O_WRONLY)", [=] { return hipFileRead(fh_wo, dev, 4096, 0, 0); }, -1, EBADF});
  table.push_back(
      {"Write(O_RDONLY)", [=] { return hipFileWrite(fh_ro, dev, 4096, 0, 0); }, -1, EBADF});
  table.push_back(
      {"Read(O_WRONLY, host)", [=] { return hipFileRead(fh_wo, host, 4096, 0, 0); }, -1, EBADF});
  table.push_back(
      {"Write(O_RDONLY, host)", [=] { return hipFileWrite(fh_ro, host, 4096, 0, 0); }, -1, EBADF});
  RunTable(table);

  // A host buffer deregistered is still pinned: served as unregistered pinned memory, whose range
  // is its allocation's.
  ASSERT_TRUE(IsSuccess(hipFileBufDeregister(host)));
  RunTable(std::vector<SsizeCase>{
      {"Read(deregistered host buffer)", [=] { return hipFileRead(fh, host, 1, 0, 0); }, 1},
      {"Read(deregistered host buffer, past its allocation)",
       [=] { return hipFileRead(fh, host, kBuf + 1, 0, 0); }, invalid},
  });
  // Nothing above damaged the handles: a clean read works and matches the file.
  ASSERT_EQ(hipFileRead(fh, dev, kBuf, 0, 0), static_cast<ssize_t>(kBuf));
  std::vector<unsigned char> got(kBuf);
  ASSERT_EQ(hipMemcpy(got.data(), dev, kBuf, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(got, testing::PatternBytes(kBuf));
  EXPECT_EQ(testing::ReadFileOrDie(dir_.File("ro")), testing::PatternBytes(kBuf))
      << "a refused write changed the file";
}

TEST_F(BadInputTest, AsyncIo) {
  char* dev = static_cast<char*>(DeviceAlloc(kBuf));
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), hipSuccess);
  size_t size = 4096;
  hoff_t fo = 0, bo = 0;
  ssize_t bytes = 0;
  int local = 0;

  RunTable(std::vector<ErrCase>{
      {"ReadAsync closed driver",
       [&] { return hipFileReadAsync(&local, dev, &size, &fo, &bo, &bytes, stream); },
       hipFileInvalidValue},
  });
  EXPECT_EQ(hipFileUseCount(), 1) << "async submission at count 0 opens the driver";

  const int rw = OpenFile("rw", kBuf, O_RDWR);
  const int ro = OpenFile("ro", kBuf, O_RDONLY);
  const int wo = OpenFile("wo", kBuf, O_WRONLY);
  hipFileHandle_t fh = Register(rw);
  hipFileHandle_t fh_ro = Register(ro);
  hipFileHandle_t fh_wo = Register(wo);
  size_t big = SIZE_MAX, too_long = kBuf + 1;
  hoff_t neg = -1, min64 = INT64_MIN, at_end = kBuf;

  std::vector<ErrCase> table;
  for (const bool write : {false, true}) {
    const std::string op = write ? "WriteAsync" : "ReadAsync";
    auto io = [write, stream](hipFileHandle_t h, void* b, size_t* s, hoff_t* f, hoff_t* o,
                              ssize_t* n) {
      return write ? hipFileWriteAsync(h, b, s, f, o, n, stream)
                   : hipFileReadAsync(h, b, s, f, o, n, stream);
    };
    const std::vector<ErrCase> rows = {
        {op + "(NULL buffer)", [&, io] { return io(fh, nullptr, &size, &fo, &bo, &bytes); },
         hipFileInvalidValue},
        {op + "(NULL size_p)", [&, io] { return io(fh, dev, nullptr, &fo, &bo, &bytes); },
         hipFileInvalidValue},
        {op + "(NULL file_offset_p)", [&, io] { return io(fh, dev, &size, nullptr, &bo, &bytes); },
         hipFileInvalidValue},
        {op + "(NULL buffer_offset_p)",
         [&, io] { return io(fh, dev, &size, &fo, nullptr, &bytes); }, hipFileInvalidValue},
        {op + "(NULL bytes_p)", [&, io] { return io(fh, dev, &size, &fo, &bo, nullptr); },
         hipFileInvalidValue},
        {op + "(NULL handle)", [&, io] { return io(nullptr, dev, &size, &fo, &bo, &bytes); },
         hipFileHandleNotRegistered},
        {op + "(unknown handle)", [&, io] { return io(&local, dev, &size, &fo, &bo, &bytes); },
         hipFileHandleNotRegistered},
        {op + "(file_offset -1)", [&, io] { return io(fh, dev, &size, &neg, &bo, &bytes); },
         hipFileInvalidValue},
        {op + "(file_offset INT64_MIN)",
         [&, io] { return io(fh, dev, &size, &min64, &bo, &bytes); }, hipFileInvalidValue},
        {op + "(buffer_offset -1)", [&, io] { return io(fh, dev, &size, &fo, &neg, &bytes); },
         hipFileInvalidValue},
        {op + "(buffer_offset = length)",
         [&, io] { return io(fh, dev, &size, &fo, &at_end, &bytes); }, hipFileInvalidValue},
        {op + "(size SIZE_MAX)", [&, io] { return io(fh, dev, &big, &fo, &bo, &bytes); },
         hipFileInvalidValue},
        {op + "(size length+1)", [&, io] { return io(fh, dev, &too_long, &fo, &bo, &bytes); },
         hipFileInvalidValue},
    };
    table.insert(table.end(), rows.begin(), rows.end());
  }
  table.push_back({"StreamRegister(flags 0x10)",
                   [&] { return hipFileStreamRegister(stream, 0x10); }, hipFileInvalidValue});
  table.push_back({"StreamRegister(flags ~0)", [&] { return hipFileStreamRegister(stream, ~0u); },
                   hipFileInvalidValue});
  table.push_back({"StreamDeregister(not registered)",
                   [&] { return hipFileStreamDeregister(stream); }, hipFileInvalidValue});
  table.push_back(
      {"StreamRegister", [&] { return hipFileStreamRegister(stream, 0xf); }, hipFileSuccess});
  table.push_back({"StreamRegister twice", [&] { return hipFileStreamRegister(stream, 0); },
                   hipFileInvalidValue});
  table.push_back(
      {"StreamDeregister", [&] { return hipFileStreamDeregister(stream); }, hipFileSuccess});
  table.push_back({"StreamDeregister twice", [&] { return hipFileStreamDeregister(stream); },
                   hipFileInvalidValue});
  RunTable(table);

  // Wrong open modes: accepted at submission, the op's result is the negated errno.
  ssize_t read_wo = 1, write_ro = 1;
  size_t s1 = 4096, s2 = 4096;
  hoff_t f1 = 0, f2 = 0, b1 = 0, b2 = 0;
  ASSERT_TRUE(IsSuccess(hipFileReadAsync(fh_wo, dev, &s1, &f1, &b1, &read_wo, stream)));
  ASSERT_TRUE(IsSuccess(hipFileWriteAsync(fh_ro, dev, &s2, &f2, &b2, &write_ro, stream)));
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  g_cases += 2;
  EXPECT_EQ(read_wo, -EBADF) << "ReadAsync(O_WRONLY)";
  EXPECT_EQ(write_ro, -EBADF) << "WriteAsync(O_RDONLY)";

  // Unknown and destroyed streams: the runtime's error. A bogus stream pointer is only safe to
  // pass to the CPU runtime (a real runtime dereferences it).
  hipStream_t dead = nullptr;
  ASSERT_EQ(hipStreamCreate(&dead), hipSuccess);
  ASSERT_EQ(hipStreamDestroy(dead), hipSuccess);
  if (OnCpuRuntime()) {
    RunTable(std::vector<ErrCase>{
        {"StreamRegister(destroyed)", [&] { return hipFileStreamRegister(dead, 0); },
         hipFileHipDriverError, hipErrorInvalidHandle},
        {"ReadAsync(destroyed stream)",
         [&] { return hipFileReadAsync(fh, dev, &size, &fo, &bo, &bytes, dead); },
         hipFileHipDriverError, hipErrorInvalidHandle},
        {"StreamDeregister(destroyed)", [&] { return hipFileStreamDeregister(dead); },
         hipFileInvalidValue},
    });
  }
  // A clean operation on the same stream afterwards.
  size = kBuf;
  fo = 0;
  bo = 0;
  bytes = -1;
  ASSERT_TRUE(IsSuccess(hipFileReadAsync(fh, dev, &size, &fo, &bo, &bytes, stream)));
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(bytes, static_cast<ssize_t>(kBuf));
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
}

hipFileIOParams_t Entry(hipFileOpcode_t opcode, hipFileHandle_t fh, void* base, size_t size,
                        int64_t file_offset, int64_t buffer_offset) {
  return testing::BatchEntry(opcode, fh, base, size, file_offset, buffer_offset);
}

TEST_F(BadInputTest, BatchIo) {
  char* dev = static_cast<char*>(DeviceAlloc(kBuf));
  std::vector<char> plain(kBuf);
  hipFileBatchHandle_t batch = nullptr;
  RunTable(std::vector<ErrCase>{
      {"SetUp(NULL)", [] { return hipFileBatchIOSetUp(nullptr, 4); }, hipFileInvalidValue},
      {"SetUp(max_nr 0)", [&] { return hipFileBatchIOSetUp(&batch, 0); }, hipFileInvalidValue},
      {"SetUp(max_nr 129)", [&] { return hipFileBatchIOSetUp(&batch, 129); }, hipFileInvalidValue},
      {"SetUp(max_nr UINT_MAX)", [&] { return hipFileBatchIOSetUp(&batch, UINT_MAX); },
       hipFileInvalidValue},
  });
  EXPECT_EQ(batch, nullptr);
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSetUp(&batch, 2)));
  int local = 0;
  hipFileIOParams_t ok_entry = Entry(hipFileBatchRead, &local, dev, 4096, 0, 0);
  RunTable(std::vector<ErrCase>{
      {"Submit closed driver", [&] { return hipFileBatchIOSubmit(batch, 1, &ok_entry, 0); },
       hipFileDriverNotInitialized},
  });

  hipFileHandle_t fh = Register(OpenFile("rw", kBuf, O_RDWR));
  const int wo = OpenFile("wo", kBuf, O_WRONLY);
  hipFileHandle_t fh_wo = Register(wo);
  ok_entry.fh = fh;
  auto bad = [&](const std::string& name, std::function<void(hipFileIOParams_t&)> edit,
                 hipFileOpError_t want) {
    return ErrCase{name,
                   [=] {
                     hipFileIOParams_t p = ok_entry;
                     edit(p);
                     return hipFileBatchIOSubmit(batch, 1, &p, 0);
                   },
                   want};
  };
  hipFileIOParams_t three[3] = {ok_entry, ok_entry, ok_entry};
  hipFileBatchHandle_t unknown = reinterpret_cast<hipFileBatchHandle_t>(uintptr_t{1} << 40);
  unsigned nr = 1;
  unsigned zero = 0;
  hipFileIOEvents_t events[4];
  struct timespec ts_bad_nsec = {0, 1000000000L};
  struct timespec ts_neg_nsec = {0, -1};
  struct timespec ts_neg_sec = {-1, 0};
  std::vector<ErrCase> table = {
      {"Submit(NULL batch)", [&] { return hipFileBatchIOSubmit(nullptr, 1, &ok_entry, 0); },
       hipFileInvalidValue},
      {"Submit(unknown batch)", [&] { return hipFileBatchIOSubmit(unknown, 1, &ok_entry, 0); },
       hipFileInvalidValue},
      {"Submit(nr 0)", [&] { return hipFileBatchIOSubmit(batch, 0, &ok_entry, 0); },
       hipFileInvalidValue},
      {"Submit(NULL params)", [&] { return hipFileBatchIOSubmit(batch, 1, nullptr, 0); },
       hipFileInvalidValue},
      {"Submit(nr > max_nr)", [&] { return hipFileBatchIOSubmit(batch, 3, three, 0); },
       hipFileBatchFull},
      bad(
          "Submit(mode 0)", [](hipFileIOParams_t& p) { p.mode = RawEnum<hipFileBatchMode_t>(0); },
          hipFileInvalidValue),
      bad(
          "Submit(mode 2)", [](hipFileIOParams_t& p) { p.mode = RawEnum<hipFileBatchMode_t>(2); },
          hipFileInvalidValue),
      bad(
          "Submit(opcode 2)", [](hipFileIOParams_t& p) { p.opcode = RawEnum<hipFileOpcode_t>(2); },
          hipFileInvalidValue),
      bad(
          "Submit(opcode -1)",
          [](hipFileIOParams_t& p) { p.opcode = RawEnum<hipFileOpcode_t>(-1); },
          hipFileInvalidValue),
      bad(
          "Submit(NULL fh)", [](hipFileIOParams_t& p) { p.fh = nullptr; },
          hipFileHandleNotRegistered),
      bad(
          "Submit(unknown fh)", [&](hipFileIOParams_t& p) { p.fh = &local; },
          hipFileHandleNotRegistered),
      bad(
          "Submit(NULL buffer)", [](hipFileIOParams_t& p) { p.u.batch.devPtr_base = nullptr; },
          hipFileInvalidValue),
      bad(
          "Submit(plain memory)",
          [&](hipFileIOParams_t& p) { p.u.batch.devPtr_base = plain.data(); },
          hipFileHipMemoryTypeInvalid),
      bad(
          "Submit(file_offset -1)", [](hipFileIOParams_t& p) { p.u.batch.file_offset = -1; },
          hipFileInvalidValue),
      bad(
          "Submit(file_offset INT64_MIN)",
          [](hipFileIOParams_t& p) { p.u.batch.file_offset = INT64_MIN; }, hipFileInvalidValue),
      bad(
          "Submit(buffer_offset -1)", [](hipFileIOParams_t& p) { p.u.batch.devPtr_offset = -1; },
          hipFileInvalidValue),
      bad(
          "Submit(buffer_offset INT64_MAX)",
          [](hipFileIOParams_t& p) { p.u.batch.devPtr_offset = INT64_MAX; }, hipFileInvalidValue),
      bad(
          "Submit(size SIZE_MAX)", [](hipFileIOParams_t& p) { p.u.batch.size = SIZE_MAX; },
          hipFileInvalidValue),
      bad(
          "Submit(size length+1)", [](hipFileIOParams_t& p) { p.u.batch.size = kBuf + 1; },
          hipFileInvalidValue),
      {"GetStatus(unknown batch)",
       [&] { return hipFileBatchIOGetStatus(unknown, 0, &nr, events, nullptr); },
       hipFileInvalidValue},
      {"GetStatus(NULL nr)",
       [&] { return hipFileBatchIOGetStatus(batch, 0, nullptr, events, nullptr); },
       hipFileInvalidValue},
      {"GetStatus(NULL events)",
       [&] { return hipFileBatchIOGetStatus(batch, 0, &nr, nullptr, nullptr); },
       hipFileInvalidValue},
      {"GetStatus(*nr 0)",
       [&] { return hipFileBatchIOGetStatus(batch, 0, &zero, events, nullptr); },
       hipFileInvalidValue},
      {"GetStatus(min_nr > *nr)",
       [&] { return hipFileBatchIOGetStatus(batch, 2, &nr, events, nullptr); },
       hipFileInvalidValue},
      {"GetStatus(tv_nsec 1e9)",
       [&] { return hipFileBatchIOGetStatus(batch, 0, &nr, events, &ts_bad_nsec); },
       hipFileInvalidValue},
      {"GetStatus(tv_nsec -1)",
       [&] { return hipFileBatchIOGetStatus(batch, 0, &nr, events, &ts_neg_nsec); },
       hipFileInvalidValue},
      {"GetStatus(tv_sec -1)",
       [&] { return hipFileBatchIOGetStatus(batch, 0, &nr, events, &ts_neg_sec); },
       hipFileInvalidValue},
      {"Cancel(unknown batch)", [&] { return hipFileBatchIOCancel(unknown); }, hipFileInvalidValue},
      {"Cancel(NULL batch)", [&] { return hipFileBatchIOCancel(nullptr); }, hipFileInvalidValue},
  };
  RunTable(table);

  // Flags are ignored; a wrong open mode is an entry failure carrying -EBADF.
  hipFileIOParams_t pair[2] = {ok_entry, Entry(hipFileBatchRead, fh_wo, dev, 4096, 0, 4096)};
  ASSERT_TRUE(IsSuccess(hipFileBatchIOSubmit(batch, 2, pair, ~0u)));
  unsigned got = 0;
  hipFileIOEvents_t drained[2];
  while (got < 2) {
    unsigned n = 2 - got;
    ASSERT_TRUE(IsSuccess(hipFileBatchIOGetStatus(batch, 1, &n, drained + got, nullptr)));
    got += n;
  }
  g_cases += 2;
  int complete = 0, failed = 0;
  for (const hipFileIOEvents_t& ev : drained) {
    if (ev.status == hipFileComplete) {
      ++complete;
      EXPECT_EQ(ev.ret, 4096u);
    } else {
      ++failed;
      EXPECT_EQ(ev.status, hipFileFailed);
      EXPECT_EQ(static_cast<ssize_t>(ev.ret), -EBADF) << "batch read from O_WRONLY";
    }
  }
  EXPECT_EQ(complete, 1);
  EXPECT_EQ(failed, 1);

  // Destroy: NULL, unknown, real, twice; the destroyed handle is then unknown.
  hipFileBatchIODestroy(nullptr);
  hipFileBatchIODestroy(unknown);
  hipFileBatchIODestroy(batch);
  hipFileBatchIODestroy(batch);
  g_cases += 4;
  RunTable(std::vector<ErrCase>{
      {"Submit(destroyed batch)", [&] { return hipFileBatchIOSubmit(batch, 1, &ok_entry, 0); },
       hipFileInvalidValue},
      {"Cancel(destroyed batch)", [&] { return hipFileBatchIOCancel(batch); }, hipFileInvalidValue},
  });
}

}  // namespace
}  // namespace hipfile::api
