// SPDX-License-Identifier: MIT
#include "observe.h"

#include <hipfile.h>
#include <hipfile_ext.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <string>
#include <tuple>

#include "results.h"

namespace nb = nanobind;

namespace hipfile::python {
namespace {

nb::dict Counter(const hipFileOpCounter_t& c) {
  nb::dict d;
  d["ok"] = c.ok;
  d["err"] = c.err;
  return d;
}

std::tuple<nb::dict, ErrTuple> StatsL1() {
  hipFileStatsLevel1_t s{};
  hipFileError_t e;
  {
    nb::gil_scoped_release release;
    e = hipFileGetStatsL1(&s);
  }
  nb::dict d;
  d["read_ops"] = Counter(s.read_ops);
  d["write_ops"] = Counter(s.write_ops);
  d["hdl_register_ops"] = Counter(s.hdl_register_ops);
  d["hdl_deregister_ops"] = Counter(s.hdl_deregister_ops);
  d["buf_register_ops"] = Counter(s.buf_register_ops);
  d["buf_deregister_ops"] = Counter(s.buf_deregister_ops);
  d["read_bytes"] = s.read_bytes;
  d["write_bytes"] = s.write_bytes;
  d["read_lat_avg_us"] = s.read_lat_avg_us;
  d["write_lat_avg_us"] = s.write_lat_avg_us;
  d["read_lat_sum_us"] = s.read_lat_sum_us;
  d["write_lat_sum_us"] = s.write_lat_sum_us;
  d["batch_submit_ops"] = Counter(s.batch_submit_ops);
  d["batch_complete_ops"] = Counter(s.batch_complete_ops);
  d["batch_setup_ops"] = Counter(s.batch_setup_ops);
  d["batch_cancel_ops"] = Counter(s.batch_cancel_ops);
  d["batch_destroy_ops"] = Counter(s.batch_destroy_ops);
  d["batch_enqueued_ops"] = Counter(s.batch_enqueued_ops);
  d["batch_processed_ops"] = Counter(s.batch_processed_ops);
  d["batch_read_bytes"] = s.batch_read_bytes;
  d["batch_write_bytes"] = s.batch_write_bytes;
  return {d, Err(e)};
}

std::tuple<nb::dict, ErrTuple> PathStats() {
  hipFileExtPathStats_t s{};
  const hipFileError_t e = hipFileExtGetPathStats(&s);
  nb::dict paths;
  for (int p = 0; p < HIPFILE_EXT_PATH_COUNT; ++p) {
    nb::dict d;
    d["read_bytes"] = s.read_bytes[p];
    d["write_bytes"] = s.write_bytes[p];
    d["read_ops"] = s.read_ops[p];
    d["write_ops"] = s.write_ops[p];
    paths[hipFileExtPathName(p)] = d;
  }
  nb::dict reasons;
  for (int r = 1; r < HIPFILE_EXT_FALLBACK_COUNT; ++r) {
    nb::dict d;
    d["read_bytes"] = s.read_fallback_bytes[r];
    d["write_bytes"] = s.write_fallback_bytes[r];
    reasons[hipFileExtFallbackName(r)] = d;
  }
  nb::dict out;
  out["paths"] = paths;
  out["buffered_by_reason"] = reasons;
  return {out, Err(e)};
}

std::tuple<nb::dict, ErrTuple> AsyncWayStats() {
  hipFileExtAsyncWayStats_t s{};
  const hipFileError_t e = hipFileExtGetAsyncWayStats(&s);
  nb::dict ways;
  for (int w = 0; w < HIPFILE_EXT_ASYNC_WAY_COUNT; ++w) {
    nb::dict d;
    d["read_ops"] = s.read_ops[w];
    d["write_ops"] = s.write_ops[w];
    ways[hipFileExtAsyncWayName(w)] = d;
  }
  ways["large_chunks"] = s.large_chunks;
  ways["chains_alone"] = s.chains_alone;
  ways["staging_waits"] = s.staging_waits;
  ways["copied_ahead"] = s.copied_ahead;
  ways["used_ahead"] = s.used_ahead;
  ways["ahead_on_companion"] = s.ahead_on_companion;
  ways["one_launch"] = s.one_launch;
  ways["ahead_in_parts"] = s.ahead_in_parts;
  ways["ahead_not_pinned"] = s.ahead_not_pinned;
  ways["ahead_no_room"] = s.ahead_no_room;
  ways["ahead_windows_chosen"] = s.ahead_windows_chosen;
  return {ways, Err(e)};
}

std::tuple<nb::dict, ErrTuple> CopyWaitStats() {
  hipFileExtCopyWaitStats_t s{};
  const hipFileError_t e = hipFileExtGetCopyWaitStats(&s);
  nb::dict waits;
  waits["waits"] = s.waits;
  waits["slept"] = s.slept;
  waits["poll_ns"] = s.poll_ns;
  waits["sleep_ns"] = s.sleep_ns;
  return {waits, Err(e)};
}

void BindParameters(nb::module_& m) {
  m.def(
      "_get_size_t",
      [](int param) {
        size_t v = 0;
        const hipFileError_t e =
            hipFileGetParameterSizeT(static_cast<hipFileSizeTConfigParameter_t>(param), &v);
        return std::make_tuple(v, Err(e));
      },
      nb::arg("param"));
  m.def(
      "_get_bool",
      [](int param) {
        bool v = false;
        const hipFileError_t e =
            hipFileGetParameterBool(static_cast<hipFileBoolConfigParameter_t>(param), &v);
        return std::make_tuple(v, Err(e));
      },
      nb::arg("param"));
  m.def(
      "_get_string",
      [](int param) {
        char buf[4096] = {};
        const hipFileError_t e = hipFileGetParameterString(
            static_cast<hipFileStringConfigParameter_t>(param), buf, sizeof(buf));
        return std::make_tuple(std::string(buf), Err(e));
      },
      nb::arg("param"));
  m.def(
      "_set_size_t",
      [](int param, size_t v) {
        return Err(hipFileSetParameterSizeT(static_cast<hipFileSizeTConfigParameter_t>(param), v));
      },
      nb::arg("param"), nb::arg("value"));
  m.def(
      "_set_bool",
      [](int param, bool v) {
        return Err(hipFileSetParameterBool(static_cast<hipFileBoolConfigParameter_t>(param), v));
      },
      nb::arg("param"), nb::arg("value"));
  m.def(
      "_set_string",
      [](int param, const std::string& v) {
        return Err(hipFileSetParameterString(static_cast<hipFileStringConfigParameter_t>(param),
                                             v.c_str()));
      },
      nb::arg("param"), nb::arg("value"));
}

}  // namespace

void BindObserve(nb::module_& m) {
  m.def("_stats_l1", &StatsL1, "hipFileGetStatsL1 as (dict, err).");
  m.def("_path_stats", &PathStats, "hipFileExtGetPathStats as (dict, err).");
  m.def("_async_way_stats", &AsyncWayStats, "hipFileExtGetAsyncWayStats as (dict, err).");
  m.def("_copy_wait_stats", &CopyWaitStats, "hipFileExtGetCopyWaitStats as (dict, err).");
  m.def("_runtime_name", [] { return std::string(hipFileExtRuntimeName()); });
  m.def("_runtime_reason", [] { return std::string(hipFileExtRuntimeReason()); });
  BindParameters(m);
}

}  // namespace hipfile::python
