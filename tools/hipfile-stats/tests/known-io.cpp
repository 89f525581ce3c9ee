// SPDX-License-Identifier: MIT
// known-io FILE EXPECT [--wait]: I/O of known sizes through every kind of call, for hipfile-stats'
// tests. Synchronous writes (two aligned 1 MiB, one unaligned 5000 bytes) and reads (eight 4 KiB,
// one 1 MiB), a batch of four 64 KiB reads and a stream-ordered 256 KiB read; then writes to
// EXPECT what they add up to: "read_bytes=N write_bytes=N read_ops=N write_ops=N
// async_read_ops=N async_write_ops=N" (the last two: of the operations, the stream-ordered ones).
// With --wait it prints "ready" after that, reads a line from stdin, does one more 1 MiB write
// (in EXPECT as the "after_wait_" totals) and exits: hipfile-stats -p attaches in between.
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

uint64_t read_bytes = 0, write_bytes = 0, read_ops = 0, write_ops = 0;
uint64_t async_read_ops = 0;  // of read_ops, stream-ordered

bool Ok(hipFileError_t e, const char* what) {
  if (e.err == hipFileSuccess) return true;
  std::fprintf(stderr, "known-io: %s failed: %d\n", what, static_cast<int>(e.err));
  return false;
}

bool Write(hipFileHandle_t fh, void* buf, size_t size, off_t offset) {
  const ssize_t n = hipFileWrite(fh, buf, size, offset, 0);
  if (n != static_cast<ssize_t>(size)) {
    std::fprintf(stderr, "known-io: write of %zu at %lld: %zd\n", size, (long long)offset, n);
    return false;
  }
  write_bytes += size;
  ++write_ops;
  return true;
}

bool Read(hipFileHandle_t fh, void* buf, size_t size, off_t offset) {
  const ssize_t n = hipFileRead(fh, buf, size, offset, 0);
  if (n != static_cast<ssize_t>(size)) {
    std::fprintf(stderr, "known-io: read of %zu at %lld: %zd\n", size, (long long)offset, n);
    return false;
  }
  read_bytes += size;
  ++read_ops;
  return true;
}

bool Batch(hipFileHandle_t fh, char* buf) {
  hipFileBatchHandle_t batch = nullptr;
  if (!Ok(hipFileBatchIOSetUp(&batch, 4), "hipFileBatchIOSetUp")) return false;
  hipFileIOParams_t params[4] = {};
  for (int i = 0; i < 4; ++i) {
    params[i].mode = hipFileBatch;
    params[i].fh = fh;
    params[i].opcode = hipFileBatchRead;
    params[i].u.batch.devPtr_base = buf;
    params[i].u.batch.devPtr_offset = i * 65536;
    params[i].u.batch.file_offset = i * 65536;
    params[i].u.batch.size = 65536;
  }
  bool ok = Ok(hipFileBatchIOSubmit(batch, 4, params, 0), "hipFileBatchIOSubmit");
  unsigned done = 0;
  while (ok && done < 4) {
    hipFileIOEvents_t events[4];
    unsigned nr = 4 - done;
    ok = Ok(hipFileBatchIOGetStatus(batch, nr, &nr, events, nullptr), "hipFileBatchIOGetStatus");
    for (unsigned i = 0; ok && i < nr; ++i) {
      if (events[i].status != hipFileComplete || events[i].ret != 65536) ok = false;
    }
    done += nr;
  }
  hipFileBatchIODestroy(batch);
  if (ok) {
    read_bytes += 4 * 65536;
    read_ops += 4;
  }
  return ok;
}

bool StreamRead(hipFileHandle_t fh, char* buf) {
  hipStream_t stream = nullptr;
  if (hipStreamCreate(&stream) != hipSuccess) return false;
  size_t size = 262144;
  hoff_t file_offset = 0, buf_offset = 0;
  ssize_t got = 0;
  bool ok = Ok(hipFileReadAsync(fh, buf, &size, &file_offset, &buf_offset, &got, stream),
               "hipFileReadAsync") &&
            hipStreamSynchronize(stream) == hipSuccess && got == 262144;
  (void)hipStreamDestroy(stream);
  if (ok) {
    read_bytes += 262144;
    ++read_ops;
    ++async_read_ops;
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: known-io FILE EXPECT [--wait]\n");
    return 2;
  }
  const bool wait = argc > 3 && std::strcmp(argv[3], "--wait") == 0;
  const int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return 1;
  constexpr size_t kBuf = 4 << 20;
  void* buf = nullptr;
  if (hipMalloc(&buf, kBuf) != hipSuccess) return 1;
  char* b = static_cast<char*>(buf);
  hipFileDescr_t descr = {};
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = fd;
  hipFileHandle_t fh = nullptr;
  if (!Ok(hipFileDriverOpen(), "hipFileDriverOpen") ||
      !Ok(hipFileHandleRegister(&fh, &descr), "hipFileHandleRegister") ||
      !Ok(hipFileBufRegister(buf, kBuf, 0), "hipFileBufRegister")) {
    return 1;
  }
  bool ok = Write(fh, b, 1 << 20, 0) && Write(fh, b, 1 << 20, 1 << 20) &&
            Write(fh, b + 100, 5000, (2 << 20) + 100);
  for (int i = 0; ok && i < 8; ++i) ok = Read(fh, b, 4096, i * 4096);
  ok = ok && Read(fh, b, 1 << 20, 0) && Batch(fh, b) && StreamRead(fh, b);
  if (!ok) return 1;
  FILE* expect = std::fopen(argv[2], "w");
  if (expect == nullptr) return 1;
  std::fprintf(expect,
               "read_bytes=%llu write_bytes=%llu read_ops=%llu write_ops=%llu async_read_ops=%llu "
               "async_write_ops=0\n",
               (unsigned long long)read_bytes, (unsigned long long)write_bytes,
               (unsigned long long)read_ops, (unsigned long long)write_ops,
               (unsigned long long)async_read_ops);
  if (wait) {
    std::fflush(expect);
    std::printf("ready\n");
    std::fflush(stdout);
    char line[16];
    if (std::fgets(line, sizeof line, stdin) == nullptr) {
      // EOF is a go too.
    }
    if (!Write(fh, b, 1 << 20, 3 << 20)) return 1;
    std::fprintf(expect, "after_wait_read_bytes=%llu after_wait_write_bytes=%llu\n",
                 (unsigned long long)read_bytes, (unsigned long long)write_bytes);
  }
  std::fclose(expect);
  (void)hipFileBufDeregister(buf);
  hipFileHandleDeregister(fh);
  (void)hipFree(buf);
  close(fd);
  (void)hipFileDriverClose();
  return 0;
}
