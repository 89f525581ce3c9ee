// SPDX-License-Identifier: MIT
// Can a busy stream's read, whose parameters may change until the stream gets to it, move its
// bytes by DMA straight into the caller's buffer, at the rate of plain copies (issue 21)?
// Today such a read is copied ahead into device memory of the library's own, within hipFile's
// device budget (128 MiB: 8 MiB parts for 16 streams), and a kernel copies it on, and each part's
// stream operations cost the copy engine (bench/results/h100-2026-12-06-o). Here the copy into
// the destination is queued at submission inside a graph's conditional node, whose condition a
// one-thread kernel sets from a word the host writes once it knows the parameters it saw at
// submission still hold: the copy runs, or is skipped and something else copies.
//
//   nvcc -O2 -arch=sm_90 -o cond-copy-probe cond-copy-probe.cu -lcuda
//   cond-copy-probe STREAMS BYTES SECONDS MODE...
//
// Each stream keeps two iterations queued; the host queues iteration i + 2 once the stream wrote
// `copied >= i`. MODE:
//   plain     the copy (in pieces of at most PIECE_MB, default 64), then `write copied`
//   wait      `wait go >= i`, the copy, `write copied`: go stored when the iteration is queued,
//             so that the wait is passed when the stream gets there (a memory operation's cost)
//   cond      `wait go >= i` (stored when queued), a graph: a kernel reads the host's word and
//             sets the condition, an IF node whose body is the copy; then `write copied`
//   cond-late the same with go stored only once the host saw the stream write `reached` just
//             before its wait (the host binding the parameters when the stream gets there)
//   cond-off  cond with the word 0: the body is skipped (the destination must stay untouched)
// SRC_DIR=DIR: each stream's source is a file of BYTES in DIR, written through the page cache and
// mapped read-only, registered read-only as the library pins its page-cache windows (default:
// page-aligned heap memory, registered).
// Prints GiB/s moved (iterations x BYTES over the row's time; cond-off moves nothing, its rate is
// what the copies would have been) and checks each stream's destination at the end.
#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "file_source.h"

#define CHECK(x)                                                                       \
  do {                                                                                 \
    auto e_ = (x);                                                                     \
    if (static_cast<int>(e_) != 0) {                                                   \
      std::fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #x, (int)e_); \
      std::exit(2);                                                                    \
    }                                                                                  \
  } while (0)

namespace {

__global__ void SetCondition(cudaGraphConditionalHandle handle, const volatile unsigned* word) {
  cudaGraphSetConditional(handle, *word);
}

using Clock = std::chrono::steady_clock;

struct Lane {
  cudaStream_t stream = nullptr;
  unsigned char* src = nullptr;  // registered host memory, as the library's page-cache windows
  CUdeviceptr dst = 0;
  uint32_t* words = nullptr;  // [0] reached, [1] go, [2] copied, [3] condition: pinned, mapped
  CUdeviceptr words_dev = 0;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  uint32_t queued = 0;  // iterations queued
  uint32_t done = 0;    // iterations seen copied
};

uint32_t Load(const uint32_t* w) { return __atomic_load_n(w, __ATOMIC_ACQUIRE); }
void Store(uint32_t* w, uint32_t v) { __atomic_store_n(w, v, __ATOMIC_RELEASE); }

size_t g_piece = size_t{64} << 20;

// Lane `s`'s source in a file of DIR (SRC_DIR above), the same bytes as the heap source's.
unsigned char* FileSource(const char* dir, size_t s, size_t bytes) {
  const std::string path =
      std::string(dir) + "/cond-copy-probe." + std::to_string(getpid()) + "." + std::to_string(s);
  unsigned char* p = MapFileSource(path, bytes, [s](unsigned char* block, size_t at, size_t n) {
    std::fill(block, block + n, 0);
    for (size_t k = 0; k < n; k += 4096)
      block[k] = static_cast<unsigned char>(s * 7 + (at + k) / 4096 + 1);
  });
  CHECK(cudaHostRegister(p, bytes, cudaHostRegisterReadOnly));
  return p;
}

void Copies(const Lane& lane, size_t bytes) {
  for (size_t at = 0; at < bytes; at += g_piece) {
    const size_t n = bytes - at < g_piece ? bytes - at : g_piece;
    CHECK(cuMemcpyHtoDAsync(lane.dst + at, lane.src + at, n, lane.stream));
  }
}

void BuildGraph(Lane& lane, size_t bytes) {
  CHECK(cudaGraphCreate(&lane.graph, 0));
  cudaGraphConditionalHandle handle;
  CHECK(cudaGraphConditionalHandleCreate(&handle, lane.graph, 0, cudaGraphCondAssignDefault));
  cudaKernelNodeParams k = {};
  const volatile unsigned* word = reinterpret_cast<const unsigned*>(lane.words_dev) + 3;
  void* args[] = {&handle, &word};
  k.func = reinterpret_cast<void*>(SetCondition);
  k.gridDim = dim3(1);
  k.blockDim = dim3(1);
  k.kernelParams = args;
  cudaGraphNode_t set;
  CHECK(cudaGraphAddKernelNode(&set, lane.graph, nullptr, 0, &k));
  cudaGraphNodeParams c = {};
  c.type = cudaGraphNodeTypeConditional;
  c.conditional.handle = handle;
  c.conditional.type = cudaGraphCondTypeIf;
  c.conditional.size = 1;
  cudaGraphNode_t cond;
  CHECK(cudaGraphAddNode(&cond, lane.graph, &set, nullptr, 1, &c));
  cudaGraph_t body = c.conditional.phGraph_out[0];
  cudaGraphNode_t prev = nullptr;
  for (size_t at = 0; at < bytes; at += g_piece) {
    const size_t n = bytes - at < g_piece ? bytes - at : g_piece;
    cudaGraphNode_t copy;
    CHECK(cudaGraphAddMemcpyNode1D(&copy, body, prev ? &prev : nullptr, prev ? 1 : 0,
                                   reinterpret_cast<void*>(lane.dst + at), lane.src + at, n,
                                   cudaMemcpyHostToDevice));
    prev = copy;
  }
  CHECK(cudaGraphInstantiate(&lane.exec, lane.graph, 0));
}

enum class Mode { kPlain, kWait, kCond, kCondLate, kCondOff };

Mode ParseMode(const std::string& m) {
  if (m == "plain") return Mode::kPlain;
  if (m == "wait") return Mode::kWait;
  if (m == "cond") return Mode::kCond;
  if (m == "cond-late") return Mode::kCondLate;
  if (m == "cond-off") return Mode::kCondOff;
  std::fprintf(stderr, "unknown mode %s\n", m.c_str());
  std::exit(1);
}

void Queue(Lane& lane, size_t bytes, Mode mode) {
  const uint32_t i = ++lane.queued;
  const CUstream s = reinterpret_cast<CUstream>(lane.stream);
  if (mode != Mode::kPlain) {
    CHECK(cuStreamWriteValue32(s, lane.words_dev, i, 0));  // reached
    CHECK(cuStreamWaitValue32(s, lane.words_dev + 4, i, CU_STREAM_WAIT_VALUE_GEQ));
  }
  if (mode == Mode::kPlain || mode == Mode::kWait) {
    Copies(lane, bytes);
  } else {
    CHECK(cudaGraphLaunch(lane.exec, lane.stream));
  }
  CHECK(cuStreamWriteValue32(s, lane.words_dev + 8, i, 0));  // copied
  if (mode != Mode::kCondLate) Store(&lane.words[1], i);     // go, before the stream gets there
}

double Row(std::vector<Lane>& lanes, size_t bytes, double seconds, Mode mode, const char* name) {
  for (Lane& lane : lanes) {
    CHECK(cuMemsetD8Async(lane.dst, 0, bytes, reinterpret_cast<CUstream>(lane.stream)));
    CHECK(cudaStreamSynchronize(lane.stream));
    for (int w = 0; w < 4; ++w) Store(&lane.words[w], 0);
    Store(&lane.words[3], mode == Mode::kCondOff ? 0u : 1u);
    lane.queued = lane.done = 0;
  }
  const auto t0 = Clock::now();
  for (Lane& lane : lanes) {
    Queue(lane, bytes, mode);
    Queue(lane, bytes, mode);
  }
  const auto end = t0 + std::chrono::duration<double>(seconds);
  uint64_t moved = 0;
  while (Clock::now() < end) {
    for (Lane& lane : lanes) {
      if (mode == Mode::kCondLate && Load(&lane.words[0]) > Load(&lane.words[1])) {
        Store(&lane.words[1], Load(&lane.words[0]));  // the host "binds" once it sees reached
      }
      const uint32_t copied = Load(&lane.words[2]);
      while (lane.done < copied) {
        ++lane.done;
        ++moved;
        Queue(lane, bytes, mode);
      }
    }
  }
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  for (Lane& lane : lanes) Store(&lane.words[1], lane.queued);  // let cond-late's last ones go
  bool ok = true;
  std::vector<unsigned char> back(bytes);
  for (Lane& lane : lanes) {
    CHECK(cudaStreamSynchronize(lane.stream));
    CHECK(cuMemcpyDtoH(back.data(), lane.dst, bytes));
    if (mode == Mode::kCondOff) {
      for (size_t k = 0; k < bytes; ++k) ok = ok && back[k] == 0;
    } else {
      ok = ok && std::memcmp(back.data(), lane.src, bytes) == 0;
    }
  }
  const double gib = static_cast<double>(moved) * bytes / wall / (1 << 30);
  std::printf("mode=%s streams=%zu bytes=%zu piece=%zu GiB/s=%.1f %s\n", name, lanes.size(), bytes,
              g_piece, gib, ok ? "verified" : "DATA MISMATCH");
  std::fflush(stdout);
  return gib;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: cond-copy-probe STREAMS BYTES SECONDS MODE...\n");
    return 1;
  }
  const size_t streams = std::strtoul(argv[1], nullptr, 10);
  const size_t bytes = std::strtoull(argv[2], nullptr, 10);
  const double seconds = std::strtod(argv[3], nullptr);
  if (const char* p = std::getenv("PIECE_MB")) g_piece = std::strtoull(p, nullptr, 10) << 20;
  const char* src_dir = std::getenv("SRC_DIR");
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(nullptr));
  std::vector<Lane> lanes(streams);
  for (size_t s = 0; s < streams; ++s) {
    Lane& lane = lanes[s];
    CHECK(cudaStreamCreateWithFlags(&lane.stream, cudaStreamNonBlocking));
    if (src_dir != nullptr) {
      lane.src = FileSource(src_dir, s, bytes);
    } else {
      lane.src = static_cast<unsigned char*>(std::aligned_alloc(4096, bytes));
      for (size_t k = 0; k < bytes; k += 4096)
        lane.src[k] = static_cast<unsigned char>(s * 7 + k / 4096 + 1);
      CHECK(cudaHostRegister(lane.src, bytes, cudaHostRegisterDefault));
    }
    CHECK(cuMemAlloc(&lane.dst, bytes));
    CHECK(cuMemHostAlloc(reinterpret_cast<void**>(&lane.words), 64,
                         CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
    CHECK(cuMemHostGetDevicePointer(&lane.words_dev, lane.words, 0));
    BuildGraph(lane, bytes);
  }
  for (int a = 4; a < argc; ++a) Row(lanes, bytes, seconds, ParseMode(argv[a]), argv[a]);
  return 0;
}
