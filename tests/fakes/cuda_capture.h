// SPDX-License-Identifier: MIT
// The CUDA driver's stream-capture calls, which the library never makes, for tests that capture
// a stream into a graph on a real GPU (docs/async.md, "Streams being captured"). Loaded from the
// libcuda.so.1 the process has; ok() is false without one.
#pragma once

#include <dlfcn.h>

namespace hipfile::testing {

class CudaCapture {
 public:
  static constexpr int kGlobal = 0;  // CU_STREAM_CAPTURE_MODE_GLOBAL: the driver's and PyTorch's
                                     // default

  CudaCapture() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);  // a reference, never closed
    if (lib == nullptr) return;
    begin_ = reinterpret_cast<BeginFn>(dlsym(lib, "cuStreamBeginCapture_v2"));
    end_ = reinterpret_cast<EndFn>(dlsym(lib, "cuStreamEndCapture"));
    destroy_ = reinterpret_cast<DestroyFn>(dlsym(lib, "cuGraphDestroy"));
  }
  bool ok() const { return begin_ != nullptr && end_ != nullptr && destroy_ != nullptr; }

  // cuStreamBeginCapture on `stream` (a CUstream, hipStream_t or runtime::Stream): the CUresult.
  template <class Stream>
  int Begin(Stream stream, int mode = kGlobal) const {
    return begin_(reinterpret_cast<void*>(stream), mode);
  }
  // Ends the capture on `stream`: 0 when it made a graph (destroyed here), -1 when it made none,
  // else cuStreamEndCapture's CUresult (901, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, for a
  // capture something invalidated).
  template <class Stream>
  int Finish(Stream stream) const {
    void* graph = nullptr;
    const int r = end_(reinterpret_cast<void*>(stream), &graph);
    if (graph != nullptr) (void)destroy_(graph);
    return r != 0 ? r : graph == nullptr ? -1 : 0;
  }

 private:
  using BeginFn = int (*)(void* stream, int mode);
  using EndFn = int (*)(void* stream, void** graph);
  using DestroyFn = int (*)(void* graph);
  BeginFn begin_ = nullptr;
  EndFn end_ = nullptr;
  DestroyFn destroy_ = nullptr;
};

}  // namespace hipfile::testing
