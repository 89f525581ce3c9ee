// SPDX-License-Identifier: MIT
/* Compiled as C11 and C2x with -Werror: the cuFile drop-in's header must be valid C. */
#include <cufile/cufile.h>

int hipfile_cufile_c_header_check(void);

int hipfile_cufile_c_header_check(void) {
  CUfileDescr_t descr = {0};
  descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
  descr.handle.fd = -1;
  CUfileIOParams_t params = {0};
  params.mode = CUFILE_BATCH;
  CUfileStatsLevel3_t stats;
  (void)stats;
  CUfileError_t status = {CU_FILE_INVALID_VALUE, CUDA_SUCCESS};
  const char* text = CUFILE_ERRSTR(-CU_FILE_INVALID_VALUE);
  return (int)sizeof(CUfileDrvProps_t) + (int)params.mode + (int)descr.type +
         IS_CUFILE_ERR(status.err) + IS_CUDA_ERR(status) + (int)CU_FILE_CUDA_ERR(status) +
         CU_FILE_STREAM_PAGE_ALIGNED_INPUTS + (int)text[0];
}
