// SPDX-License-Identifier: MIT
// The report printed: as text for people (text_output.cpp), as one JSON object for programs
// (json_output.cpp). Both print the same facts.
#pragma once

#include <cstdio>

#include "report.h"

namespace hipfile_check {

void PrintText(const Report& r, std::FILE* out);
void PrintJson(const Report& r, std::FILE* out);

}  // namespace hipfile_check
