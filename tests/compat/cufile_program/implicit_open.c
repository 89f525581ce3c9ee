// SPDX-License-Identifier: MIT
// A cuFile client that never calls cuFileDriverOpen, as torch.cuda.gds does: its first call is
// cuFileHandleRegister, which opens the driver implicitly. Run on the installed drop-in with
// HIPFILE_LOG_LEVEL=info, the log must still name the library answering (cufile_program_test.sh,
// CUFILE_EXPECT_STDERR). It prints execution.max_io_threads, which a cufile.json named by
// CUFILE_ENV_PATH_JSON sets.
//
//   implicit_open FILE
#include <cufile.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 2;
  }
  int fd = open(argv[1], O_CREAT | O_RDWR, 0644);
  if (fd < 0) {
    perror(argv[1]);
    return 1;
  }
  CUfileDescr_t descr = {0};
  descr.handle.fd = fd;
  descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
  CUfileHandle_t handle;
  CUfileError_t status = cuFileHandleRegister(&handle, &descr);
  if (status.err != CU_FILE_SUCCESS) {
    fprintf(stderr, "cuFileHandleRegister: %d\n", (int)status.err);
    return 1;
  }
  printf("use count after an implicit open: %ld\n", cuFileUseCount());
  size_t threads = 0;
  status = cuFileGetParameterSizeT(CUFILE_PARAM_EXECUTION_MAX_IO_THREADS, &threads);
  if (status.err != CU_FILE_SUCCESS) {
    fprintf(stderr, "cuFileGetParameterSizeT: %d\n", (int)status.err);
    return 1;
  }
  printf("execution.max_io_threads %zu\n", threads);
  cuFileHandleDeregister(handle);
  close(fd);
  printf("OK  implicit open\n");
  return 0;
}
