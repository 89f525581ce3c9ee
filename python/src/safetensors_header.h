// SPDX-License-Identifier: MIT
// The safetensors header, parsed and validated from bytes (hipfile.safetensors, docs/python.md).
//
// A safetensors file is an 8-byte little-endian length N, N bytes of JSON, then the data region.
// The JSON maps each tensor name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets
// relative to the data region) and may hold "__metadata__", a map of strings to strings.
//
// Pure functions over bytes and a file size: no I/O, so tests hand them crafted headers. Every
// problem is returned as text naming the tensor and what is wrong; nothing a header says is
// trusted before it is checked (sizes overflow-checked, offsets inside the data region, no two
// tensors sharing a byte), so a reader that follows the result never leaves the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hipfile::python::safetensors {

// A header longer than this is refused before anything is allocated for it. The `safetensors`
// package refuses the same size: real headers are kilobytes to a few megabytes.
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;

// Bits per element of a dtype the format defines, or 0 for a name it does not.
unsigned DtypeBits(std::string_view dtype);

struct TensorInfo {
  std::string name;
  std::string dtype;
  std::vector<uint64_t> shape;
  uint64_t begin = 0;  // data_offsets as the header gives them, relative to the data region
  uint64_t end = 0;
};

struct Header {
  uint64_t data_start = 0;          // 8 + the header's length: where data_offsets count from
  std::vector<TensorInfo> tensors;  // in data_offsets order (the header's may differ)
  bool has_metadata = false;
  std::vector<std::pair<std::string, std::string>> metadata;  // "__metadata__", by key
};

// The header's length from the file's first bytes (`n` of them at `p`). Empty on success with
// *length set; otherwise the problem: fewer than 8 bytes, a length above kMaxHeaderBytes, or one
// that does not fit in a file of file_size bytes.
std::string ParseHeaderLength(const unsigned char* p, size_t n, uint64_t file_size,
                              uint64_t* length);

// The header's JSON (the N bytes after the length) of a file of file_size bytes. Empty on
// success with *out filled; otherwise the problem.
std::string ParseHeader(std::string_view json, uint64_t file_size, Header* out);

}  // namespace hipfile::python::safetensors
