// SPDX-License-Identifier: MIT
// A timeline of what a process's GPU streams ran (issue 21: where a part's stop goes), from
// CUPTI's activity records: every kernel, copy and memset with the GPU's own start and end
// times and its stream. Loaded into a program unchanged, by LD_PRELOAD:
//
//   CUPTI_TRACE_OUT=trace.csv LD_PRELOAD=cupti-trace.so hipfile-bench ...
//
// Lines (times in ns on CUPTI's clock, one per record, in the order CUPTI hands them over):
//   K,stream,start,end,grid,name        a kernel
//   M,stream,start,end,bytes,copy_kind  a copy (copy_kind as CUpti_ActivityMemcpyKind: 1 = HtoD,
//                                       2 = DtoH, 8 = DtoD, ...)
//   S,stream,start,end,bytes            a memset
//   D,dropped_records                   records CUPTI dropped (its buffers were full)
// Stream memory operations (wait and write value) have no records: they show as the gaps.
// bench/probes/trace-gaps.py reads the file. Built on the GPU machine against its own CUPTI
// (bench/probes/trace-h200.sh), since a record's layout follows the CUPTI it was built with.
#include <cupti.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <mutex>

namespace {

constexpr size_t kBufferBytes = 16u << 20;
constexpr size_t kAlign = 8;

std::mutex g_mu;
FILE* g_out = nullptr;

void Report(const char* what, CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  std::fprintf(stderr, "cupti-trace: %s: %s\n", what, s ? s : "?");
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  void* p = nullptr;
  if (posix_memalign(&p, kAlign, kBufferBytes) != 0) p = nullptr;
  *buffer = static_cast<uint8_t*>(p);
  *size = p ? kBufferBytes : 0;
  *max_records = 0;
}

void Write(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel4*>(record);
      std::fprintf(g_out, "K,%u,%llu,%llu,%d,%s\n", k->streamId,
                   static_cast<unsigned long long>(k->start),
                   static_cast<unsigned long long>(k->end), k->gridX, k->name ? k->name : "?");
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy5*>(record);
      std::fprintf(g_out, "M,%u,%llu,%llu,%llu,%u\n", m->streamId,
                   static_cast<unsigned long long>(m->start),
                   static_cast<unsigned long long>(m->end),
                   static_cast<unsigned long long>(m->bytes), static_cast<unsigned>(m->copyKind));
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      std::fprintf(
          g_out, "S,%u,%llu,%llu,%llu\n", m->streamId, static_cast<unsigned long long>(m->start),
          static_cast<unsigned long long>(m->end), static_cast<unsigned long long>(m->bytes));
      break;
    }
    default:
      break;
  }
}

void CUPTIAPI BufferCompleted(CUcontext ctx, uint32_t stream_id, uint8_t* buffer, size_t size,
                              size_t valid) {
  (void)stream_id;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    CUpti_Activity* record = nullptr;
    while (g_out && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
      Write(record);
    }
    size_t dropped = 0;
    if (g_out && cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS &&
        dropped) {
      std::fprintf(g_out, "D,%zu\n", dropped);
    }
  }
  (void)size;
  std::free(buffer);
}

void Finish() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_out) {
    std::fclose(g_out);
    g_out = nullptr;
  }
}

__attribute__((constructor)) void Start() {
  const char* path = std::getenv("CUPTI_TRACE_OUT");
  if (!path) return;
  g_out = std::fopen(path, "w");
  if (!g_out) {
    std::perror(path);
    return;
  }
  CUptiResult r = cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted);
  if (r != CUPTI_SUCCESS) return Report("register callbacks", r);
  for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                  CUPTI_ACTIVITY_KIND_MEMSET}) {
    r = cuptiActivityEnable(kind);
    if (r != CUPTI_SUCCESS) Report("enable", r);
  }
  cuptiActivityFlushPeriod(200);  // hand buffers over as the run goes, not only at the end
  std::atexit(Finish);
}

}  // namespace
