// SPDX-License-Identifier: MIT
// What one thread of the library's copy kernels does. gather_kernel.cu wraps these in the
// kernels that nvcc compiles to the PTX the library carries (gather_kernel.cc, by
// scripts/gen-ptx.sh); tests/unit/runtime/copy_kernel_body_test.cc runs them on the host, every
// thread of a grid in turn, so that the suite checks what the kernels copy without a GPU. Each
// thread's bytes are its own (no shared memory, no barriers), so running the threads one after
// another copies what the GPU copies. Plain C++17 only: nvcc compiles this without the library's
// include paths.
#pragma once

#ifdef __CUDACC__
#define HIPFILE_KERNEL_BODY __device__ __forceinline__
#else
#define HIPFILE_KERNEL_BODY inline
#endif

namespace hipfile::kernels {

// The layout of runtime::CopyTable (gpu_runtime.h; gather_kernel.h checks its size).
struct GatherCopy {
  unsigned long long dst, src, bytes;
};
struct GatherArgs {
  unsigned count;
  unsigned token;
  unsigned last;  // no later token of the run copies (RunEndsWithFirst)
  unsigned spare;
  GatherCopy op[128];
};

#ifdef __CUDACC__
using Word16 = uint4;
#else
struct alignas(16) Word16 {
  unsigned x, y, z, w;
};
#endif

// A load that does not keep the line in the SM's cache (ld.global.cv on a GPU): a run kernel
// (CopyRunToken) reads a staging slot the host refills while the kernel lives, and a
// cached line of its last use would be stale.
#ifdef __CUDACC__
HIPFILE_KERNEL_BODY Word16 LoadFresh(const Word16* p) { return __ldcv(p); }
HIPFILE_KERNEL_BODY unsigned char LoadFresh(const unsigned char* p) { return __ldcv(p); }
#else
inline Word16 LoadFresh(const Word16* p) { return *p; }
inline unsigned char LoadFresh(const unsigned char* p) { return *p; }
#endif

// One thread's share of a copy: the words (16 bytes) first, thread + k * step, when both
// addresses are 16-byte aligned, then the remaining bytes one by one. `Fresh`: each load
// fetched anew (LoadFresh).
template <bool Fresh = false>
HIPFILE_KERNEL_BODY void CopyPiece(const GatherCopy& c, unsigned long long first,
                                   unsigned long long step) {
  unsigned long long head = 0;  // bytes moved as words
  if (((c.dst | c.src) & 15ull) == 0) {
    const Word16* src = reinterpret_cast<const Word16*>(c.src);
    Word16* dst = reinterpret_cast<Word16*>(c.dst);
    const unsigned long long words = c.bytes >> 4;
    unsigned long long i = first;
    // Four loads in flight per thread before the first store: reads of host memory take
    // microseconds each, and a small grid needs the loads of each thread to overlap.
    for (; i + 3 * step < words; i += 4 * step) {
      const Word16 a = Fresh ? LoadFresh(src + i) : src[i];
      const Word16 b = Fresh ? LoadFresh(src + i + step) : src[i + step];
      const Word16 c2 = Fresh ? LoadFresh(src + i + 2 * step) : src[i + 2 * step];
      const Word16 d = Fresh ? LoadFresh(src + i + 3 * step) : src[i + 3 * step];
      dst[i] = a;
      dst[i + step] = b;
      dst[i + 2 * step] = c2;
      dst[i + 3 * step] = d;
    }
    for (; i < words; i += step) dst[i] = Fresh ? LoadFresh(src + i) : src[i];
    head = words << 4;
  }
  const unsigned char* src = reinterpret_cast<const unsigned char*>(c.src);
  unsigned char* dst = reinterpret_cast<unsigned char*>(c.dst);
  for (unsigned long long i = head + first; i < c.bytes; i += step) {
    dst[i] = Fresh ? LoadFresh(src + i) : src[i];
  }
}

// hipfile_gather_copy: block `block` makes copy `block` of the launch's parameter, its threads
// striding over it.
HIPFILE_KERNEL_BODY void GatherThread(const GatherArgs& args, unsigned block, unsigned thread,
                                      unsigned threads) {
  CopyPiece(args.op[block], thread, threads);
}

// hipfile_copy_table: the copies a table in host memory holds when the kernel runs, if it was
// filled for this launch's token; the whole grid strides over each copy in turn (`first`: the
// thread's index in the grid, `step`: the grid's threads).
//
// The table is in host memory, and each read of it is a round trip over the link, behind
// whatever the copy engines are moving the same way (16 streams' reads keep them busy). So the
// token, the count and the first copy are read together, before the token is looked at: one
// round trip before the first byte moves, where reading each after the one it depends on took
// three. Each further copy is read before the bytes of the one before it move (the loads come
// before the stores in program order, and the stores may alias the table as far as the compiler
// knows, so it keeps them there).
HIPFILE_KERNEL_BODY void CopyTableThread(const GatherArgs* table, unsigned token,
                                         unsigned long long first, unsigned long long step) {
  const unsigned count = table->count;
  const unsigned filled_for = table->token;
  GatherCopy c = table->op[0];
  const unsigned long long n = filled_for != token ? 0 : count < 128 ? count : 128;
  // Not a branch around the first copy: the compiler would move its loads behind it.
  c.bytes = n == 0 ? 0 : c.bytes;
  for (unsigned long long e = 1;; ++e) {
    GatherCopy next = c;
    if (e < n) next = table->op[e];
    CopyPiece(c, first, step);
    if (e >= n) break;
    c = next;
  }
}

// hipfile_copy_table_run (GpuRuntime::CopyTableRunAsync), every thread of the grid first:
// whether the run ends with its first table `head` (tables[first % 2], or the stream's copy of it
// in device memory) - filled for `first` and the run's last to copy - which the whole grid
// then copies as CopyTableThread does.
HIPFILE_KERNEL_BODY bool RunEndsWithFirst(const GatherArgs* head, unsigned first) {
  return head->token == first && head->last != 0;
}

// Whether the host has released token `t` (*ready >= t, as cuStreamWaitValue32's GEQ compares:
// wrapping). `ready` is read anew each time.
HIPFILE_KERNEL_BODY bool Released(const volatile unsigned* ready, unsigned t) {
  return static_cast<int>(*ready - t) >= 0;
}

// A run that goes on past its first table, one block: token `t`'s copies, if table t % 2 is
// filled for t, this thread's share (`thread` of `threads`). The table and the bytes are read
// anew (the host fills them while the kernel lives); the caller has seen Released(ready, t).
HIPFILE_KERNEL_BODY void CopyRunToken(const GatherArgs* tables, unsigned t, unsigned thread,
                                      unsigned threads) {
  const volatile GatherArgs* table = tables + (t & 1u);
  if (table->token != t) return;
  const unsigned count = table->count;
  const unsigned n = count < 128 ? count : 128;
  for (unsigned e = 0; e < n; ++e) {
    const GatherCopy c = {table->op[e].dst, table->op[e].src, table->op[e].bytes};
    CopyPiece<true>(c, thread, threads);
  }
}

}  // namespace hipfile::kernels
