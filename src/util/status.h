// SPDX-License-Identifier: MIT
// Status and Result: errors as values inside the library.
//
// Three error channels are kept apart, because the C API reports each one differently:
//   kErrno - a system call failed; code is the errno it left (hipFileRead returns -1 + errno).
//   kOp    - a hipFile rule was broken; code is a hipFileOpError_t.
//   kGpu   - the GPU runtime failed; code is a hipError_t.
// No exceptions cross a Status boundary; worker threads report through these values only.
#pragma once

#include <hipfile.h>

#include <cassert>
#include <string>
#include <utility>

namespace hipfile {

class [[nodiscard]] Status {
 public:
  enum class Kind : unsigned char { kOk, kErrno, kOp, kGpu };

  constexpr Status() = default;
  static constexpr Status Ok() { return Status(); }
  static constexpr Status Errno(int e) { return Status(Kind::kErrno, e); }
  static constexpr Status Op(hipFileOpError_t e) { return Status(Kind::kOp, static_cast<int>(e)); }
  static constexpr Status Gpu(hipError_t e) { return Status(Kind::kGpu, static_cast<int>(e)); }
  // A GPU runtime result: hipSuccess becomes Ok.
  static constexpr Status FromGpu(hipError_t e) { return e == hipSuccess ? Ok() : Gpu(e); }

  constexpr bool ok() const { return kind_ == Kind::kOk; }
  constexpr Kind kind() const { return kind_; }
  constexpr int code() const { return code_; }
  constexpr bool IsErrno(int e) const { return kind_ == Kind::kErrno && code_ == e; }
  constexpr bool IsOp(hipFileOpError_t e) const { return kind_ == Kind::kOp && code_ == e; }
  constexpr bool IsGpu(hipError_t e) const { return kind_ == Kind::kGpu && code_ == e; }

  // "ok", "errno 5 (Input/output error)", "hipFileInvalidValue (invalid arguments)", ...
  std::string ToString() const;

  friend constexpr bool operator==(Status a, Status b) {
    return a.kind_ == b.kind_ && a.code_ == b.code_;
  }
  friend constexpr bool operator!=(Status a, Status b) { return !(a == b); }

 private:
  constexpr Status(Kind kind, int code) : kind_(kind), code_(code) {}
  Kind kind_ = Kind::kOk;
  int code_ = 0;
};

// A value or an error. T must be default-constructible and movable.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(status) {      // NOLINT: implicit by design
    assert(!status.ok() && "a Result holding no value needs an error");
  }

  bool ok() const { return status_.ok(); }
  Status status() const { return status_; }
  const T& value() const& {
    assert(ok());
    return value_;
  }
  T& value() & {
    assert(ok());
    return value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(value_);
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  Status status_;
  T value_{};
};

}  // namespace hipfile

#define HF_STATUS_CONCAT_INNER(a, b) a##b
#define HF_STATUS_CONCAT(a, b) HF_STATUS_CONCAT_INNER(a, b)

// Returns the Status from the enclosing function if `expr` (a Status) is not ok.
#define HF_RETURN_IF_ERROR(expr)                 \
  do {                                           \
    const ::hipfile::Status hf_status_ = (expr); \
    if (!hf_status_.ok()) return hf_status_;     \
  } while (0)

// `HF_ASSIGN_OR_RETURN(auto x, ResultExpr());` - binds the value or returns the error.
#define HF_ASSIGN_OR_RETURN(lhs, expr) \
  HF_ASSIGN_OR_RETURN_IMPL(HF_STATUS_CONCAT(hf_result_, __LINE__), lhs, expr)
#define HF_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()
