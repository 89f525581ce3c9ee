// SPDX-License-Identifier: MIT
/* A program built the way AMD's fio fork builds its engine against ROCm: <hip/hip_runtime.h>
 * from $ROCM_PATH/include, -lamdhip64 -lhipfile from $ROCM_PATH/lib, synchronous hipFile calls on
 * a hipMalloc'd buffer. rocm_layout_test.sh builds it against an installed prefix with the
 * rocm-layout component. Writes 1 MiB of a pattern, reads it back into the cleared buffer, checks
 * it; prints one OK line.
 *
 *   fork_style FILE */
#include <fcntl.h>
#include <hip/hip_runtime.h>
#include <hipfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIZE (1u << 20)

static int fail(const char* what) {
  fprintf(stderr, "fork_style: %s failed\n", what);
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: fork_style FILE\n");
    return 2;
  }
  unsigned char* host = malloc(SIZE);
  unsigned char* back = malloc(SIZE);
  if (host == NULL || back == NULL) return fail("malloc");
  for (unsigned i = 0; i < SIZE; i++) host[i] = (unsigned char)(i * 131u + 7u);
  void* gpu = NULL;
  if (hipSetDevice(0) != hipSuccess) return fail("hipSetDevice");
  if (hipMalloc(&gpu, SIZE) != hipSuccess) return fail("hipMalloc");
  if (hipMemcpy(gpu, host, SIZE, hipMemcpyHostToDevice) != hipSuccess) return fail("hipMemcpy");
  if (hipFileDriverOpen().err != hipFileSuccess) return fail("hipFileDriverOpen");
  int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return fail("open");
  hipFileDescr_t descr;
  memset(&descr, 0, sizeof(descr));
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = fd;
  hipFileHandle_t fh;
  if (hipFileHandleRegister(&fh, &descr).err != hipFileSuccess) return fail("register");
  if (hipFileWrite(fh, gpu, SIZE, 0, 0) != (ssize_t)SIZE) return fail("hipFileWrite");
  if (hipMemset(gpu, 0, SIZE) != hipSuccess) return fail("hipMemset");
  if (hipFileRead(fh, gpu, SIZE, 0, 0) != (ssize_t)SIZE) return fail("hipFileRead");
  if (hipMemcpy(back, gpu, SIZE, hipMemcpyDeviceToHost) != hipSuccess) return fail("hipMemcpy");
  if (memcmp(host, back, SIZE) != 0) return fail("the comparison");
  hipFileHandleDeregister(fh);
  close(fd);
  if (hipFileDriverClose().err != hipFileSuccess) return fail("hipFileDriverClose");
  if (hipFree(gpu) != hipSuccess) return fail("hipFree");
  printf("OK  rocm-layout: %u bytes written and read back through libamdhip64 and libhipfile\n",
         SIZE);
  free(host);
  free(back);
  return 0;
}
