// SPDX-License-Identifier: MIT
// deny-io-uring COMMAND [ARG...]: runs COMMAND under a seccomp filter that refuses io_uring_setup,
// io_uring_enter and io_uring_register with EPERM, as Docker's default profile does. For
// hipfile-check's test of a refused io_uring (tools/hipfile-check/CMakeLists.txt).
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "deny-io-uring: add this architecture's AUDIT_ARCH"
#endif

#define DENY(nr)                                   \
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: deny-io-uring COMMAND [ARG...]\n");
    return 2;
  }
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      DENY(__NR_io_uring_setup),
      DENY(__NR_io_uring_enter),
      DENY(__NR_io_uring_register),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {(unsigned short)(sizeof filter / sizeof filter[0]), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
    fprintf(stderr, "deny-io-uring: cannot install the filter: %s\n", strerror(errno));
    return 77;
  }
  execvp(argv[1], argv + 1);
  fprintf(stderr, "deny-io-uring: %s: %s\n", argv[1], strerror(errno));
  return 127;
}
