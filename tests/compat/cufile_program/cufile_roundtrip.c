// SPDX-License-Identifier: MIT
/* A cuFile program as NVIDIA's API reference describes one, and nothing of this project's: open
 * the driver, register a file (O_DIRECT where the file system takes it), register a buffer,
 * write a pattern, read it back into a cleared buffer, check every byte, deregister, close. Built
 * against a cufile.h and linked with -lcufile, it runs on NVIDIA's library or on the drop-in.
 *
 *   cufile_roundtrip FILE [--system-memory]
 *
 * The buffer is GPU memory from the CUDA driver (libcuda.so.1, loaded at run time) where one can
 * be had; with --system-memory, or without a GPU, it is host memory, which cuFile serves when
 * CUFILE_PARAM_PROPERTIES_ALLOW_SYSTEM_MEMORY is set before the driver opens. */
#include <cufile.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SIZE (4u << 20)

typedef int (*cu_init_t)(unsigned);
typedef int (*cu_device_get_t)(int*, int);
typedef int (*cu_ctx_retain_t)(void**, int);
typedef int (*cu_ctx_set_t)(void*);
typedef int (*cu_alloc_t)(uint64_t*, size_t);
typedef int (*cu_copy_htod_t)(uint64_t, const void*, size_t);
typedef int (*cu_copy_dtoh_t)(void*, uint64_t, size_t);
typedef int (*cu_free_t)(uint64_t);

static struct {
  cu_copy_htod_t htod;
  cu_copy_dtoh_t dtoh;
  cu_free_t free;
} cuda;

static int fail(const char* what, CUfileError_t status) {
  fprintf(stderr, "FAIL  %s: %s (%d), CUresult %d\n", what, CUFILE_ERRSTR(status.err),
          (int)status.err, (int)status.cu_err);
  return 1;
}

/* GPU memory through the CUDA driver API, or NULL when there is none to be had. */
static void* gpu_alloc(size_t size) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (lib == NULL) return NULL;
  cu_init_t init = (cu_init_t)dlsym(lib, "cuInit");
  cu_device_get_t device_get = (cu_device_get_t)dlsym(lib, "cuDeviceGet");
  cu_ctx_retain_t retain = (cu_ctx_retain_t)dlsym(lib, "cuDevicePrimaryCtxRetain");
  cu_ctx_set_t set = (cu_ctx_set_t)dlsym(lib, "cuCtxSetCurrent");
  cu_alloc_t alloc = (cu_alloc_t)dlsym(lib, "cuMemAlloc_v2");
  cuda.htod = (cu_copy_htod_t)dlsym(lib, "cuMemcpyHtoD_v2");
  cuda.dtoh = (cu_copy_dtoh_t)dlsym(lib, "cuMemcpyDtoH_v2");
  cuda.free = (cu_free_t)dlsym(lib, "cuMemFree_v2");
  int device = 0;
  void* ctx = NULL;
  uint64_t ptr = 0;
  if (!init || !device_get || !retain || !set || !alloc || !cuda.htod || !cuda.dtoh || !cuda.free ||
      init(0) != 0 || device_get(&device, 0) != 0 || retain(&ctx, device) != 0 || set(ctx) != 0 ||
      alloc(&ptr, size) != 0) {
    return NULL;
  }
  return (void*)(uintptr_t)ptr;
}

static void fill(unsigned char* bytes, size_t size, unsigned seed) {
  for (size_t i = 0; i < size; ++i) bytes[i] = (unsigned char)((i * 131u + seed) >> 3);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE [--system-memory]\n", argv[0]);
    return 2;
  }
  const char* path = argv[1];
  int system_memory = argc > 2 && strcmp(argv[2], "--system-memory") == 0;
  unsigned char *pattern = malloc(SIZE), *back = malloc(SIZE);
  if (pattern == NULL || back == NULL) return 1;
  fill(pattern, SIZE, 7);

  void* buf = system_memory ? NULL : gpu_alloc(SIZE);
  if (buf == NULL) {
    system_memory = 1;
    if (posix_memalign(&buf, 4096, SIZE) != 0) return 1;
    CUfileError_t s = cuFileSetParameterBool(CUFILE_PARAM_PROPERTIES_ALLOW_SYSTEM_MEMORY, true);
    if (s.err != CU_FILE_SUCCESS) return fail("cuFileSetParameterBool", s);
  }

  CUfileError_t status = cuFileDriverOpen();
  if (status.err != CU_FILE_SUCCESS) return fail("cuFileDriverOpen", status);
  int version = 0;
  status = cuFileGetVersion(&version);
  if (status.err != CU_FILE_SUCCESS) return fail("cuFileGetVersion", status);
  CUfileDrvProps_t props;
  status = cuFileDriverGetProperties(&props);
  if (status.err != CU_FILE_SUCCESS) return fail("cuFileDriverGetProperties", status);

  int direct = 1;
  int fd = open(path, O_CREAT | O_RDWR | O_TRUNC | O_DIRECT, 0644);
  if (fd < 0 && errno == EINVAL) { /* a file system without O_DIRECT (tmpfs) */
    direct = 0;
    fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
  }
  if (fd < 0) {
    perror(path);
    return 1;
  }
  CUfileDescr_t descr;
  memset(&descr, 0, sizeof descr);
  descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
  descr.handle.fd = fd;
  CUfileHandle_t fh;
  status = cuFileHandleRegister(&fh, &descr);
  if (status.err != CU_FILE_SUCCESS) return fail("cuFileHandleRegister", status);
  status = cuFileBufRegister(buf, SIZE, 0);
  if (status.err != CU_FILE_SUCCESS) return fail("cuFileBufRegister", status);

  if (system_memory) {
    memcpy(buf, pattern, SIZE);
  } else if (cuda.htod((uint64_t)(uintptr_t)buf, pattern, SIZE) != 0) {
    return 1;
  }
  ssize_t written = cuFileWrite(fh, buf, SIZE, 0, 0);
  if (written != (ssize_t)SIZE) {
    fprintf(stderr, "FAIL  cuFileWrite: %zd (%s)\n", written,
            written == -1 ? strerror(errno) : CUFILE_ERRSTR(written));
    return 1;
  }
  if (system_memory) {
    memset(buf, 0, SIZE);
  } else {
    memset(back, 0, SIZE);
    if (cuda.htod((uint64_t)(uintptr_t)buf, back, SIZE) != 0) return 1;
  }
  /* Back in two halves, the second through bufPtr_offset. */
  ssize_t first = cuFileRead(fh, buf, SIZE / 2, 0, 0);
  ssize_t second = cuFileRead(fh, buf, SIZE / 2, SIZE / 2, SIZE / 2);
  if (first != SIZE / 2 || second != SIZE / 2) {
    fprintf(stderr, "FAIL  cuFileRead: %zd, %zd\n", first, second);
    return 1;
  }
  if (system_memory) {
    memcpy(back, buf, SIZE);
  } else if (cuda.dtoh(back, (uint64_t)(uintptr_t)buf, SIZE) != 0) {
    return 1;
  }
  for (size_t i = 0; i < SIZE; ++i) {
    if (back[i] != pattern[i]) {
      fprintf(stderr, "FAIL  byte %zu: %u, wrote %u\n", i, back[i], pattern[i]);
      return 1;
    }
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size != (off_t)SIZE) {
    fprintf(stderr, "FAIL  the file holds %lld bytes\n", (long long)st.st_size);
    return 1;
  }

  status = cuFileBufDeregister(buf);
  if (status.err != CU_FILE_SUCCESS) return fail("cuFileBufDeregister", status);
  cuFileHandleDeregister(fh);
  close(fd);
  status = cuFileDriverClose();
  if (status.err != CU_FILE_SUCCESS) return fail("cuFileDriverClose", status);
  if (!system_memory) cuda.free((uint64_t)(uintptr_t)buf);
  printf(
      "OK  cuFile %d.%d round trip: %u bytes written and read back (%s, %s memory; "
      "nvidia-fs %u.%u)\n",
      version / 1000, version % 1000 / 10, SIZE, direct ? "O_DIRECT" : "buffered",
      system_memory ? "system" : "GPU", props.nvfs.major_version, props.nvfs.minor_version);
  return 0;
}
