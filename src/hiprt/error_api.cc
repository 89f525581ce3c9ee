// hipGetErrorName, hipGetErrorString, hipGetLastError, hipPeekAtLastError. None of them records
// an error.
#include <hip/hip_runtime_api.h>

#include "hiprt/last_error.h"
#include "util/errors.h"

extern "C" {

const char* hipGetErrorName(hipError_t error) { return hipfile::GpuErrorName(error); }

const char* hipGetErrorString(hipError_t error) { return hipfile::GpuErrorString(error); }

hipError_t hipGetLastError(void) { return hipfile::hiprt::TakeLastError(); }

hipError_t hipPeekAtLastError(void) { return hipfile::hiprt::PeekLastError(); }

}  // extern "C"
