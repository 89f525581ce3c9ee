// SPDX-License-Identifier: MIT
/* A stand-in for a profiler's NVTX injection library (what Nsight Systems loads through
 * NVTX_INJECTION64_PATH): it takes over the core range calls and appends one line per call to
 * the file FAKE_NVTX_OUT names - "push NAME" or "pop" - so a test can see the library's ranges
 * without a profiler. Built against the CUDA toolkit's NVTX 3 headers, as the library is. */
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>

static FILE* g_out;

static int FakePush(const char* message) {
  if (g_out != NULL) fprintf(g_out, "push %s\n", message);
  return 0;
}

static int FakePop(void) {
  if (g_out != NULL) fprintf(g_out, "pop\n");
  return 0;
}

/* NVTX calls this once, with the function that hands out its export tables. */
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  const NvtxExportTableCallbacks* callbacks =
      (const NvtxExportTableCallbacks*)get_export_table(NVTX_ETID_CALLBACKS);
  NvtxFunctionTable table = NULL;
  unsigned int size = 0;
  if (callbacks == NULL || !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) ||
      size <= NVTX_CBID_CORE_RangePop) {
    return 0;
  }
  const char* path = getenv("FAKE_NVTX_OUT");
  g_out = path != NULL ? fopen(path, "a") : NULL;
  if (g_out != NULL) setvbuf(g_out, NULL, _IOLBF, 0);
  *table[NVTX_CBID_CORE_RangePushA] = (NvtxFunctionPointer)FakePush;
  *table[NVTX_CBID_CORE_RangePop] = (NvtxFunctionPointer)FakePop;
  return 1;
}
