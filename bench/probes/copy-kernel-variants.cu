// SPDX-License-Identifier: MIT
// Variants of the library's copy-table kernel (src/runtime/cuda/gather_kernel.cu) for
// copy-kernel-probe: how fast a kernel moves pinned host memory into device memory, by bytes in
// flight per thread. PTX made by `nvcc -ptx -arch=compute_75` into copy-kernel-variants.ptx
// (committed; the probe loads it by path). Each takes the table's address, as the library's does.
struct Copy {
  unsigned long long dst, src, bytes;
};
struct Table {
  unsigned long long count;
  Copy op[128];
};

// As the library's kernel: one 16-byte word in flight per thread.
extern "C" __global__ void __launch_bounds__(256) copy_w1(const Table* table) {
  const unsigned long long first = blockIdx.x * 256ull + threadIdx.x;
  const unsigned long long step = gridDim.x * 256ull;
  for (unsigned long long e = 0; e < table->count; ++e) {
    const Copy c = table->op[e];
    const uint4* src = reinterpret_cast<const uint4*>(c.src);
    uint4* dst = reinterpret_cast<uint4*>(c.dst);
    const unsigned long long words = c.bytes >> 4;
    for (unsigned long long i = first; i < words; i += step) dst[i] = src[i];
  }
}

// N words in flight per thread: N loads issued before the first store.
template <int N>
__device__ void CopyWords(const Table* table) {
  const unsigned long long first = blockIdx.x * 256ull + threadIdx.x;
  const unsigned long long step = gridDim.x * 256ull;
  for (unsigned long long e = 0; e < table->count; ++e) {
    const Copy c = table->op[e];
    const uint4* src = reinterpret_cast<const uint4*>(c.src);
    uint4* dst = reinterpret_cast<uint4*>(c.dst);
    const unsigned long long words = c.bytes >> 4;
    unsigned long long i = first;
    for (; i + (N - 1) * step < words; i += N * step) {
      uint4 v[N];
#pragma unroll
      for (int k = 0; k < N; ++k) v[k] = src[i + k * step];
#pragma unroll
      for (int k = 0; k < N; ++k) dst[i + k * step] = v[k];
    }
    for (; i < words; i += step) dst[i] = src[i];
  }
}

extern "C" __global__ void __launch_bounds__(256) copy_w2(const Table* table) {
  CopyWords<2>(table);
}
extern "C" __global__ void __launch_bounds__(256) copy_w4(const Table* table) {
  CopyWords<4>(table);
}
extern "C" __global__ void __launch_bounds__(256) copy_w8(const Table* table) {
  CopyWords<8>(table);
}

// As CUDA's own copy kernel reads host memory (`memcpy128`, seen in a graph's conditional node:
// bench/results/h100-2026-12-06-p): each block one contiguous 4 KiB page at a time, one word per
// thread, the grid striding over pages, so that the blocks resident at once read one contiguous
// stretch of host memory; the library's threads read words a grid's width apart instead.
extern "C" __global__ void __launch_bounds__(256) copy_page(const Table* table) {
  for (unsigned long long e = 0; e < table->count; ++e) {
    const Copy c = table->op[e];
    const uint4* src = reinterpret_cast<const uint4*>(c.src);
    uint4* dst = reinterpret_cast<uint4*>(c.dst);
    const unsigned long long words = c.bytes >> 4;
    for (unsigned long long i = blockIdx.x * 256ull + threadIdx.x; i < words;
         i += gridDim.x * 256ull) {
      dst[i] = src[i];
    }
  }
}

// Each block a contiguous 16 KiB at a time, four words in flight per thread (4 KiB apart), the
// grid striding over 16 KiB pieces.
extern "C" __global__ void __launch_bounds__(256) copy_c4(const Table* table) {
  for (unsigned long long e = 0; e < table->count; ++e) {
    const Copy c = table->op[e];
    const uint4* src = reinterpret_cast<const uint4*>(c.src);
    uint4* dst = reinterpret_cast<uint4*>(c.dst);
    const unsigned long long words = c.bytes >> 4;
    for (unsigned long long base = blockIdx.x * 1024ull; base < words;
         base += gridDim.x * 1024ull) {
      const unsigned long long i = base + threadIdx.x;
      if (base + 1024 <= words) {
        uint4 v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) v[k] = src[i + k * 256];
#pragma unroll
        for (int k = 0; k < 4; ++k) dst[i + k * 256] = v[k];
      } else {
        for (unsigned long long j = i; j < words; j += 256) dst[j] = src[j];
      }
    }
  }
}

// For memop-latency-probe: one thread waits until *flag >= want (a volatile load each time, so
// each reads memory: pinned host memory over the bus), then, where done is not null, stores want
// to *done and makes it visible to the host.
extern "C" __global__ void spin_wait(const volatile unsigned* flag, unsigned want, unsigned* done) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  while (*flag < want) {
  }
  if (done != nullptr) {
    *reinterpret_cast<volatile unsigned*>(done) = want;
    __threadfence_system();
  }
}
