// SPDX-License-Identifier: MIT
#include "safetensors_module.h"

#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>

#include "safetensors_header.h"

namespace nb = nanobind;

namespace hipfile::python {
namespace {

[[noreturn]] void Refuse(const std::string& path, const std::string& problem) {
  throw nb::value_error(("safetensors file '" + path + "': " + problem).c_str());
}

}  // namespace

void BindSafetensors(nb::module_& m) {
  m.attr("_ST_MAX_HEADER_BYTES") = safetensors::kMaxHeaderBytes;
  m.def(
      "_st_header_length",
      [](nb::bytes prefix, uint64_t file_size, const std::string& path) {
        uint64_t length = 0;
        std::string problem = safetensors::ParseHeaderLength(
            static_cast<const unsigned char*>(prefix.data()), prefix.size(), file_size, &length);
        if (!problem.empty()) Refuse(path, problem);
        return length;
      },
      nb::arg("prefix"), nb::arg("file_size"), nb::arg("path"),
      "The header's length from a file's first 8 bytes; ValueError for a bad one.");
  m.def(
      "_st_parse_header",
      [](nb::bytes header, uint64_t file_size, const std::string& path) {
        safetensors::Header h;
        std::string problem = safetensors::ParseHeader(
            std::string_view(static_cast<const char*>(header.data()), header.size()), file_size,
            &h);
        if (!problem.empty()) Refuse(path, problem);
        nb::list tensors;
        for (const safetensors::TensorInfo& t : h.tensors) {
          nb::list shape;
          for (uint64_t d : t.shape) shape.append(d);
          tensors.append(nb::make_tuple(t.name, t.dtype, nb::tuple(shape), t.begin, t.end));
        }
        nb::object metadata = nb::none();
        if (h.has_metadata) {
          nb::dict d;
          for (const auto& [k, v] : h.metadata) d[k.c_str()] = v;
          metadata = d;
        }
        return nb::make_tuple(h.data_start, tensors, metadata);
      },
      nb::arg("header"), nb::arg("file_size"), nb::arg("path"),
      "(data_start, [(name, dtype, shape, begin, end)] in offset order, __metadata__ or None); "
      "ValueError naming the file, the tensor and the problem for a bad header.");
  m.def(
      "_st_dtype_bits", [](const std::string& dtype) { return safetensors::DtypeBits(dtype); },
      nb::arg("dtype"), "Bits per element of a safetensors dtype; 0 for an unknown one.");
}

}  // namespace hipfile::python
