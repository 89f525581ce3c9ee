// SPDX-License-Identifier: MIT
// Just enough of <cuda.h> for NVIDIA's cufile.h to compile in the layout test, where no CUDA
// toolkit is installed: the two driver API types it names, with <cuda.h>'s tags.
#ifndef __cuda_cuda_h__
#define __cuda_cuda_h__
typedef enum cudaError_enum { CUDA_SUCCESS = 0 } CUresult;
typedef struct CUstream_st* CUstream;
#endif
