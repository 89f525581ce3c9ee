// SPDX-License-Identifier: MIT
#include "array_view.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <string>
#include <tuple>
#include <vector>

namespace nb = nanobind;

namespace hipfile::python {
namespace {

// DLPack's device types (dlpack.h, DLDeviceType).
constexpr int kDLCPU = 1;
constexpr int kDLCUDA = 2;
constexpr int kDLCUDAHost = 3;
constexpr int kDLROCM = 10;
constexpr int kDLROCMHost = 11;
constexpr int kDLCUDAManaged = 13;

std::string TypeName(nb::handle h) {
  return nb::cast<std::string>(
      nb::str(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(h.ptr()))).attr("__qualname__")));
}

// C order: each dimension's stride (in elements) the product of the later extents; dimensions of
// extent 1 may have any stride, and an array of 0 or 1 elements is contiguous whatever its strides.
bool CContiguous(size_t ndim, const int64_t* shape, const int64_t* strides, int64_t unit) {
  int64_t elements = 1;
  for (size_t i = 0; i < ndim; ++i) elements *= shape[i];
  if (elements <= 1 || strides == nullptr) return true;
  int64_t expected = unit;
  for (size_t i = ndim; i-- > 0;) {
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

[[noreturn]] void NotContiguous(nb::handle array) {
  throw nb::value_error(("hipfile: the " + TypeName(array) +
                         " is not contiguous; the library moves one contiguous range of bytes "
                         "(pass a contiguous array, e.g. .contiguous() or "
                         "numpy.ascontiguousarray)")
                            .c_str());
}

[[noreturn]] void ReadOnly(nb::handle array) {
  throw nb::value_error(("hipfile: the " + TypeName(array) +
                         " is read-only, and a read writes into it (pass a writable array)")
                            .c_str());
}

template <typename Ndarray>
ArrayView FromNdarray(nb::handle array, const Ndarray& a) {
  const size_t itemsize = (static_cast<size_t>(a.dtype().bits) * a.dtype().lanes + 7) / 8;
  std::vector<int64_t> shape(a.ndim()), strides(a.ndim());
  for (size_t i = 0; i < a.ndim(); ++i) {
    shape[i] = a.shape(i);
    strides[i] = a.stride(i);
  }
  if (!CContiguous(a.ndim(), shape.data(), strides.data(), 1)) NotContiguous(array);
  ArrayView view;
  view.ptr = reinterpret_cast<uintptr_t>(a.data());
  view.nbytes = a.size() * itemsize;
  switch (a.device_type()) {
    case kDLCPU:
      view.kind = MemoryKind::kHost;
      break;
    case kDLCUDAHost:
    case kDLROCMHost:
      view.kind = MemoryKind::kHost;  // pinned: the host path moves it as any host memory
      break;
    case kDLCUDA:
    case kDLROCM:
    case kDLCUDAManaged:
      view.kind = MemoryKind::kDevice;
      view.device = a.device_id();
      break;
    default:
      throw nb::value_error(("hipfile: the " + TypeName(array) + " lives on DLPack device type " +
                             std::to_string(a.device_type()) +
                             ", which is neither host nor GPU memory this library can reach")
                                .c_str());
  }
  return view;
}

// __cuda_array_interface__ (version 2 and 3): data (pointer, read-only), shape, strides in bytes
// or None for C order, typestr such as "<f4".
ArrayView FromCudaArrayInterface(nb::handle array, bool writable) {
  nb::dict cai = nb::cast<nb::dict>(array.attr("__cuda_array_interface__"));
  nb::tuple data = nb::cast<nb::tuple>(cai["data"]);
  const bool read_only = nb::cast<bool>(data[1]);
  if (writable && read_only) ReadOnly(array);
  const std::string typestr = nb::cast<std::string>(cai["typestr"]);
  int64_t itemsize = 0;
  try {
    itemsize = std::stoll(typestr.substr(2));
  } catch (const std::exception&) {
    throw nb::value_error(
        ("hipfile: __cuda_array_interface__ typestr '" + typestr + "' names no item size").c_str());
  }
  nb::tuple shape_t = nb::cast<nb::tuple>(cai["shape"]);
  std::vector<int64_t> shape, strides;
  for (nb::handle d : shape_t) shape.push_back(nb::cast<int64_t>(d));
  bool has_strides = cai.contains("strides") && !cai["strides"].is_none();
  if (has_strides) {
    for (nb::handle s : nb::cast<nb::tuple>(cai["strides"]))
      strides.push_back(nb::cast<int64_t>(s));
  }
  if (!CContiguous(shape.size(), shape.data(), has_strides ? strides.data() : nullptr, itemsize)) {
    NotContiguous(array);
  }
  int64_t elements = 1;
  for (int64_t d : shape) elements *= d;
  ArrayView view;
  view.ptr = nb::cast<uintptr_t>(data[0]);
  view.nbytes = static_cast<size_t>(elements * itemsize);
  view.kind = MemoryKind::kDevice;
  return view;
}

}  // namespace

ArrayView ViewArray(nb::handle array, bool writable) {
  nb::object obj = nb::borrow(array);
  // torch refuses to export a tensor that requires grad; detach() is a view of the same storage.
  if (nb::hasattr(obj, "requires_grad") && nb::hasattr(obj, "detach") &&
      nb::cast<bool>(obj.attr("requires_grad"))) {
    obj = obj.attr("detach")();
  }
  const bool dlpack_or_buffer = nb::hasattr(obj, "__dlpack__") || PyObject_CheckBuffer(obj.ptr());
  if (dlpack_or_buffer) {
    nb::ndarray<> rw;
    if (nb::try_cast(obj, rw)) return FromNdarray(array, rw);
    nb::ndarray<nb::ro> ro;
    if (nb::try_cast(obj, ro)) {
      if (writable) ReadOnly(array);
      return FromNdarray(array, ro);
    }
    PyErr_Clear();
  }
  if (nb::hasattr(obj, "__cuda_array_interface__")) return FromCudaArrayInterface(array, writable);
  if (dlpack_or_buffer) {
    // It claimed a protocol, yet gave nothing usable: say what it is.
    throw nb::type_error(("hipfile: the " + TypeName(array) +
                          " exports no array this library can use through DLPack or the buffer "
                          "protocol (a non-contiguous buffer, or an unsupported layout?)")
                             .c_str());
  }
  throw nb::type_error(("hipfile: expected an array (NumPy, torch, CuPy: anything with "
                        "__dlpack__, __cuda_array_interface__ or the buffer protocol) or a "
                        "registered hipfile.Buffer, got " +
                        TypeName(array))
                           .c_str());
}

void BindArrayView(nb::module_& m) {
  m.def(
      "_view",
      [](nb::handle array, bool writable) {
        const ArrayView v = ViewArray(array, writable);
        return std::make_tuple(v.ptr, v.nbytes, v.kind == MemoryKind::kDevice, v.device);
      },
      nb::arg("array"), nb::arg("writable"),
      "(pointer, nbytes, is_device, device) of an array's memory; raises TypeError/ValueError "
      "for what the library cannot move.");
}

}  // namespace hipfile::python
