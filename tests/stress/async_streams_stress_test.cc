// SPDX-License-Identifier: MIT
// Stress: stream-ordered writes and reads through the C API, mixed with the program's own copies
// and fills on the same streams, on 1, 16, 256 and 4096 streams at once, with the pinned staging
// limit small enough that the streams' staging blocks run out (4 blocks): operations must queue
// for a block and all complete, every byte checked. Each stream writes a pattern of its own into
// its region of one file and reads it back behind the write on the same stream, in two rounds;
// then each region is read by its neighbour's stream and the file itself is checked. One case
// mixes the default (null) stream with blocking streams, which order with it; one runs on 16
// threads' per-thread default streams (hipStreamPerThread: one handle, a stream per thread, new
// threads each round). On HIPFILE_RUNTIME=cpu-staged (CTest stress.async-streams.cpu-staged) the
// operations take the staged way and the streams share 4 hardware queues, as on a GPU: on the
// H200 `hipfile-bench -x 5 -w 256 -Q 1` hung when blocks ran out (docs/async.md, "Copies on the
// operation's stream").
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile_ext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "fakes/temp_dir.h"
#include "stress/user_kernel.h"

namespace hipfile {
namespace {

bool Ok(hipFileError_t e) { return e.err == hipFileSuccess && e.hip_drv_err == hipSuccess; }

// Rounds of write-then-read per stream: one with thousands of streams, where the CPU runtime's
// thread per stream makes each round take seconds on a 2-core machine.
int Rounds(int streams) { return streams >= 4096 ? 1 : 2; }
// 32 MiB of pinned staging: half for the transfers' buffers, 4 stream blocks of 4 MiB.
constexpr size_t kPinnedKiB = 32 * 1024;

// Bytes of stream i's region: past one staging chunk (2 MiB) with few streams, so that
// operations take several chunks; 4 KiB with thousands.
size_t RegionBytes(int streams) {
  if (streams <= 1) return (size_t{5} << 20) + 4096 + 123;
  if (streams <= 16) return (size_t{2} << 20) + 777;
  if (streams <= 256) return 16 * 1024;
  return 4096;
}

// The variables one operation reads and writes: they live until its stream is synchronized.
struct Op {
  size_t size = 0;
  off_t file_offset = 0;
  off_t buffer_offset = 0;
  ssize_t bytes = -1;
};

struct StreamState {
  hipStream_t stream = nullptr;
  void* wbuf = nullptr;  // what it writes
  void* rbuf = nullptr;  // its read back
  void* xbuf = nullptr;  // its read of the next stream's region, at the end
  Op write, read, cross;
  // Host sides of the copies queued on the stream: what goes up (want less kUp: the program's
  // kernel adds it back on the stream), and what comes down (the read, plus kDown).
  std::vector<unsigned char> up, want, got;
};

std::vector<unsigned char> Pattern(int stream, int round, size_t bytes) {
  return testing::PatternBytes(bytes, static_cast<unsigned>(stream * 131 + round * 7 + 3));
}

// What the program's kernel adds to the write buffer before the write, and to the read buffer
// after the read.
constexpr unsigned kUp = 1;
constexpr unsigned kDown = 7;

std::vector<unsigned char> Plus(std::vector<unsigned char> bytes, unsigned delta) {
  testing::AddToBytes(bytes.data(), bytes.size(), delta);
  return bytes;
}

struct Run {
  int streams = 0;
  int held = 0;  // streams 0 .. held - 1: held back by the program while the others run
  std::unique_ptr<testing::UserKernel> kernel;
  size_t region = 0;
  hipFileHandle_t fh = nullptr;
  std::vector<StreamState> s;
  std::atomic<bool> failed{false};
  std::atomic<uint64_t> verified{0};
  std::atomic<uint64_t> ops{0};

  void Fail(const std::string& what) {
    if (!failed.exchange(true)) ADD_FAILURE() << what;
  }
  bool Check(bool ok, const std::string& what) {
    if (!ok) Fail(what);
    return ok;
  }
  bool Same(const std::vector<unsigned char>& got, const std::vector<unsigned char>& want,
            const std::string& what) {
    // memcmp first: one call (under TSan one check of the whole range, where a byte loop was
    // most of the case's time); the first wrong byte is looked for only when it differs.
    if (got.size() != want.size() || std::memcmp(got.data(), want.data(), want.size()) != 0) {
      const size_t n = std::min(got.size(), want.size());
      const auto at =
          std::mismatch(want.begin(), want.begin() + static_cast<long>(n), got.begin()).first -
          want.begin();
      Fail(what + ": first wrong byte at " + std::to_string(at) + " (" +
           std::to_string(got.size()) + " bytes read, " + std::to_string(want.size()) + " wanted)");
      return false;
    }
    verified.fetch_add(want.size());
    return true;
  }

  // Queues stream i's round r: the user's copies and kernels on the same stream as the library's
  // operations: the pattern into the write buffer before the write (less kUp, which a kernel adds
  // back), the read buffer out after the read (plus kDown, which a kernel adds).
  bool Queue(int i, int r) { return QueueUp(i, r) && QueueIo(i) && QueueDown(i); }

  // The pattern up into the write buffer.
  bool QueueUp(int i, int r) {
    StreamState& st = s[static_cast<size_t>(i)];
    st.want = Pattern(i, r, region);
    st.up = Plus(st.want, 256 - kUp);
    st.got.assign(region, 0);
    if (!Check(hipMemcpyAsync(st.wbuf, st.up.data(), region, hipMemcpyHostToDevice, st.stream) ==
                   hipSuccess,
               "hipMemcpyAsync to the write buffer") ||
        !Check(kernel->AddBytes(st.wbuf, region, kUp, st.stream) == hipSuccess,
               "the kernel on the write buffer")) {
      return false;
    }
    return true;
  }

  // The library's write and read, the user's fills either side, and the kernel after the read.
  bool QueueIo(int i) {
    StreamState& st = s[static_cast<size_t>(i)];
    const off_t at = static_cast<off_t>(static_cast<size_t>(i) * region);
    st.write = Op{region, at, 0, -1};
    st.read = Op{region, at, 0, -1};
    // And the user's fills, either side of the library's operations: the write buffer
    // overwritten after the write (a write that ran late would put the fill in the file), the
    // read buffer before the read (a read that ran early would be overwritten by it).
    if (!Check(Ok(hipFileWriteAsync(fh, st.wbuf, &st.write.size, &st.write.file_offset,
                                    &st.write.buffer_offset, &st.write.bytes, st.stream)),
               "hipFileWriteAsync stream " + std::to_string(i)) ||
        !Check(hipMemsetAsync(st.wbuf, 0xa5, region, st.stream) == hipSuccess,
               "hipMemsetAsync of the write buffer") ||
        !Check(hipMemsetAsync(st.rbuf, 0x5a, region, st.stream) == hipSuccess,
               "hipMemsetAsync of the read buffer") ||
        !Check(Ok(hipFileReadAsync(fh, st.rbuf, &st.read.size, &st.read.file_offset,
                                   &st.read.buffer_offset, &st.read.bytes, st.stream)),
               "hipFileReadAsync stream " + std::to_string(i))) {
      return false;
    }
    ops.fetch_add(2);
    return Check(kernel->AddBytes(st.rbuf, region, kDown, st.stream) == hipSuccess,
                 "the kernel on the read buffer");
  }

  // The read buffer down into ordinary memory: on CUDA such a copy returns only once it is made
  // (and a large one up waits for the stream too), so a held stream gets it only once let go.
  bool QueueDown(int i) {
    StreamState& st = s[static_cast<size_t>(i)];
    return Check(hipMemcpyAsync(st.got.data(), st.rbuf, region, hipMemcpyDeviceToHost, st.stream) ==
                     hipSuccess,
                 "hipMemcpyAsync from the read buffer");
  }

  // Waits for stream i and checks its round r.
  bool Verify(int i, int r) {
    StreamState& st = s[static_cast<size_t>(i)];
    if (!Check(hipStreamSynchronize(st.stream) == hipSuccess, "hipStreamSynchronize")) return false;
    const std::string name = "stream " + std::to_string(i) + " round " + std::to_string(r);
    return Check(st.write.bytes == static_cast<ssize_t>(region),
                 name + " write returned " + std::to_string(st.write.bytes)) &&
           Check(st.read.bytes == static_cast<ssize_t>(region),
                 name + " read returned " + std::to_string(st.read.bytes)) &&
           Same(st.got, Plus(st.want, kDown), name + " read back");
  }

  // Round r of the streams t, t + threads, ... (past the held ones): all their operations queued
  // first, then each stream synchronized and checked.
  void Round(int t, int threads, int r) {
    for (int i = t; i < streams && !failed; i += threads) {
      if (i >= held && !Queue(i, r)) return;
    }
    for (int i = t; i < streams && !failed; i += threads) {
      if (i >= held && !Verify(i, r)) return;
    }
  }
};

// What holds a stream back: a host function on it that waits until the test lets it go (or a
// minute has passed, which fails the case).
struct Hold {
  std::atomic<bool> go{false};
  std::atomic<int> timed_out{0};
  std::chrono::steady_clock::time_point until;
  static void Wait(void* p) {
    auto* hold = static_cast<Hold*>(p);
    while (!hold->go.load()) {
      if (std::chrono::steady_clock::now() > hold->until) {
        ++hold->timed_out;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
};

// The streams a case runs on.
enum class Kind {
  kNonBlocking,      // streams made non-blocking
  kWithNullStream,   // stream 0 the null stream, the others blocking streams (which order with it)
  kPerThreadStream,  // hipStreamPerThread, stream i on thread i (a thread per stream, per round)
  kHeld,             // non-blocking streams, the first kHeldStreams held back (RunStreams)
};
constexpr int kHeldStreams = 3;

void RunStreams(int streams, Kind kind = Kind::kNonBlocking) {
  const bool with_null_stream = kind == Kind::kWithNullStream;
  const bool per_thread = kind == Kind::kPerThreadStream;
  testing::TempDir dir;
  const std::string path = dir.File("streams");
  Run run;
  run.streams = streams;
  run.held = kind == Kind::kHeld ? kHeldStreams : 0;
  run.region = RegionBytes(streams);
  testing::WriteFileOrDie(path, std::vector<unsigned char>(run.region * streams, 0));
  ASSERT_TRUE(Ok(hipFileDriverSetMaxPinnedMemSize(kPinnedKiB)));
  ASSERT_TRUE(Ok(hipFileDriverOpen()));
  const int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  hipFileDescr_t descr = {};
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = fd;
  ASSERT_TRUE(Ok(hipFileHandleRegister(&run.fh, &descr)));
  std::string why;
  run.kernel = testing::UserKernel::Load(&why);  // before any stream waits for the library
  ASSERT_NE(run.kernel, nullptr) << why;
  run.s.resize(static_cast<size_t>(streams));
  for (int i = 0; i < streams; ++i) {
    StreamState& st = run.s[static_cast<size_t>(i)];
    // With the null stream: stream 0 is it and the others are blocking streams, which order
    // with it (legacy default stream); otherwise non-blocking streams.
    if (per_thread) {
      st.stream = hipStreamPerThread;
    } else if (!(with_null_stream && i == 0)) {
      ASSERT_EQ(hipStreamCreateWithFlags(&st.stream, with_null_stream ? 0 : hipStreamNonBlocking),
                hipSuccess)
          << "stream " << i;
    }
    ASSERT_EQ(hipMalloc(&st.wbuf, run.region), hipSuccess);
    ASSERT_EQ(hipMalloc(&st.rbuf, run.region), hipSuccess);
    ASSERT_EQ(hipMalloc(&st.xbuf, run.region), hipSuccess);
  }

  const auto start = std::chrono::steady_clock::now();
  // Held streams: their write and read (of the last round's bytes) queued behind the hold, which
  // lasts until every other stream has finished its rounds. Those must finish meanwhile. (The
  // user's copies of ordinary memory stay outside the hold: on CUDA the call of one queued behind
  // it would wait for it - the test's thread held, not the library's streams.)
  Hold hold;
  hold.until = start + std::chrono::minutes(1);
  const int last = Rounds(streams) - 1;
  for (int i = 0; i < run.held; ++i) {
    ASSERT_TRUE(run.QueueUp(i, last));
    ASSERT_EQ(hipLaunchHostFunc(run.s[static_cast<size_t>(i)].stream, &Hold::Wait, &hold),
              hipSuccess);
    ASSERT_TRUE(run.QueueIo(i));
  }
  // Per-thread streams: each stream's operations from its own thread.
  const int threads = per_thread ? streams : std::min(streams, 4);
  for (int r = 0; r < Rounds(streams) && !run.failed; ++r) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&run, t, threads, r] { run.Round(t, threads, r); });
    for (std::thread& th : pool) th.join();
  }
  if (run.held > 0) {
    EXPECT_EQ(hold.timed_out.load(), 0) << "the other streams waited for the held ones";
    for (int i = 0; i < run.held && hold.timed_out.load() == 0; ++i) {
      EXPECT_EQ(run.s[static_cast<size_t>(i)].read.bytes, 0) << "a held stream's read ran early";
    }
    hold.go = true;
    for (int i = 0; i < run.held && !run.failed; ++i) {
      if (run.QueueDown(i)) run.Verify(i, last);
    }
  }
  // Every region holds its stream's last round, read by another stream (per-thread streams: by
  // this thread's).
  for (int i = 0; i < streams && !run.failed; ++i) {
    StreamState& st = run.s[static_cast<size_t>((i + streams - 1) % streams)];
    Op& op = st.cross;
    op = Op{run.region, static_cast<off_t>(static_cast<size_t>(i) * run.region), 0, -1};
    ASSERT_TRUE(Ok(hipFileReadAsync(run.fh, st.xbuf, &op.size, &op.file_offset, &op.buffer_offset,
                                    &op.bytes, st.stream)));
    st.got.assign(run.region, 0);
    ASSERT_EQ(hipMemcpyAsync(st.got.data(), st.xbuf, run.region, hipMemcpyDeviceToHost, st.stream),
              hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(st.stream), hipSuccess);
    ASSERT_EQ(op.bytes, static_cast<ssize_t>(run.region)) << "region " << i;
    run.Same(st.got, Pattern(i, Rounds(streams) - 1, run.region), "region " + std::to_string(i));
    run.ops.fetch_add(1);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::vector<unsigned char> file = testing::ReadFileOrDie(path);
  for (int i = 0; i < streams && !run.failed; ++i) {
    const std::vector<unsigned char> want = Pattern(i, Rounds(streams) - 1, run.region);
    ASSERT_EQ(std::memcmp(want.data(), file.data() + i * run.region, run.region), 0)
        << "the file's region " << i;
  }

  for (StreamState& st : run.s) {
    if (st.stream != nullptr && !per_thread) {
      EXPECT_EQ(hipStreamDestroy(st.stream), hipSuccess);
    }
    (void)hipFree(st.wbuf);
    (void)hipFree(st.rbuf);
    (void)hipFree(st.xbuf);
  }
  hipFileHandleDeregister(run.fh);
  ::close(fd);
  EXPECT_TRUE(Ok(hipFileDriverClose()));
  EXPECT_FALSE(run.failed.load());
  std::printf("async streams: %d streams%s, %llu operations, %llu bytes verified, %.2f s\n",
              streams,
              with_null_stream ? " (with the null stream)"
              : per_thread     ? " (per-thread default streams)"
              : run.held > 0   ? " (3 held back meanwhile)"
                               : "",
              static_cast<unsigned long long>(run.ops.load()),
              static_cast<unsigned long long>(run.verified.load()), seconds);
}

TEST(AsyncStreamsStress, OneStream) { RunStreams(1); }
TEST(AsyncStreamsStress, SixteenStreams) { RunStreams(16); }
TEST(AsyncStreamsStress, TwoHundredFiftySixStreams) { RunStreams(256); }
// 4,096 streams are 4,096 CPU-runtime threads, each polling its stream's waits: 8-13 s each with
// three processes at once on 2 cores, 30 runs on 2026-12-04. (On 2026-12-02 it had run past
// 180 s alone once and was run only when asked; what changed in between is not pinned down.)
// Never under a sanitizer (past 300 s under TSan); the smaller cases cover their races.
TEST(AsyncStreamsStress, FourThousandNinetySixStreams) {
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "4,096 stream threads are too slow under a sanitizer";
#else
  RunStreams(4096);
#endif
}
// The default (null) stream among 15 blocking streams.
TEST(AsyncStreamsStress, NullStreamAmongBlockingStreams) { RunStreams(16, Kind::kWithNullStream); }
// 16 threads, each on its per-thread default stream.
TEST(AsyncStreamsStress, PerThreadDefaultStreams) { RunStreams(16, Kind::kPerThreadStream); }

// The hardware queues streams share in order (CUDA_DEVICE_MAX_CONNECTIONS; CUDA's default 8,
// cpu-staged's 4), or 0 where each stream is its own (the CPU runtime's `cpu`).
int HardwareQueues() {
  const char* env = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  const std::string runtime = hipFileExtRuntimeName();
  if (runtime == "cpu") return 0;
  if (env != nullptr && *env != '\0') return std::atoi(env);
  return runtime == "cuda" ? 8 : 4;
}

// 3 of 8 streams held back by the program (a host function that waits) with their write and read
// queued behind the hold, while the other 5 run their rounds, which must all finish first: the
// held streams' operations keep the staging blocks reserved for them (4 blocks here; the pool
// leaves one no reservation counts on: docs/async.md, "Queueing the chains"). Where streams share
// a hardware queue, a held stream holds up the streams behind it there, which is the GPU's
// doing: the case needs a queue per stream (CUDA_DEVICE_MAX_CONNECTIONS=32, which cpu-staged
// takes too: CTest stress.async-streams-held.cpu-staged).
TEST(AsyncStreamsStress, StreamsHeldBackHoldUpNoOtherStream) {
  const int queues = HardwareQueues();
  if (queues != 0 && queues < 32) {
    GTEST_SKIP() << "streams share " << queues
                 << " hardware queues, where a held stream holds up the others (the GPU's "
                    "doing): run with CUDA_DEVICE_MAX_CONNECTIONS=32";
  }
  RunStreams(8, Kind::kHeld);
}

}  // namespace
}  // namespace hipfile
