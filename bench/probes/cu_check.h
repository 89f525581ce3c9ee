// SPDX-License-Identifier: MIT
// CHECK(call): the driver-API probes' way with a failed CUDA call - file, line, the call and the
// driver's message on stderr, then exit 1 (a probe has nothing to recover). And the probes'
// common prologue.
#pragma once

#include <cuda.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                     \
  do {                                                                               \
    CUresult r_ = (x);                                                               \
    if (r_ != CUDA_SUCCESS) {                                                        \
      const char* s_ = nullptr;                                                      \
      cuGetErrorString(r_, &s_);                                                     \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_ ? s_ : "?"); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

// Initializes the driver and makes device 0's primary context current on this thread: the
// prologue of the probes that use one GPU. *device (if given) receives the device.
inline CUcontext PrimaryContextOfDevice0(CUdevice* device = nullptr) {
  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  if (device != nullptr) *device = dev;
  return ctx;
}
