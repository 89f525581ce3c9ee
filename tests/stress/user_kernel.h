// SPDX-License-Identifier: MIT
// UserKernel: work of the program's own on a stream, between its stream-ordered I/O. On CUDA a
// real kernel (tests/stress/user_kernel.cu, loaded through the CUDA driver API as a CUDA program
// would: the library's streams and memory are CUDA's own); on the CPU runtime a host function
// doing the same to the bytes (device memory is host memory there).
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>

namespace hipfile::testing {

extern const char kUserKernelPtx[];  // user_kernel_ptx.cc

// What the kernel does, on the host: adds delta (modulo 256) to each of the n bytes at p, eight
// bytes to a load and a store (under TSan a byte at a time made most of the stress tests' time,
// each byte's access checked on its own; a word's are checked at once).
void AddToBytes(void* p, size_t n, unsigned delta);

class UserKernel {
 public:
  // Loads it for the process runtime (hipFileExtRuntimeName). Load before any stream waits for
  // the library: loading code on a GPU waits for its streams. Null, with *why set, on failure.
  static std::unique_ptr<UserKernel> Load(std::string* why);
  virtual ~UserKernel() = default;
  // Queues "add delta to each of the n bytes at p" on stream.
  virtual hipError_t AddBytes(void* p, size_t n, unsigned delta, hipStream_t stream) = 0;
};

}  // namespace hipfile::testing
