// SPDX-License-Identifier: MIT
// The calling thread's CUDA stream-capture mode, relaxed for the library's own runtime calls.
//
// While any thread captures a stream into a graph in CUDA's global mode (cuStreamBeginCapture's
// default, and PyTorch's), every thread still in global mode is refused "potentially unsafe"
// calls (pinning or allocating memory, synchronous copies, ...) with
// CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, and the refused call invalidates that capture: a file read
// on one thread would fail and break a graph captured on another. Measured on an H100, 2026-12-05
// (docs/async.md, "Streams being captured"). The library's calls touch no stream being captured
// (a submission on one is refused first), so they are made in relaxed mode, which CUDA does not
// police: each C entry point holds a RelaxedCapture for its span (restoring the caller's mode on
// return), and the library's own threads are relaxed for good when they start.
//
// The CUDA runtime installs cuThreadExchangeStreamCaptureMode when it loads
// (InstallCaptureModeExchange); before that, and on the CPU runtime, which has no graphs, both do
// nothing.
#pragma once

namespace hipfile {

// cuThreadExchangeStreamCaptureMode's shape: swaps *mode with the calling thread's mode.
using CaptureModeExchange = int (*)(int* mode);

// Installs `exchange` for the process (the first non-null one stays).
void InstallCaptureModeExchange(CaptureModeExchange exchange);

// Relaxes the calling thread's mode for good: the library's own threads, at their start.
void RelaxCaptureModeForThisThread() noexcept;

// The calling thread's mode, relaxed from here to the end of the scope.
class RelaxedCapture {
 public:
  RelaxedCapture() noexcept;
  ~RelaxedCapture();
  RelaxedCapture(const RelaxedCapture&) = delete;
  RelaxedCapture& operator=(const RelaxedCapture&) = delete;

 private:
  CaptureModeExchange exchange_;
  int previous_;
};

}  // namespace hipfile
