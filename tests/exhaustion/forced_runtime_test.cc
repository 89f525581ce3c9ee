// SPDX-License-Identifier: MIT
// A forced runtime that cannot work is refused where it is asked for: HIPFILE_RUNTIME=cuda on a
// machine without a usable GPU makes hipFileDriverOpen fail with hipFileDriverError and an error
// line saying why; implicit opens (registrations, a stream-ordered submission) fail the same way
// and leave nothing registered. In a forked child, since the runtime is chosen once per process.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile_ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace {

constexpr int kSkip = 77;

bool IsDriverError(hipFileError_t e) { return e.err == hipFileDriverError; }

// The child's body: 0 when every check held, kSkip where CUDA works, else the failing line.
int ForcedCuda() {
  setenv("HIPFILE_RUNTIME", "cuda", 1);
  if (std::string(hipFileExtRuntimeReason()).find("unusable") == std::string::npos) return kSkip;
  if (!IsDriverError(hipFileDriverOpen())) return __LINE__;
  if (hipFileUseCount() != 0) return __LINE__;
  // Implicit opens: a file registration, a buffer registration, a stream-ordered submission.
  char path[] = "/tmp/hipfile-forced-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return __LINE__;
  unlink(path);
  hipFileDescr_t descr = {};
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = fd;
  hipFileHandle_t fh = nullptr;
  if (!IsDriverError(hipFileHandleRegister(&fh, &descr))) return __LINE__;
  if (hipFileUseCount() != 0) return __LINE__;
  static char host[4096];
  if (!IsDriverError(hipFileBufRegister(host, sizeof host, 0))) return __LINE__;
  size_t size = 4096;
  hoff_t off = 0, boff = 0;
  ssize_t bytes = 0;
  if (!IsDriverError(hipFileReadAsync(fh, host, &size, &off, &boff, &bytes, nullptr))) {
    return __LINE__;
  }
  if (hipFileUseCount() != 0) return __LINE__;
  close(fd);
  return 0;
}

TEST(ForcedRuntimeTest, CudaWithoutAUsableGpuIsRefusedAtOpenAndSaysWhy) {
  int err_pipe[2];
  ASSERT_EQ(pipe(err_pipe), 0);
  fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(err_pipe[1], STDERR_FILENO);
    close(err_pipe[0]);
    _exit(ForcedCuda());
  }
  close(err_pipe[1]);
  std::string err;
  char chunk[4096];
  for (ssize_t n; (n = read(err_pipe[0], chunk, sizeof chunk)) > 0;) err.append(chunk, n);
  close(err_pipe[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << err;
  if (WEXITSTATUS(status) == kSkip) GTEST_SKIP() << "CUDA works on this machine";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "failed at line " << WEXITSTATUS(status) << "\n" << err;
  // The error line names the runtime, that it has no usable device, and the reason.
  EXPECT_NE(err.find("hipfile[error]: hipFileDriverOpen: the cuda runtime has no usable device"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("cuda (unusable): "), std::string::npos) << err;
}

}  // namespace
