// SPDX-License-Identifier: MIT
// The facts of NVIDIA's cufile.h (from the nvidia-cufile wheel; stub/cuda.h stands in for the
// CUDA toolkit's).
#include <cufile.h>

#include "abi_fact.h"

extern const AbiFact kNvidiaFacts[] = {
#include "facts.inc"
};
extern const size_t kNvidiaFactCount = sizeof kNvidiaFacts / sizeof kNvidiaFacts[0];
