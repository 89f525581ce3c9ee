// SPDX-License-Identifier: MIT
// The facts of our include/cufile/cufile.h.
#include <cufile/cufile.h>

#include "abi_fact.h"

extern const AbiFact kOurFacts[] = {
#include "facts.inc"
};
extern const size_t kOurFactCount = sizeof kOurFacts / sizeof kOurFacts[0];
