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
// The CUDA runtime installs cuThreadExchangeStreamCaptureMode when it is made
// (InstallCaptureModeExchange), usually within a C call (the first hipFileDriverOpen): that
// call's scope, begun before, is relaxed from then on. Before, and on the CPU runtime, which has
// no graphs, both do nothing.
#pragma once

namespace hipfile {

// cuThreadExchangeStreamCaptureMode's shape: swaps *mode with the calling thread's mode.
using CaptureModeExchange = int (*)(int* mode);

// Installs `exchange` for the process (null: none), and relaxes the calling thread's outermost
// RelaxedCapture scope that began without one.
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
  friend void InstallCaptureModeExchange(CaptureModeExchange exchange);
  void Engage(CaptureModeExchange exchange) noexcept;

  CaptureModeExchange exchange_ = nullptr;  // set once the mode was exchanged
  int previous_;
  bool waiting_ = false;  // the thread's outermost scope begun with nothing installed
};

}  // namespace hipfile
