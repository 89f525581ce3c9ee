// SPDX-License-Identifier: MIT
// The copy kernels' source. Not compiled by the build: the library carries the PTX that
// scripts/gen-ptx.sh makes from this file (gather_kernel.cc), and the driver compiles it
// for the GPU at first use, so neither nvcc nor a GPU architecture list is needed to build.
//
// One launch copies up to 128 pieces, one block per piece; each piece's source and destination
// are addresses the device can use (device memory, or pinned host memory under unified
// addressing). Pieces whose two addresses are 16-byte aligned move in 16-byte words (a 4 KiB piece
// is one load and one store per thread), the others byte by byte. GatherArgs is the layout of
// runtime::CopyTable (gpu_runtime.h).
struct GatherCopy {
  unsigned long long dst, src, bytes;
};
struct GatherArgs {
  unsigned count;
  unsigned token;
  GatherCopy op[128];
};

extern "C" __global__ void __launch_bounds__(256) hipfile_gather_copy(const GatherArgs args) {
  const GatherCopy c = args.op[blockIdx.x];
  const unsigned long long step = blockDim.x;
  unsigned long long head = 0;  // bytes moved as 16-byte words
  if (((c.dst | c.src) & 15ull) == 0) {
    const uint4* src = reinterpret_cast<const uint4*>(c.src);
    uint4* dst = reinterpret_cast<uint4*>(c.dst);
    const unsigned long long words = c.bytes >> 4;
    for (unsigned long long i = threadIdx.x; i < words; i += step) dst[i] = src[i];
    head = words << 4;
  }
  const unsigned char* src = reinterpret_cast<const unsigned char*>(c.src);
  unsigned char* dst = reinterpret_cast<unsigned char*>(c.dst);
  for (unsigned long long i = head + threadIdx.x; i < c.bytes; i += step) dst[i] = src[i];
}

// The copies a table in host memory holds when the kernel runs (GpuRuntime::CopyTableAsync): the
// stream reaches the launch only after the host filled the table, so sizes decided while the
// stream waited are honoured. A table filled for another launch (its token) copies nothing. The
// grid, of any size, strides over each copy in turn.
extern "C" __global__ void __launch_bounds__(256) hipfile_copy_table(const GatherArgs* table,
                                                                    const unsigned token) {
  if (table->token != token) return;
  const unsigned long long count = table->count < 128 ? table->count : 128;
  const unsigned long long first = blockIdx.x * static_cast<unsigned long long>(blockDim.x) +
                                   threadIdx.x;
  const unsigned long long step = gridDim.x * static_cast<unsigned long long>(blockDim.x);
  for (unsigned long long e = 0; e < count; ++e) {
    const GatherCopy c = table->op[e];
    unsigned long long head = 0;
    if (((c.dst | c.src) & 15ull) == 0) {
      const uint4* src = reinterpret_cast<const uint4*>(c.src);
      uint4* dst = reinterpret_cast<uint4*>(c.dst);
      const unsigned long long words = c.bytes >> 4;
      unsigned long long i = first;
      // Four loads in flight per thread before the first store: reads of host memory take
      // microseconds each, and a small grid needs the loads of each thread to overlap.
      for (; i + 3 * step < words; i += 4 * step) {
        const uint4 a = src[i];
        const uint4 b = src[i + step];
        const uint4 c2 = src[i + 2 * step];
        const uint4 d = src[i + 3 * step];
        dst[i] = a;
        dst[i + step] = b;
        dst[i + 2 * step] = c2;
        dst[i + 3 * step] = d;
      }
      for (; i < words; i += step) dst[i] = src[i];
      head = words << 4;
    }
    const unsigned char* src = reinterpret_cast<const unsigned char*>(c.src);
    unsigned char* dst = reinterpret_cast<unsigned char*>(c.dst);
    for (unsigned long long i = head + first; i < c.bytes; i += step) dst[i] = src[i];
  }
}
