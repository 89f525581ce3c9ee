// SPDX-License-Identifier: MIT
#include "batch.h"

#include <hipfile.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>
#include <time.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "results.h"

namespace nb = nanobind;

namespace hipfile::python {
namespace {

// (fh, pointer, size, file_offset, buffer_offset, is_write, cookie)
using Entry = std::tuple<uintptr_t, uintptr_t, size_t, int64_t, int64_t, bool, uintptr_t>;
// (cookie, status, ret as a signed value)
using Event = std::tuple<uintptr_t, int, int64_t>;

}  // namespace

void BindBatch(nb::module_& m) {
  m.def(
      "_batch_setup",
      [](unsigned max_nr) {
        hipFileBatchHandle_t batch = nullptr;
        hipFileError_t e;
        {
          nb::gil_scoped_release release;
          e = hipFileBatchIOSetUp(&batch, max_nr);
        }
        return std::make_tuple(reinterpret_cast<uintptr_t>(batch), Err(e));
      },
      nb::arg("max_nr"));
  m.def(
      "_batch_submit",
      [](uintptr_t batch, const std::vector<Entry>& entries) {
        std::vector<hipFileIOParams_t> params(entries.size());
        for (size_t i = 0; i < entries.size(); ++i) {
          const auto& [fh, ptr, size, file_offset, buffer_offset, is_write, cookie] = entries[i];
          hipFileIOParams_t& p = params[i];
          p.mode = hipFileBatch;
          p.fh = reinterpret_cast<hipFileHandle_t>(fh);
          p.opcode = is_write ? hipFileBatchWrite : hipFileBatchRead;
          p.cookie = reinterpret_cast<void*>(cookie);
          p.u.batch.devPtr_base = reinterpret_cast<void*>(ptr);
          p.u.batch.file_offset = file_offset;
          p.u.batch.devPtr_offset = buffer_offset;
          p.u.batch.size = size;
        }
        nb::gil_scoped_release release;
        return Err(hipFileBatchIOSubmit(reinterpret_cast<hipFileBatchHandle_t>(batch),
                                        static_cast<unsigned>(params.size()), params.data(), 0));
      },
      nb::arg("batch"), nb::arg("entries"));
  m.def(
      "_batch_status",
      [](uintptr_t batch, unsigned min_nr, unsigned max_nr, std::optional<double> timeout) {
        std::vector<hipFileIOEvents_t> events(max_nr == 0 ? 1 : max_nr);
        unsigned nr = max_nr;
        struct timespec ts {};
        struct timespec* tsp = nullptr;
        if (timeout) {
          const double t = *timeout < 0 ? 0 : *timeout;
          ts.tv_sec = static_cast<time_t>(std::floor(t));
          ts.tv_nsec = static_cast<long>((t - std::floor(t)) * 1e9);
          if (ts.tv_nsec >= 1000000000L) ts.tv_nsec = 999999999L;
          tsp = &ts;
        }
        hipFileError_t e;
        {
          nb::gil_scoped_release release;
          e = hipFileBatchIOGetStatus(reinterpret_cast<hipFileBatchHandle_t>(batch), min_nr, &nr,
                                      events.data(), tsp);
        }
        std::vector<Event> out;
        if (e.err == hipFileSuccess) {
          for (unsigned i = 0; i < nr; ++i) {
            out.emplace_back(reinterpret_cast<uintptr_t>(events[i].cookie),
                             static_cast<int>(events[i].status),
                             static_cast<int64_t>(static_cast<ssize_t>(events[i].ret)));
          }
        }
        return std::make_tuple(out, Err(e));
      },
      nb::arg("batch"), nb::arg("min_nr"), nb::arg("max_nr"), nb::arg("timeout") = nb::none());
  m.def(
      "_batch_cancel",
      [](uintptr_t batch) {
        nb::gil_scoped_release release;
        return Err(hipFileBatchIOCancel(reinterpret_cast<hipFileBatchHandle_t>(batch)));
      },
      nb::arg("batch"));
  m.def(
      "_batch_destroy",
      [](uintptr_t batch) {
        nb::gil_scoped_release release;
        hipFileBatchIODestroy(reinterpret_cast<hipFileBatchHandle_t>(batch));
      },
      nb::arg("batch"));
  m.attr("_STATUS_WAITING") = static_cast<int>(hipFileWaiting);
  m.attr("_STATUS_PENDING") = static_cast<int>(hipFilePending);
  m.attr("_STATUS_INVALID") = static_cast<int>(hipFileInvalid);
  m.attr("_STATUS_CANCELED") = static_cast<int>(hipFileCanceled);
  m.attr("_STATUS_COMPLETE") = static_cast<int>(hipFileComplete);
  m.attr("_STATUS_TIMEOUT") = static_cast<int>(hipFileTimeout);
  m.attr("_STATUS_FAILED") = static_cast<int>(hipFileFailed);
}

}  // namespace hipfile::python
