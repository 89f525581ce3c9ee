// SPDX-License-Identifier: MIT
// The per-thread "last error" of the HIP runtime subset (hipGetLastError / hipPeekAtLastError).
//
// HIP 6 semantics: a failing call stores its error in the calling thread's slot and the error stays
// there ("sticky") until hipGetLastError reads and clears it; successful calls leave it alone.
// hipErrorNotReady is a status, not a failure (a query found work still running), so it is not
// stored, as in HIP 6 and CUDA. Other threads never see this thread's error.
#pragma once

#include <hip/hip_runtime_api.h>

namespace hipfile::hiprt {

// Stores `e` as this thread's last error when it is a failure; returns `e`, so an API function
// ends with `return Record(...)`.
hipError_t Record(hipError_t e);

// This thread's last error; TakeLastError also resets it to hipSuccess.
hipError_t PeekLastError();
hipError_t TakeLastError();

}  // namespace hipfile::hiprt
