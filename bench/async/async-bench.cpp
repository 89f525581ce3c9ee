// SPDX-License-Identifier: MIT
// async-bench: the stream-ordered path against the synchronous one, on one file in one run.
//
//   async-bench FILE [STREAMS=16] [SLICE_MIB=256] [LATENCY_OPS=2000]
//
// 1. Round trip: STREAMS slices of SLICE_MIB each. Sync: STREAMS threads each hipFileRead their
//    slice into their own GPU buffer, then hipFileWrite it to FILE.out. Async: the same slices on
//    STREAMS non-blocking streams with hipFileReadAsync, all synchronized, then hipFileWriteAsync.
//    FILE is read once first, so reads are warm. Prints GiB/s for each and the ratios.
// 2. Latency: 4 KiB hipFileReadAsync on a registered stream, time from submission to the stream
//    being idle again (hipStreamQuery polled), against a 4 KiB hipFileRead; p50/p99 in us.
// Output: a table and one JSON line (prefix "json: ").
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile_ext.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "async-bench: %s\n", what);
  std::exit(1);
}

void Check(hipError_t e, const char* what) {
  if (e != hipSuccess) {
    std::fprintf(stderr, "async-bench: %s: %s\n", what, hipGetErrorString(e));
    std::exit(1);
  }
}

void Check(hipFileError_t e, const char* what) {
  if (e.err != hipFileSuccess) {
    std::fprintf(stderr, "async-bench: %s: %s\n", what, hipFileGetOpErrorString(e.err));
    std::exit(1);
  }
}

hipFileHandle_t Register(int fd) {
  hipFileDescr_t d{};
  d.type = hipFileHandleTypeOpaqueFD;
  d.handle.fd = fd;
  hipFileHandle_t fh = nullptr;
  Check(hipFileHandleRegister(&fh, &d), "hipFileHandleRegister");
  return fh;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * (v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) Die("usage: async-bench FILE [STREAMS] [SLICE_MIB] [LATENCY_OPS]");
  const std::string path = argv[1];
  const int streams = argc > 2 ? std::atoi(argv[2]) : 16;
  const size_t slice = (argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 256) << 20;
  const int latency_ops = argc > 4 ? std::atoi(argv[4]) : 2000;
  const size_t total = slice * static_cast<size_t>(streams);

  // The input file, written once and read once so it is in the page cache.
  {
    const int fd = open(path.c_str(), O_RDWR | O_CREAT, 0644);
    if (fd < 0) Die("open input");
    struct stat st;
    fstat(fd, &st);
    std::vector<char> chunk(64 << 20);
    for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<char>(i * 131 + 7);
    if (static_cast<size_t>(st.st_size) < total) {
      for (size_t off = 0; off < total; off += chunk.size()) {
        if (pwrite(fd, chunk.data(), std::min(chunk.size(), total - off), off) < 0) Die("seed");
      }
    }
    for (size_t off = 0; off < total; off += chunk.size()) {
      if (pread(fd, chunk.data(), chunk.size(), off) < 0) Die("warm");
    }
    close(fd);
  }
  const int in_fd = open(path.c_str(), O_RDONLY);
  const std::string out_path = path + ".out";
  const int out_fd = open(out_path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (in_fd < 0 || out_fd < 0) Die("open files");
  Check(hipFileDriverOpen(), "hipFileDriverOpen");
  hipFileHandle_t in = Register(in_fd);
  hipFileHandle_t out = Register(out_fd);

  std::vector<void*> bufs(streams);
  std::vector<hipStream_t> ss(streams);
  for (int i = 0; i < streams; ++i) {
    Check(hipMalloc(&bufs[i], slice), "hipMalloc");
    Check(hipFileBufRegister(bufs[i], slice, 0), "hipFileBufRegister");
    Check(hipStreamCreateWithFlags(&ss[i], hipStreamNonBlocking), "hipStreamCreate");
    Check(hipFileStreamRegister(ss[i], HIPFILE_STREAM_FIXED_BUF_OFFSET |
                                           HIPFILE_STREAM_FIXED_FILE_OFFSET |
                                           HIPFILE_STREAM_FIXED_FILE_SIZE),
          "hipFileStreamRegister");
  }

  auto sync_pass = [&](bool write) {
    std::vector<std::thread> threads;
    std::vector<ssize_t> got(streams);
    const auto t0 = Clock::now();
    for (int i = 0; i < streams; ++i) {
      threads.emplace_back([&, i] {
        got[i] = write ? hipFileWrite(out, bufs[i], slice, static_cast<hoff_t>(i * slice), 0)
                       : hipFileRead(in, bufs[i], slice, static_cast<hoff_t>(i * slice), 0);
      });
    }
    for (auto& t : threads) t.join();
    const auto t1 = Clock::now();
    for (ssize_t g : got) {
      if (g != static_cast<ssize_t>(slice)) Die("short sync transfer");
    }
    return total / Seconds(t0, t1) / (1 << 30);
  };

  struct SliceArgs {
    size_t size;
    hoff_t fo, bo;
    ssize_t bytes;
  };
  std::vector<SliceArgs> args(streams);
  auto async_pass = [&](bool write) {
    for (int i = 0; i < streams; ++i) args[i] = {slice, static_cast<hoff_t>(i * slice), 0, -1};
    const auto t0 = Clock::now();
    for (int i = 0; i < streams; ++i) {
      SliceArgs& a = args[i];
      Check(write ? hipFileWriteAsync(out, bufs[i], &a.size, &a.fo, &a.bo, &a.bytes, ss[i])
                  : hipFileReadAsync(in, bufs[i], &a.size, &a.fo, &a.bo, &a.bytes, ss[i]),
            "submit");
    }
    const auto t_submitted = Clock::now();
    for (int i = 0; i < streams; ++i) Check(hipStreamSynchronize(ss[i]), "sync");
    const auto t1 = Clock::now();
    for (const SliceArgs& a : args) {
      if (a.bytes != static_cast<ssize_t>(slice)) Die("short async transfer");
    }
    std::printf("  async %s: submitting %d ops took %.1f us\n", write ? "write" : "read", streams,
                Seconds(t0, t_submitted) * 1e6);
    return total / Seconds(t0, t1) / (1 << 30);
  };

  std::printf("async-bench: runtime %s, %d streams x %zu MiB, warm file %s\n",
              hipFileExtRuntimeName(), streams, slice >> 20, path.c_str());
  // Warm-up of both paths (pinned pools, streams, page cache of the output).
  sync_pass(false);
  async_pass(false);
  sync_pass(true);
  async_pass(true);
  std::vector<double> sr, ar, sw, aw;
  for (int rep = 0; rep < 3; ++rep) {
    sr.push_back(sync_pass(false));
    ar.push_back(async_pass(false));
    sw.push_back(sync_pass(true));
    aw.push_back(async_pass(true));
  }
  const double msr = Percentile(sr, 0.5), mar = Percentile(ar, 0.5);
  const double msw = Percentile(sw, 0.5), maw = Percentile(aw, 0.5);
  std::printf("| path | read GiB/s | write GiB/s |\n| --- | ---: | ---: |\n");
  std::printf("| sync, %d threads | %.2f | %.2f |\n", streams, msr, msw);
  std::printf("| async, %d streams | %.2f | %.2f |\n", streams, mar, maw);
  std::printf("| ratio async/sync | %.2f | %.2f |\n", mar / msr, maw / msw);

  // Latency of one 4 KiB operation.
  std::vector<double> alat, slat;
  size_t size = 4096;
  hoff_t fo = 0, bo = 0;
  ssize_t bytes = 0;
  for (int i = 0; i < latency_ops; ++i) {
    fo = static_cast<hoff_t>((static_cast<size_t>(i) * 7919 * 4096) % (total - 4096));
    const auto t0 = Clock::now();
    Check(hipFileReadAsync(in, bufs[0], &size, &fo, &bo, &bytes, ss[0]), "latency submit");
    while (hipStreamQuery(ss[0]) == hipErrorNotReady) {
    }
    const auto t1 = Clock::now();
    if (bytes != 4096) Die("latency read short");
    alat.push_back(Seconds(t0, t1) * 1e6);
    const auto t2 = Clock::now();
    if (hipFileRead(in, bufs[0], 4096, fo, 0) != 4096) Die("sync latency read short");
    const auto t3 = Clock::now();
    slat.push_back(Seconds(t2, t3) * 1e6);
  }
  std::printf("| 4 KiB read | p50 us | p99 us |\n| --- | ---: | ---: |\n");
  std::printf("| async, submit to stream idle | %.1f | %.1f |\n", Percentile(alat, 0.5),
              Percentile(alat, 0.99));
  std::printf("| sync hipFileRead | %.1f | %.1f |\n", Percentile(slat, 0.5),
              Percentile(slat, 0.99));
  std::printf(
      "json: {\"runtime\": \"%s\", \"streams\": %d, \"slice_mib\": %zu, "
      "\"sync_read_gib_s\": %.3f, \"async_read_gib_s\": %.3f, \"sync_write_gib_s\": %.3f, "
      "\"async_write_gib_s\": %.3f, \"async_4k_p50_us\": %.1f, \"async_4k_p99_us\": %.1f, "
      "\"sync_4k_p50_us\": %.1f, \"sync_4k_p99_us\": %.1f}\n",
      hipFileExtRuntimeName(), streams, slice >> 20, msr, mar, msw, maw, Percentile(alat, 0.5),
      Percentile(alat, 0.99), Percentile(slat, 0.5), Percentile(slat, 0.99));

  for (int i = 0; i < streams; ++i) {
    Check(hipFileStreamDeregister(ss[i]), "deregister stream");
    Check(hipStreamDestroy(ss[i]), "destroy stream");
    Check(hipFileBufDeregister(bufs[i]), "deregister buffer");
    Check(hipFree(bufs[i]), "free");
  }
  hipFileHandleDeregister(in);
  hipFileHandleDeregister(out);
  close(in_fd);
  close(out_fd);
  unlink(out_path.c_str());
  return 0;
}
