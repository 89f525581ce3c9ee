// SPDX-License-Identifier: MIT
/* hip/hip_runtime.h - hipFile's HIP subset has no device code; this forwards to the runtime API. */
#ifndef HIPFILE_COMPAT_HIP_RUNTIME_H
#define HIPFILE_COMPAT_HIP_RUNTIME_H
#include <hip/hip_runtime_api.h>
#endif
