// SPDX-License-Identifier: MIT
// A kernel of the stress test's own, as a program's between its I/O: adds `delta` to each of `n`
// bytes at `p`. Not compiled by the build: tests/stress/user_kernel_ptx.cc carries the PTX that
// scripts/gen-ptx.sh makes from this file, and the driver compiles it at load.
extern "C" __global__ void hipfile_test_add_bytes(unsigned char* p, unsigned long long n,
                                                  unsigned int delta) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    p[i] = static_cast<unsigned char>(p[i] + delta);
  }
}
