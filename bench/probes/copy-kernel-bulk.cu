// SPDX-License-Identifier: MIT
// For copy-kernel-probe: the copy-table kernel's job (pinned host memory into device memory, the
// sizes read from a table when it runs) done by the Hopper bulk-copy engine (TMA) instead of the
// threads' own loads, which read host memory at about 0.85-0.9x what the copy engines move
// (bench/results/h200-2026-12-03, -12-04-b). Thread 0 of each block moves pieces of PIECE bytes:
// BUFS bulk loads host -> shared memory, each completing on an mbarrier, then a bulk store of each
// shared -> device memory; the next loads wait until the stores have read shared memory.
// Addresses and sizes must be multiples of 16 bytes (the probe's are). PTX made by
// `nvcc -ptx -arch=sm_90 copy-kernel-bulk.cu -o copy-kernel-bulk.ptx` (committed; the probe
// loads it by path; modes bulk, bulk5 and bulk16).
struct Copy {
  unsigned long long dst, src, bytes;
};
struct Table {
  unsigned long long count;
  Copy op[128];
};

__device__ __forceinline__ unsigned Smem(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

template <unsigned PIECE, unsigned BUFS>
__device__ void CopyBulk(const Table* table) {
  __shared__ alignas(128) unsigned char buf[BUFS][PIECE];
  __shared__ alignas(8) unsigned long long bar[BUFS];
  if (threadIdx.x != 0) return;
  for (unsigned b = 0; b < BUFS; ++b) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(Smem(&bar[b])) : "memory");
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  unsigned phases = 0;  // bit b: the parity barrier b completes next
  const unsigned long long grid = gridDim.x;
  for (unsigned long long e = 0; e < table->count; ++e) {
    const Copy c = table->op[e];
    const unsigned long long pieces = (c.bytes + PIECE - 1) / PIECE;
    for (unsigned long long first = blockIdx.x; first < pieces; first += grid * BUFS) {
      unsigned n = 0;
      for (; n < BUFS; ++n) {
        const unsigned long long off = (first + n * grid) * PIECE;
        if (off >= c.bytes) break;
        const unsigned bytes = static_cast<unsigned>(c.bytes - off < PIECE ? c.bytes - off : PIECE);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(Smem(&bar[n])),
                     "r"(bytes)
                     : "memory");
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
            "[%3];" ::"r"(Smem(buf[n])),
            "l"(c.src + off), "r"(bytes), "r"(Smem(&bar[n]))
            : "memory");
      }
      for (unsigned k = 0; k < n; ++k) {
        const unsigned long long off = (first + k * grid) * PIECE;
        const unsigned bytes = static_cast<unsigned>(c.bytes - off < PIECE ? c.bytes - off : PIECE);
        const unsigned parity = (phases >> k) & 1u;
        unsigned ready = 0;
        do {
          asm volatile(
              "{ .reg .pred P; mbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2; "
              "selp.u32 %0, 1, 0, P; }"
              : "=r"(ready)
              : "r"(Smem(&bar[k])), "r"(parity)
              : "memory");
        } while (ready == 0);
        phases ^= 1u << k;
        asm volatile(
            "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(c.dst + off),
            "r"(Smem(buf[k])), "r"(bytes)
            : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      }
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

extern "C" __global__ void __launch_bounds__(256) copy_bulk(const Table* table) {
  CopyBulk<8192, 4>(table);
}
extern "C" __global__ void __launch_bounds__(256) copy_bulk5(const Table* table) {
  CopyBulk<8192, 5>(table);
}
extern "C" __global__ void __launch_bounds__(256) copy_bulk16(const Table* table) {
  CopyBulk<16384, 2>(table);
}
