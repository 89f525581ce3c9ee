// SPDX-License-Identifier: MIT
#include "safetensors_header.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>

namespace hipfile::python::safetensors {
namespace {

using json = nlohmann::json;

struct DtypeEntry {
  const char* name;
  unsigned bits;
};

// Every dtype of the format (the `safetensors` crate's Dtype, 0.8): F4 packs two elements in a
// byte, F6_* four in three bytes.
constexpr DtypeEntry kDtypes[] = {
    {"BOOL", 8},        {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8},
    {"I8", 8},          {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8},
    {"F8_E5M2FNUZ", 8}, {"I16", 16},    {"U16", 16},    {"F16", 16},    {"BF16", 16},
    {"I32", 32},        {"U32", 32},    {"F32", 32},    {"C64", 64},    {"F64", 64},
    {"I64", 64},        {"U64", 64},
};

// The header nests three deep at most: {name: {"shape": [n]}}. Deeper JSON is refused before a
// DOM is built.
constexpr int kMaxDepth = 3;

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

std::string Join(const std::vector<uint64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// An unsigned integer that JSON spells as one: not negative, no fraction or exponent, and
// within 64 bits (larger integers parse as floating point).
bool AsU64(const json& v, uint64_t* out) {
  if (!v.is_number_unsigned()) return false;
  *out = v.get<uint64_t>();
  return true;
}

// Offset of the first byte that is not part of well-formed UTF-8 (no overlong forms, no
// surrogates, nothing past U+10FFFF), or npos. JSON is UTF-8; checked first so that every name
// and message handed to Python decodes.
size_t FirstBadUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the byte after the lead
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (i + n >= s.size()) return i;  // cut short
    for (size_t k = 1; k <= n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return i;
    }
    i += n + 1;
  }
  return std::string_view::npos;
}

// The first pass over the header: nesting depth and top-level names, nothing stored but names.
struct HeaderShape final : nlohmann::json_sax<json> {
  int depth = 0;
  std::unordered_set<std::string> names;
  std::string problem;

  bool Open() {
    if (++depth <= kMaxDepth) return true;
    problem = "header refused: the JSON nests deeper than a header does";
    return false;
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return Open(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_object() override { return --depth, true; }
  bool end_array() override { return --depth, true; }
  bool key(string_t& k) override {
    if (depth != 1 || names.insert(k).second) return true;
    problem = "header refused: tensor " + Quoted(k) + " appears twice";
    return false;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    problem = "header is not valid JSON (" + std::string(e.what()) + ")";
    return false;
  }
};

std::string ParseTensor(const std::string& name, const json& v, uint64_t data_size, TensorInfo* t) {
  const std::string what = "tensor " + Quoted(name) + ": ";
  if (!v.is_object()) return what + "is not a JSON object";
  t->name = name;

  auto dtype = v.find("dtype");
  if (dtype == v.end() || !dtype->is_string()) return what + "has no \"dtype\" string";
  t->dtype = dtype->get<std::string>();
  const unsigned bits = DtypeBits(t->dtype);
  if (bits == 0) return what + "unknown dtype " + Quoted(t->dtype);

  auto shape = v.find("shape");
  if (shape == v.end() || !shape->is_array()) return what + "has no \"shape\" array";
  uint64_t elements = 1;
  for (const json& d : *shape) {
    uint64_t n = 0;
    if (!AsU64(d, &n))
      return what + "shape " + shape->dump() + " holds " + d.dump() +
             ", not a non-negative integer";
    t->shape.push_back(n);
    if (__builtin_mul_overflow(elements, n, &elements))
      return what + "shape " + shape->dump() + " has more elements than 64 bits count";
  }

  auto offsets = v.find("data_offsets");
  if (offsets == v.end() || !offsets->is_array() || offsets->size() != 2 ||
      !AsU64((*offsets)[0], &t->begin) || !AsU64((*offsets)[1], &t->end))
    return what + "\"data_offsets\" is not [begin, end] of non-negative integers";
  if (t->begin > t->end) return what + "data_offsets " + offsets->dump() + " end before they begin";
  if (t->end > data_size)
    return what + "data_offsets " + offsets->dump() + " reach past the data region's " +
           std::to_string(data_size) + " bytes (a truncated file, or a bad header)";

  uint64_t total_bits = 0;
  if (__builtin_mul_overflow(elements, uint64_t{bits}, &total_bits))
    return what + "shape " + Join(t->shape) + " of " + t->dtype + " overflows 64 bits of bytes";
  if (total_bits % 8 != 0)
    return what + std::to_string(elements) + " elements of " + t->dtype +
           " do not end on a byte boundary";
  const uint64_t bytes = total_bits / 8;
  if (t->end - t->begin != bytes)
    return what + "data_offsets " + offsets->dump() + " hold " + std::to_string(t->end - t->begin) +
           " bytes, but " + t->dtype + " " + Join(t->shape) + " needs " + std::to_string(bytes);
  return {};
}

std::string ParseMetadata(const json& v, Header* out) {
  if (!v.is_object()) return "\"__metadata__\" is not a JSON object";
  out->has_metadata = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!it->is_string())
      return "\"__metadata__\" value of " + Quoted(it.key()) + " is " + it->dump() +
             ", not a string";
    out->metadata.emplace_back(it.key(), it->get<std::string>());
  }
  return {};
}

}  // namespace

unsigned DtypeBits(std::string_view dtype) {
  for (const DtypeEntry& d : kDtypes)
    if (dtype == d.name) return d.bits;
  return 0;
}

std::string ParseHeaderLength(const unsigned char* p, size_t n, uint64_t file_size,
                              uint64_t* length) {
  if (n < 8 || file_size < 8)
    return "too short for a safetensors file (" + std::to_string(std::min<uint64_t>(n, file_size)) +
           " bytes; the header's length alone is 8)";
  uint64_t len = 0;
  for (int i = 7; i >= 0; --i) len = (len << 8) | p[i];
  if (len > kMaxHeaderBytes)
    return "header length " + std::to_string(len) + " is over the limit of " +
           std::to_string(kMaxHeaderBytes) + " bytes";
  if (len > file_size - 8)
    return "header length " + std::to_string(len) + " reaches past the end of the file (" +
           std::to_string(file_size) + " bytes)";
  if (len < 2) return "header length " + std::to_string(len) + " is too short for a JSON object";
  *length = len;
  return {};
}

std::string ParseHeader(std::string_view text, uint64_t file_size, Header* out) {
  *out = Header{};
  if (8 + uint64_t{text.size()} > file_size)
    return "header of " + std::to_string(text.size()) + " bytes does not fit the file (" +
           std::to_string(file_size) + " bytes)";
  out->data_start = 8 + text.size();
  const uint64_t data_size = file_size - out->data_start;

  if (size_t bad = FirstBadUtf8(text); bad != std::string_view::npos)
    return "header is not UTF-8 (byte " + std::to_string(bad) + " of the JSON)";

  // A first pass builds nothing: it refuses malformed JSON, deep nesting and repeated names (which
  // the DOM would collapse silently, keeping one of two entries) before the DOM parse.
  // nlohmann's callback parser could check the same while building, but it rescans the parent
  // object after each member, quadratic in the tensors: minutes for a 200,000-tensor header.
  HeaderShape shape;
  if (!json::sax_parse(text.begin(), text.end(), &shape)) {
    return shape.problem.empty() ? "header is not valid JSON" : shape.problem;
  }
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    return "header is not valid JSON (" + std::string(e.what()) + ")";
  }
  if (!root.is_object()) return "header is not a JSON object";

  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it.key() == "__metadata__") {
      std::string p = ParseMetadata(*it, out);
      if (!p.empty()) return p;
      continue;
    }
    TensorInfo t;
    std::string p = ParseTensor(it.key(), *it, data_size, &t);
    if (!p.empty()) return p;
    out->tensors.push_back(std::move(t));
  }

  // Tensors may be listed in any order; in offset order, each must start at or after the end of
  // everything before it. Empty tensors hold no bytes and overlap nothing.
  std::sort(out->tensors.begin(), out->tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  const TensorInfo* last = nullptr;
  for (const TensorInfo& t : out->tensors) {
    if (t.begin == t.end) continue;
    if (last != nullptr && t.begin < last->end)
      return "tensors " + Quoted(last->name) + " (bytes " + std::to_string(last->begin) + ".." +
             std::to_string(last->end) + ") and " + Quoted(t.name) + " (bytes " +
             std::to_string(t.begin) + ".." + std::to_string(t.end) + ") overlap";
    if (last == nullptr || t.end > last->end) last = &t;
  }
  return {};
}

}  // namespace hipfile::python::safetensors
