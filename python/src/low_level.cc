// SPDX-License-Identifier: MIT
#include "low_level.h"

#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile_ext.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <tuple>

#include "results.h"

namespace nb = nanobind;

namespace hipfile::python {
namespace {

// The (err, extra) of the stream-ordered wrappers: extra is the hipError_t of a GPU error, errno
// of a system error (err == -1), else 0.
ErrTuple AsyncErr(hipFileError_t e, int saved_errno) {
  int extra = 0;
  if (e.err == hipFileHipDriverError) {
    extra = static_cast<int>(e.hip_drv_err);
  } else if (static_cast<int>(e.err) == -1) {
    extra = saved_errno;
  }
  return {static_cast<int>(e.err), extra};
}

const char* OrEmpty(const char* s) { return s == nullptr ? "" : s; }

// hipFileReadAsync / WriteAsync dereference their size, offset and result pointers after the call
// returns, when the stream reaches the operation: this object owns them, and the caller keeps it
// alive until the stream has passed it.
struct AsyncIOHandle {
  AsyncIOHandle(size_t size, hoff_t file_offset, hoff_t buffer_offset)
      : size(size), file_offset(file_offset), buffer_offset(buffer_offset) {}
  size_t size;
  hoff_t file_offset;
  hoff_t buffer_offset;
  ssize_t bytes_done = 0;
};

// One stream-ordered library call with the GIL released and its errno kept (as AsyncErr wants).
template <typename Call>
ErrTuple CallReleased(Call call) {
  hipFileError_t e;
  int saved_errno = 0;
  {
    nb::gil_scoped_release release;
    errno = 0;
    e = call();
    saved_errno = errno;
  }
  return AsyncErr(e, saved_errno);
}

template <typename Submit>
ErrTuple SubmitAsync(Submit submit, uintptr_t handle, uintptr_t buffer_base, AsyncIOHandle& io,
                     uintptr_t stream) {
  return CallReleased([&] {
    return submit(reinterpret_cast<hipFileHandle_t>(handle), reinterpret_cast<void*>(buffer_base),
                  &io.size, &io.file_offset, &io.buffer_offset, &io.bytes_done,
                  reinterpret_cast<hipStream_t>(stream));
  });
}

// hipFileExtReadAsyncFixed / WriteAsyncFixed: the values are taken from the handle now and never
// read again (as on a stream registered with the FIXED flags); only bytes_done is written later.
template <typename Submit>
ErrTuple SubmitAsyncFixed(Submit submit, uintptr_t handle, uintptr_t buffer_base, AsyncIOHandle& io,
                          uintptr_t stream) {
  return CallReleased([&] {
    return submit(reinterpret_cast<hipFileHandle_t>(handle), reinterpret_cast<void*>(buffer_base),
                  io.size, io.file_offset, io.buffer_offset, &io.bytes_done,
                  reinterpret_cast<hipStream_t>(stream));
  });
}

void BindConstants(nb::module_& m) {
  m.attr("VERSION_MAJOR") = HIPFILE_VERSION_MAJOR;
  m.attr("VERSION_MINOR") = HIPFILE_VERSION_MINOR;
  m.attr("VERSION_PATCH") = HIPFILE_VERSION_PATCH;
  m.attr("BASE_ERR") = HIPFILE_BASE_ERR;
#define HIPFILE_PY_CONSTANT(name) m.attr(#name) = static_cast<int>(name)
  HIPFILE_PY_CONSTANT(hipFileSuccess);
  HIPFILE_PY_CONSTANT(hipFileDriverNotInitialized);
  HIPFILE_PY_CONSTANT(hipFileDriverInvalidProps);
  HIPFILE_PY_CONSTANT(hipFileDriverUnsupportedLimit);
  HIPFILE_PY_CONSTANT(hipFileDriverVersionMismatch);
  HIPFILE_PY_CONSTANT(hipFileDriverVersionReadError);
  HIPFILE_PY_CONSTANT(hipFileDriverClosing);
  HIPFILE_PY_CONSTANT(hipFilePlatformNotSupported);
  HIPFILE_PY_CONSTANT(hipFileIONotSupported);
  HIPFILE_PY_CONSTANT(hipFileDeviceNotSupported);
  HIPFILE_PY_CONSTANT(hipFileDriverError);
  HIPFILE_PY_CONSTANT(hipFileHipDriverError);
  HIPFILE_PY_CONSTANT(hipFileHipPointerInvalid);
  HIPFILE_PY_CONSTANT(hipFileHipMemoryTypeInvalid);
  HIPFILE_PY_CONSTANT(hipFileHipPointerRangeError);
  HIPFILE_PY_CONSTANT(hipFileHipContextMismatch);
  HIPFILE_PY_CONSTANT(hipFileInvalidMappingSize);
  HIPFILE_PY_CONSTANT(hipFileInvalidMappingRange);
  HIPFILE_PY_CONSTANT(hipFileInvalidFileType);
  HIPFILE_PY_CONSTANT(hipFileInvalidFileOpenFlag);
  HIPFILE_PY_CONSTANT(hipFileDIONotSet);
  HIPFILE_PY_CONSTANT(hipFileInvalidValue);
  HIPFILE_PY_CONSTANT(hipFileMemoryAlreadyRegistered);
  HIPFILE_PY_CONSTANT(hipFileMemoryNotRegistered);
  HIPFILE_PY_CONSTANT(hipFilePermissionDenied);
  HIPFILE_PY_CONSTANT(hipFileDriverAlreadyOpen);
  HIPFILE_PY_CONSTANT(hipFileHandleNotRegistered);
  HIPFILE_PY_CONSTANT(hipFileHandleAlreadyRegistered);
  HIPFILE_PY_CONSTANT(hipFileDeviceNotFound);
  HIPFILE_PY_CONSTANT(hipFileInternalError);
  HIPFILE_PY_CONSTANT(hipFileGetNewFDFailed);
  HIPFILE_PY_CONSTANT(hipFileDriverSetupError);
  HIPFILE_PY_CONSTANT(hipFileIODisabled);
  HIPFILE_PY_CONSTANT(hipFileBatchSubmitFailed);
  HIPFILE_PY_CONSTANT(hipFileGPUMemoryPinningFailed);
  HIPFILE_PY_CONSTANT(hipFileBatchFull);
  HIPFILE_PY_CONSTANT(hipFileAsyncNotSupported);
  HIPFILE_PY_CONSTANT(hipFileIOMaxError);
  HIPFILE_PY_CONSTANT(hipFileHandleTypeOpaqueFD);
  HIPFILE_PY_CONSTANT(hipFileHandleTypeOpaqueWin32);
  HIPFILE_PY_CONSTANT(hipFileHandleTypeUserspaceFS);
#undef HIPFILE_PY_CONSTANT
}

void BindErrors(nb::module_& m) {
  m.def(
      "is_hipfile_err", [](int err) { return std::abs(err) > HIPFILE_BASE_ERR; },
      nb::arg("err_code"), "IS_HIPFILE_ERR: whether a code is a hipFileOpError_t.");
  m.def(
      "hipfile_errstr",
      [](int err) {
        return std::string(
            OrEmpty(hipFileGetOpErrorString(static_cast<hipFileOpError_t>(std::abs(err)))));
      },
      nb::arg("err_code"), "HIPFILE_ERRSTR: the description of a (possibly negated) code.");
  m.def(
      "is_hip_drv_err",
      [](nb::tuple err) { return nb::cast<int>(err[0]) == hipFileHipDriverError; }, nb::arg("err"),
      "IS_HIP_DRV_ERR of an (err, hip_err) tuple.");
  m.def(
      "hip_drv_err", [](nb::tuple err) { return nb::borrow(err[1]); }, nb::arg("err"),
      "HIP_DRV_ERR: the hipError_t of an (err, hip_err) tuple.");
  m.def(
      "hipFileGetOpErrorString",
      [](int status) {
        return std::string(OrEmpty(hipFileGetOpErrorString(static_cast<hipFileOpError_t>(status))));
      },
      nb::arg("status"));
  m.def(
      "_op_error_name", [](int err) { return std::string(hipFileExtOpErrorName(err)); },
      nb::arg("err"), "The enumerator's name of a hipFile error code (hipFileExtOpErrorName).");
  m.def(
      "_hip_error_name",
      [](int err) { return std::string(OrEmpty(hipGetErrorName(static_cast<hipError_t>(err)))); },
      nb::arg("err"));
  m.def(
      "_hip_error_string",
      [](int err) { return std::string(OrEmpty(hipGetErrorString(static_cast<hipError_t>(err)))); },
      nb::arg("err"));
}

void BindDriver(nb::module_& m) {
  m.def("hipFileDriverOpen", [] {
    hipFileError_t e;
    {
      nb::gil_scoped_release release;
      e = hipFileDriverOpen();
    }
    return Err(e);
  });
  m.def("hipFileDriverClose", [] {
    hipFileError_t e;
    {
      nb::gil_scoped_release release;
      e = hipFileDriverClose();
    }
    return Err(e);
  });
  m.def("hipFileUseCount", [] {
    nb::gil_scoped_release release;
    return hipFileUseCount();
  });
  m.def("hipFileGetVersion", [] {
    unsigned major = 0, minor = 0, patch = 0;
    const hipFileError_t e = hipFileGetVersion(&major, &minor, &patch);
    return std::make_tuple(std::make_tuple(major, minor, patch), Err(e));
  });
  m.def("hipFileDriverGetProperties", [] {
    hipFileDriverProps_t props{};
    hipFileError_t e;
    {
      nb::gil_scoped_release release;
      e = hipFileDriverGetProperties(&props);
    }
    nb::dict d;
    d["nvfs_major_version"] = props.nvfs.major_version;
    d["nvfs_minor_version"] = props.nvfs.minor_version;
    d["nvfs_poll_thresh_size"] = props.nvfs.poll_thresh_size;
    d["nvfs_max_direct_io_size"] = props.nvfs.max_direct_io_size;
    d["nvfs_driver_status_flags"] = props.nvfs.driver_status_flags;
    d["nvfs_driver_control_flags"] = props.nvfs.driver_control_flags;
    d["feature_flags"] = props.feature_flags;
    d["max_device_cache_size"] = props.max_device_cache_size;
    d["per_buffer_cache_size"] = props.per_buffer_cache_size;
    d["max_device_pinned_mem_size"] = props.max_device_pinned_mem_size;
    d["max_batch_io_count"] = props.max_batch_io_count;
    d["max_batch_io_timeout_msecs"] = props.max_batch_io_timeout_msecs;
    return std::make_tuple(d, Err(e));
  });
}

void BindHandlesAndBuffers(nb::module_& m) {
  m.def(
      "hipFileHandleRegister",
      [](uintptr_t handle_value, int handle_type) {
        hipFileHandle_t fh = nullptr;
        hipFileDescr_t descr{};
        descr.type = static_cast<hipFileFileHandleType_t>(handle_type);
        descr.handle.fd = static_cast<int>(handle_value);
        hipFileError_t e;
        {
          nb::gil_scoped_release release;
          e = hipFileHandleRegister(&fh, &descr);
        }
        return std::make_tuple(reinterpret_cast<uintptr_t>(fh), Err(e));
      },
      nb::arg("handle_value"), nb::arg("handle_type"));
  m.def(
      "hipFileHandleDeregister",
      [](uintptr_t handle) {
        nb::gil_scoped_release release;
        hipFileHandleDeregister(reinterpret_cast<hipFileHandle_t>(handle));
      },
      nb::arg("handle"));
  m.def(
      "hipFileBufRegister",
      [](uintptr_t base, size_t length, int flags) {
        nb::gil_scoped_release release;
        return Err(hipFileBufRegister(reinterpret_cast<const void*>(base), length, flags));
      },
      nb::arg("buffer_base"), nb::arg("length"), nb::arg("flags") = 0);
  m.def(
      "hipFileBufDeregister",
      [](uintptr_t base) {
        nb::gil_scoped_release release;
        return Err(hipFileBufDeregister(reinterpret_cast<const void*>(base)));
      },
      nb::arg("buffer_base"));
}

void BindSyncIo(nb::module_& m) {
  m.def(
      "hipFileRead",
      [](uintptr_t handle, uintptr_t base, size_t size, hoff_t file_offset, hoff_t buffer_offset) {
        nb::gil_scoped_release release;
        errno = 0;
        return SyncResult(hipFileRead(reinterpret_cast<hipFileHandle_t>(handle),
                                      reinterpret_cast<void*>(base), size, file_offset,
                                      buffer_offset));
      },
      nb::arg("handle"), nb::arg("buffer_base"), nb::arg("size"), nb::arg("file_offset"),
      nb::arg("buffer_offset"));
  m.def(
      "hipFileWrite",
      [](uintptr_t handle, uintptr_t base, size_t size, hoff_t file_offset, hoff_t buffer_offset) {
        nb::gil_scoped_release release;
        errno = 0;
        return SyncResult(hipFileWrite(reinterpret_cast<hipFileHandle_t>(handle),
                                       reinterpret_cast<const void*>(base), size, file_offset,
                                       buffer_offset));
      },
      nb::arg("handle"), nb::arg("buffer_base"), nb::arg("size"), nb::arg("file_offset"),
      nb::arg("buffer_offset"));
  m.def(
      "_read_host",
      [](uintptr_t handle, uintptr_t base, size_t size, hoff_t file_offset) {
        nb::gil_scoped_release release;
        errno = 0;
        return SyncResult(hipFileExtReadHost(reinterpret_cast<hipFileHandle_t>(handle),
                                             reinterpret_cast<void*>(base), size, file_offset));
      },
      nb::arg("handle"), nb::arg("buffer_base"), nb::arg("size"), nb::arg("file_offset"),
      "hipFileExtReadHost: into host memory of any kind; (result, extra) as hipFileRead.");
  m.def(
      "_write_host",
      [](uintptr_t handle, uintptr_t base, size_t size, hoff_t file_offset) {
        nb::gil_scoped_release release;
        errno = 0;
        return SyncResult(hipFileExtWriteHost(reinterpret_cast<hipFileHandle_t>(handle),
                                              reinterpret_cast<const void*>(base), size,
                                              file_offset));
      },
      nb::arg("handle"), nb::arg("buffer_base"), nb::arg("size"), nb::arg("file_offset"),
      "hipFileExtWriteHost: from host memory of any kind; (result, extra) as hipFileWrite.");
}

void BindAsyncIo(nb::module_& m) {
  nb::class_<AsyncIOHandle>(m, "AsyncIOHandle", nb::dynamic_attr(),
                            "The size, offsets and result of one stream-ordered operation, owned "
                            "here because the library reads and writes them when the stream "
                            "reaches the operation: keep it alive until then; bytes_done is valid "
                            "after the stream has passed it.")
      .def(nb::init<size_t, hoff_t, hoff_t>(), nb::arg("size"), nb::arg("file_offset"),
           nb::arg("buffer_offset"))
      .def_prop_ro("bytes_done", [](const AsyncIOHandle& io) { return io.bytes_done; })
      .def_rw("size", &AsyncIOHandle::size)
      .def_rw("file_offset", &AsyncIOHandle::file_offset)
      .def_rw("buffer_offset", &AsyncIOHandle::buffer_offset);
  m.def(
      "hipFileReadAsync",
      [](uintptr_t handle, uintptr_t base, AsyncIOHandle& io, uintptr_t stream) {
        return SubmitAsync(hipFileReadAsync, handle, base, io, stream);
      },
      nb::arg("handle"), nb::arg("buffer_base"), nb::arg("io"), nb::arg("stream_handle"));
  m.def(
      "hipFileWriteAsync",
      [](uintptr_t handle, uintptr_t base, AsyncIOHandle& io, uintptr_t stream) {
        return SubmitAsync(
            [](hipFileHandle_t fh, void* b, size_t* s, hoff_t* f, hoff_t* o, ssize_t* d,
               hipStream_t st) { return hipFileWriteAsync(fh, b, s, f, o, d, st); },
            handle, base, io, stream);
      },
      nb::arg("handle"), nb::arg("buffer_base"), nb::arg("io"), nb::arg("stream_handle"));
  m.def(
      "hipFileExtReadAsyncFixed",
      [](uintptr_t handle, uintptr_t base, AsyncIOHandle& io, uintptr_t stream) {
        return SubmitAsyncFixed(hipFileExtReadAsyncFixed, handle, base, io, stream);
      },
      nb::arg("handle"), nb::arg("buffer_base"), nb::arg("io"), nb::arg("stream_handle"),
      "hipFileReadAsync with io's size and offsets taken now, never read again (hipfile_ext.h).");
  m.def(
      "hipFileExtWriteAsyncFixed",
      [](uintptr_t handle, uintptr_t base, AsyncIOHandle& io, uintptr_t stream) {
        return SubmitAsyncFixed(hipFileExtWriteAsyncFixed, handle, base, io, stream);
      },
      nb::arg("handle"), nb::arg("buffer_base"), nb::arg("io"), nb::arg("stream_handle"),
      "hipFileWriteAsync with io's size and offsets taken now, never read again (hipfile_ext.h).");
  m.def(
      "hipFileStreamRegister",
      [](uintptr_t stream, unsigned flags) {
        return CallReleased(
            [&] { return hipFileStreamRegister(reinterpret_cast<hipStream_t>(stream), flags); });
      },
      nb::arg("stream_handle"), nb::arg("flags") = 0);
  m.def(
      "hipFileStreamDeregister",
      [](uintptr_t stream) {
        return CallReleased(
            [&] { return hipFileStreamDeregister(reinterpret_cast<hipStream_t>(stream)); });
      },
      nb::arg("stream_handle"));
  m.def("supports_async", [] {
    nb::gil_scoped_release release;
    const hipFileError_t e = hipFileStreamRegister(nullptr, 0);
    if (e.err == hipFileSuccess) (void)hipFileStreamDeregister(nullptr);
    return e.err != hipFileAsyncNotSupported;
  });
}

// hipMalloc / hipFree of the HIP subset the library exports (AMD's provisional hipfile.hipMalloc).
void BindHipMemory(nb::module_& m) {
  m.def(
      "_hip_malloc",
      [](size_t size) {
        void* p = nullptr;
        hipError_t e;
        {
          nb::gil_scoped_release release;
          e = hipMalloc(&p, size);
        }
        return std::make_tuple(reinterpret_cast<uintptr_t>(p), static_cast<int>(e));
      },
      nb::arg("size"));
  m.def(
      "_hip_free",
      [](uintptr_t p) {
        nb::gil_scoped_release release;
        return static_cast<int>(hipFree(reinterpret_cast<void*>(p)));
      },
      nb::arg("ptr"));
  m.def(
      "_hip_host_register",
      [](uintptr_t p, size_t size) {
        nb::gil_scoped_release release;
        return static_cast<int>(
            hipHostRegister(reinterpret_cast<void*>(p), size, hipHostRegisterDefault));
      },
      nb::arg("ptr"), nb::arg("size"));
  m.def(
      "_hip_host_unregister",
      [](uintptr_t p) {
        nb::gil_scoped_release release;
        return static_cast<int>(hipHostUnregister(reinterpret_cast<void*>(p)));
      },
      nb::arg("ptr"));
  m.def("_hip_device_synchronize", [] {
    nb::gil_scoped_release release;
    return static_cast<int>(hipDeviceSynchronize());
  });
  m.def("_hip_stream_create", [] {
    hipStream_t s = nullptr;
    hipError_t e;
    {
      nb::gil_scoped_release release;
      e = hipStreamCreate(&s);
    }
    return std::make_tuple(reinterpret_cast<uintptr_t>(s), static_cast<int>(e));
  });
  m.def(
      "_hip_stream_synchronize",
      [](uintptr_t s) {
        nb::gil_scoped_release release;
        return static_cast<int>(hipStreamSynchronize(reinterpret_cast<hipStream_t>(s)));
      },
      nb::arg("stream"));
  m.def(
      "_hip_stream_destroy",
      [](uintptr_t s) {
        nb::gil_scoped_release release;
        return static_cast<int>(hipStreamDestroy(reinterpret_cast<hipStream_t>(s)));
      },
      nb::arg("stream"));
  m.def(
      "_hip_memcpy",
      [](uintptr_t dst, uintptr_t src, size_t size) {
        nb::gil_scoped_release release;
        return static_cast<int>(hipMemcpy(reinterpret_cast<void*>(dst),
                                          reinterpret_cast<const void*>(src), size,
                                          hipMemcpyDefault));
      },
      nb::arg("dst"), nb::arg("src"), nb::arg("size"));
}

}  // namespace

void BindLowLevel(nb::module_& m) {
  BindConstants(m);
  BindErrors(m);
  BindDriver(m);
  BindHandlesAndBuffers(m);
  BindSyncIo(m);
  BindAsyncIo(m);
  BindHipMemory(m);
}

}  // namespace hipfile::python
