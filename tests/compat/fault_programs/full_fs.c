// SPDX-License-Identifier: MIT
/* A full file system: writes of 2 MiB into a 1 MiB tmpfs, on the sync, stream-ordered and batch
 * paths, report a short count of exactly the bytes the file then holds, and the next write reports
 * ENOSPC. The tmpfs is mounted by a child in a mount namespace of its own (as root, or through a
 * user namespace) and reached through /proc/<child>/root; exits 77 when neither can mount.
 *   full_fs WORK_DIR */
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "fault_common.h"

#define FS_BYTES (1u << 20)
#define WRITE_BYTES (2u * FS_BYTES)

static int write_text(const char* path, const char* text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = write(fd, text, strlen(text));
  close(fd);
  return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The child: a private mount namespace with the tmpfs on `dir`; reports errno (0: mounted) on
 * `report`, then waits for EOF on `stop`. */
static void mount_child(const char* dir, int report, int stop) {
  char map[64];
  int err = 0;
  uid_t uid = geteuid();
  gid_t gid = getegid();
  if (unshare(uid == 0 ? CLONE_NEWNS : CLONE_NEWUSER | CLONE_NEWNS) != 0) err = errno;
  if (err == 0 && uid != 0) {
    write_text("/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "%u %u 1", (unsigned)uid, (unsigned)uid);
    if (write_text("/proc/self/uid_map", map) != 0) err = errno;
    snprintf(map, sizeof map, "%u %u 1", (unsigned)gid, (unsigned)gid);
    if (err == 0 && write_text("/proc/self/gid_map", map) != 0) err = errno;
  }
  if (err == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) err = errno;
  if (err == 0 && mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0700") != 0)
    err = errno;
  if (write(report, &err, sizeof err) != sizeof err) _exit(1);
  char c;
  while (read(stop, &c, 1) < 0 && errno == EINTR) {
  }
  _exit(0);
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  char dir[2048], root[2200], file[2300];
  snprintf(dir, sizeof dir, "%s/full-fs-mnt", argv[1]);
  mkdir(dir, 0700);
  int report[2], stop[2];
  check(pipe2(report, O_CLOEXEC) == 0 && pipe2(stop, O_CLOEXEC) == 0, "pipe2");
  pid_t child = fork();
  check(child >= 0, "fork");
  if (child == 0) {
    close(report[0]);
    close(stop[1]);
    mount_child(dir, report[1], stop[0]);
  }
  close(report[1]);
  close(stop[0]);
  int err = -1;
  if (read(report[0], &err, sizeof err) != sizeof err || err != 0) {
    printf("full_fs skipped: cannot mount a tmpfs here (%s)\n",
           err > 0 ? strerror(err) : "the child died");
    return SKIPPED;
  }
  snprintf(root, sizeof root, "/proc/%d/root%s", (int)child, dir);
  snprintf(file, sizeof file, "%s/full.bin", root);

  void* dev = NULL;
  check(hipMalloc(&dev, WRITE_BYTES) == hipSuccess, "hipMalloc");
  unsigned char *data = malloc(WRITE_BYTES), *back = malloc(WRITE_BYTES);
  check(data != NULL && back != NULL, "malloc");
  for (size_t i = 0; i < WRITE_BYTES; ++i) data[i] = pattern(i, 3);
  check(hipMemcpy(dev, data, WRITE_BYTES, hipMemcpyHostToDevice) == hipSuccess, "hipMemcpy");
  int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    printf("full_fs skipped: mounted, but %s cannot be reached (%s)\n", root, strerror(errno));
    return SKIPPED;
  }
  hipFileHandle_t fh = register_fd(fd);

  ssize_t wrote[3];
  for (int path = PATH_SYNC; path <= PATH_BATCH; ++path) {
    check(ftruncate(fd, 0) == 0, "ftruncate");
    wrote[path] = transfer(path, 1, fh, dev, WRITE_BYTES, 0);
    struct stat st;
    check(fstat(fd, &st) == 0, "fstat");
    if (wrote[path] <= 0 || (size_t)wrote[path] > FS_BYTES || st.st_size != wrote[path]) {
      fprintf(stderr, "FAILED: %s write reported %zd, the file holds %lld bytes\n",
              path_names[path], wrote[path], (long long)st.st_size);
      return 1;
    }
    check(pread(fd, back, (size_t)wrote[path], 0) == wrote[path], "pread");
    check(memcmp(back, data, (size_t)wrote[path]) == 0, "the file holds other bytes");
    /* Full: a write into a new page moves nothing. */
    off_t next_page = (wrote[path] + 4095) / 4096 * 4096;
    ssize_t full = transfer(path, 1, fh, dev, 65536, next_page);
    if (full != -ENOSPC) {
      fprintf(stderr, "FAILED: %s write to a full file system gave %zd, not -ENOSPC\n",
              path_names[path], full);
      return 1;
    }
    check(fstat(fd, &st) == 0 && st.st_size == wrote[path], "a failed write changed the file");
  }
  hipFileHandleDeregister(fh);
  close(fd);
  close(stop[1]);
  waitpid(child, NULL, 0);
  printf("full_fs OK: %zd/%zd/%zd of %u bytes written (sync/async/batch), then ENOSPC\n", wrote[0],
         wrote[1], wrote[2], WRITE_BYTES);
  return 0;
}
