// SPDX-License-Identifier: MIT
// The library, its GPU runtime, each GPU and the driver, through the public API and the HIP
// subset only; PCIe links from sysfs.
#pragma once

#include <optional>
#include <string>

#include "report.h"

namespace hipfile_check {

// Fills everything but the bandwidth, and opens and closes the driver once.
void ProbePlatform(Platform* p);

// --bandwidth: a short pinned host-to-device copy on each GPU (hipHostMalloc, hipMemcpyAsync,
// events).
void ProbeBandwidth(Platform* p);

// A device UUID as 8-4-4-4-12 lowercase hex digits (as hipfile-stats prints it); "" when all 16
// bytes are 0 (not known).
std::string UuidText(const char bytes[16]);

// The PCIe generation of a sysfs link speed ("16.0 GT/s PCIe" is 4), or nullopt.
std::optional<int> PcieGeneration(const std::string& speed);

}  // namespace hipfile_check
