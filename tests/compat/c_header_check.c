// SPDX-License-Identifier: MIT
/* Compiled as C11 and C2x with -Werror: the public headers must be valid C. */
#include <hip/hip_runtime_api.h>
#include <hipfile.h>

int hipfile_c_header_check(void);

int hipfile_c_header_check(void) {
  hipFileDescr_t descr = {0};
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = -1;
  hipFileIOParams_t params = {0};
  params.mode = hipFileBatch;
  hipFileStatsLevel3_t stats;
  (void)stats;
  hipDeviceProp_t prop = {0};
  prop.arch.hasDoubles = 1;
  hipDeviceAttribute_t attribute = hipDeviceAttributePciDomainID;
  hipDeviceptr_t dptr = NULL;
  (void)dptr;
  return (int)sizeof(hipFileDriverProps_t) + (int)params.mode + (int)descr.type +
         IS_HIPFILE_ERR(hipFileInvalidValue) + HIPFILE_STREAM_FLAGS_MASK + prop.major +
         (int)attribute + hipMemAttachGlobal;
}
