// SPDX-License-Identifier: MIT
// What the Python package reads into and writes from: any array that speaks DLPack, the buffer
// protocol or __cuda_array_interface__ (NumPy, torch, CuPy, Numba), reduced to the bytes the
// library moves.
#pragma once

#include <nanobind/nanobind.h>

#include <cstddef>
#include <cstdint>

namespace hipfile::python {

// Where the memory lives, as the library must be told.
enum class MemoryKind {
  kHost,    // host memory, pageable or pinned: hipFileExtReadHost / WriteHost
  kDevice,  // GPU (or managed, or pinned as the GPU runtime reports it): hipFileRead / Write
};

struct ArrayView {
  uintptr_t ptr = 0;
  size_t nbytes = 0;
  MemoryKind kind = MemoryKind::kHost;
  int device = -1;  // the GPU's index where the array says it; -1 otherwise
};

// The bytes of `array`, to be written into (writable) or read from. Raises TypeError for what is
// no array, ValueError for a read-only array given to be written into and for a non-contiguous
// one (naming what was expected). A torch tensor that requires grad is viewed through detach():
// the same storage.
ArrayView ViewArray(nanobind::handle array, bool writable);

void BindArrayView(nanobind::module_& m);

}  // namespace hipfile::python
