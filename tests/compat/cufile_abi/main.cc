// SPDX-License-Identifier: MIT
// Compares the facts of the two headers one by one and names every difference.
#include <cstdio>
#include <cstring>

#include "abi_fact.h"

extern const AbiFact kNvidiaFacts[];
extern const size_t kNvidiaFactCount;
extern const AbiFact kOurFacts[];
extern const size_t kOurFactCount;

int main() {
  if (kNvidiaFactCount != kOurFactCount) {
    std::printf("cufile-abi: %zu facts against %zu\n", kOurFactCount, kNvidiaFactCount);
    return 1;
  }
  size_t differ = 0, functions = 0;
  for (size_t i = 0; i < kOurFactCount; ++i) {
    const AbiFact& ours = kOurFacts[i];
    const AbiFact& theirs = kNvidiaFacts[i];
    if (ours.type != nullptr) {
      ++functions;
      if (std::strcmp(ours.type, theirs.type) != 0) {
        std::printf("DIFFERS  %s: type %s here, %s in NVIDIA's\n", ours.name, ours.type,
                    theirs.type);
        ++differ;
      }
    } else if (ours.value != theirs.value) {
      std::printf("DIFFERS  %s: %lld here, %lld in NVIDIA's\n", ours.name, ours.value,
                  theirs.value);
      ++differ;
    }
  }
  if (differ != 0) {
    std::printf("cufile-abi: %zu of %zu facts differ\n", differ, kOurFactCount);
    return 1;
  }
  std::printf("cufile-abi: ok, %zu facts agree with NVIDIA's cufile.h (%zu function types)\n",
              kOurFactCount, functions);
  return 0;
}
