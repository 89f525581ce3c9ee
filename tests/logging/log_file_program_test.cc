// SPDX-License-Identifier: MIT
// The log a user finds: a program run with HIPFILE_LOGFILE_PATH (or a configuration file's
// logging.dir) at info level leaves a file that names the runtime the library chose and, for the
// file it registered, the path and what its reads and writes take. Each case runs in a forked
// child, since the configuration is read once per process; this parent never uses the library.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/config_file.h"
#include "fakes/temp_dir.h"

namespace {

// What the child program does: open, register `data`, read 1 MiB of it into device memory, and
// close; with hip_first, the device memory is allocated first, so the library's first call is a
// HIP one. 0 when all of it worked, else the line that failed.
int SmallProgram(const std::string& data, bool hip_first) {
  void* device = nullptr;
  if (hip_first && hipMalloc(&device, 1 << 20) != hipSuccess) return __LINE__;
  if (hipFileDriverOpen().err != hipFileSuccess) return __LINE__;
  const int fd = open(data.c_str(), O_RDWR);
  if (fd < 0) return __LINE__;
  hipFileDescr_t descr = {};
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = fd;
  hipFileHandle_t fh = nullptr;
  if (hipFileHandleRegister(&fh, &descr).err != hipFileSuccess) return __LINE__;
  if (!hip_first && hipMalloc(&device, 1 << 20) != hipSuccess) return __LINE__;
  if (hipFileRead(fh, device, 1 << 20, 0, 0) != (1 << 20)) return __LINE__;
  (void)hipFree(device);
  hipFileHandleDeregister(fh);
  close(fd);
  if (hipFileDriverClose().err != hipFileSuccess) return __LINE__;
  return 0;
}

struct ChildRun {
  pid_t pid = 0;
  int status = -1;  // the child's exit status
  std::string err;  // its stderr
};

// Runs SmallProgram(data, hip_first) in a child with `env` set.
ChildRun RunChild(const std::vector<std::pair<std::string, std::string>>& env,
                  const std::string& data, bool hip_first = false) {
  ChildRun run;
  int err_pipe[2];
  if (pipe(err_pipe) != 0) return run;
  fflush(nullptr);
  run.pid = fork();
  if (run.pid == 0) {
    dup2(err_pipe[1], STDERR_FILENO);
    close(err_pipe[0]);
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    _exit(SmallProgram(data, hip_first));
  }
  close(err_pipe[1]);
  char chunk[4096];
  for (ssize_t n; (n = read(err_pipe[0], chunk, sizeof chunk)) > 0;) run.err.append(chunk, n);
  close(err_pipe[0]);
  int status = 0;
  if (waitpid(run.pid, &status, 0) == run.pid && WIFEXITED(status))
    run.status = WEXITSTATUS(status);
  return run;
}

class LogFileProgramTest : public ::testing::Test {
 protected:
  LogFileProgramTest() {
    hipfile::testing::WriteFileOrDie(data_, hipfile::testing::PatternBytes(4 << 20));
  }
  hipfile::testing::TempDir dir_;
  const std::string data_ = dir_.File("data.bin");
};

TEST_F(LogFileProgramTest, TheFileNamesTheRuntimeChoiceAndTheRegisteredFile) {
  const std::string log = dir_.File("run.log");
  // The program's first call is hipMalloc: the runtime is chosen then, and said in the file.
  const ChildRun run =
      RunChild({{"HIPFILE_LOGFILE_PATH", log}, {"HIPFILE_LOG_LEVEL", "info"}}, data_, true);
  ASSERT_EQ(run.status, 0) << "failed at line " << run.status << "\n" << run.err;
  struct stat st = {};
  ASSERT_EQ(stat(log.c_str(), &st), 0) << "no log file; stderr:\n" << run.err;
  EXPECT_EQ(st.st_mode & 0077, 0u) << "readable by others: " << std::oct << st.st_mode;
  const std::string text = hipfile::testing::ReadTextOrEmpty(log);
  EXPECT_NE(text.find("hipfile[info]: GPU runtime "), std::string::npos) << text;
  EXPECT_NE(text.find("hipfile[info]: driver opened on the "), std::string::npos) << text;
  EXPECT_NE(text.find("hipfile[info]: hipFileHandleRegister: fd "), std::string::npos) << text;
  EXPECT_NE(text.find(" is " + data_ + " ("), std::string::npos) << text;
  EXPECT_NE(text.find("O_DIRECT: "), std::string::npos) << text;
  // Each line: time, [pid:tid thread], level.
  const std::string pid = "[" + std::to_string(run.pid) + ":";
  EXPECT_NE(text.find(pid), std::string::npos) << text;
  // The lines went to the file, not to stderr.
  EXPECT_EQ(run.err.find("GPU runtime"), std::string::npos) << run.err;
}

TEST_F(LogFileProgramTest, AConfigFilesLoggingDirGetsHipfilePidLog) {
  // A pure function: the parent still never opens the library.
  if (!hipfile::core::ConfigFileSupported()) GTEST_SKIP() << "built without nlohmann-json";
  const std::string logs = dir_.File("logs");
  ASSERT_EQ(mkdir(logs.c_str(), 0700), 0);
  const std::string config = dir_.File("cufile.json");
  const std::string json = R"({
    // as cuFile's: comments, its sections and keys
    "logging": { "dir": ")" +
                           logs + R"(", "level": "INFO" },
    "properties": { "max_device_pinned_mem_size_kb": 65536, "rdma_dev_addr_list": [] },
    "fs": { "generic": { "posix_unaligned_writes": false } }
  })";
  hipfile::testing::WriteFileOrDie(config, std::vector<unsigned char>(json.begin(), json.end()));
  const ChildRun run = RunChild({{"HIPFILE_CONFIG", config}}, data_);
  ASSERT_EQ(run.status, 0) << "failed at line " << run.status << "\n" << run.err;
  const std::string log = logs + "/hipfile_" + std::to_string(run.pid) + ".log";
  const std::string text = hipfile::testing::ReadTextOrEmpty(log);
  ASSERT_FALSE(text.empty()) << "no " << log << "; stderr:\n" << run.err;
  EXPECT_NE(text.find("hipfile[info]: configuration file " + config + " read"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\"properties.rdma_dev_addr_list\" has no effect here"), std::string::npos)
      << text;
  EXPECT_NE(text.find("section \"fs\" has no effect here"), std::string::npos) << text;
  EXPECT_NE(text.find("hipfile[info]: GPU runtime "), std::string::npos) << text;
  EXPECT_NE(text.find(" is " + data_ + " ("), std::string::npos) << text;
}

TEST_F(LogFileProgramTest, ABadConfigFileIsReportedOnStderrAndInTheLogAndTheProgramRuns) {
  // A pure function: the parent still never opens the library.
  if (!hipfile::core::ConfigFileSupported()) GTEST_SKIP() << "built without nlohmann-json";
  const std::string config = dir_.File("bad.json");
  const std::string json = R"({"properties": {"use_poll_mode": "yes", "max_pinned": 1}})";
  hipfile::testing::WriteFileOrDie(config, std::vector<unsigned char>(json.begin(), json.end()));
  const std::string log = dir_.File("bad.log");
  const ChildRun run = RunChild({{"HIPFILE_CONFIG", config}, {"HIPFILE_LOGFILE_PATH", log}}, data_);
  ASSERT_EQ(run.status, 0) << "failed at line " << run.status << "\n" << run.err;
  for (const std::string& where : {run.err, hipfile::testing::ReadTextOrEmpty(log)}) {
    EXPECT_NE(where.find("hipfile[error]: HIPFILE_CONFIG " + config +
                         ": \"properties.use_poll_mode\" is \"yes\", not true or false"),
              std::string::npos)
        << where;
    EXPECT_NE(where.find("hipfile[error]: HIPFILE_CONFIG " + config +
                         ": unknown key \"properties.max_pinned\""),
              std::string::npos)
        << where;
  }
}

TEST_F(LogFileProgramTest, ALogFileThatCannotBeOpenedLeavesLoggingOnStderr) {
  const std::string log = dir_.File("missing-dir/run.log");
  const ChildRun run =
      RunChild({{"HIPFILE_LOGFILE_PATH", log}, {"HIPFILE_LOG_LEVEL", "info"}}, data_);
  ASSERT_EQ(run.status, 0) << "failed at line " << run.status << "\n" << run.err;
  const std::string said = "the log file " + log + " cannot be opened";
  const size_t first = run.err.find(said);
  EXPECT_NE(first, std::string::npos) << run.err;
  EXPECT_EQ(first, run.err.rfind(said)) << "said more than once:\n" << run.err;
  EXPECT_NE(run.err.find("hipfile[info]: GPU runtime "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(" is " + data_ + " ("), std::string::npos) << run.err;
}

}  // namespace
