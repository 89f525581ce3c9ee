// SPDX-License-Identifier: MIT
#include "runtime/cuda/cuda_attributes.h"

namespace hipfile::runtime {
namespace {

struct Mapping {
  hipDeviceAttribute_t hip;
  int cu;  // CUdevice_attribute; the names are cuda.h's CU_DEVICE_ATTRIBUTE_<name>
};

constexpr Mapping kMappings[] = {
    {hipDeviceAttributeEccEnabled, 32},                         // ECC_ENABLED
    {hipDeviceAttributeAccessPolicyMaxWindowSize, 109},         // MAX_ACCESS_POLICY_WINDOW_SIZE
    {hipDeviceAttributeAsyncEngineCount, 40},                   // ASYNC_ENGINE_COUNT
    {hipDeviceAttributeCanMapHostMemory, 19},                   // CAN_MAP_HOST_MEMORY
    {hipDeviceAttributeCanUseHostPointerForRegisteredMem, 91},  // CAN_USE_HOST_POINTER_FOR_...
    {hipDeviceAttributeClockRate, 13},                          // CLOCK_RATE
    {hipDeviceAttributeComputeMode, 20},                        // COMPUTE_MODE
    {hipDeviceAttributeComputePreemptionSupported, 90},         // COMPUTE_PREEMPTION_SUPPORTED
    {hipDeviceAttributeConcurrentKernels, 31},                  // CONCURRENT_KERNELS
    {hipDeviceAttributeConcurrentManagedAccess, 89},            // CONCURRENT_MANAGED_ACCESS
    {hipDeviceAttributeCooperativeLaunch, 95},                  // COOPERATIVE_LAUNCH
    {hipDeviceAttributeCooperativeMultiDeviceLaunch, 96},       // COOPERATIVE_MULTI_DEVICE_LAUNCH
    {hipDeviceAttributeDeviceOverlap, 15},                      // GPU_OVERLAP
    {hipDeviceAttributeDirectManagedMemAccessFromHost, 101},    // DIRECT_MANAGED_MEM_ACCESS_...
    {hipDeviceAttributeGlobalL1CacheSupported, 79},             // GLOBAL_L1_CACHE_SUPPORTED
    {hipDeviceAttributeHostNativeAtomicSupported, 86},          // HOST_NATIVE_ATOMIC_SUPPORTED
    {hipDeviceAttributeIntegrated, 18},                         // INTEGRATED
    {hipDeviceAttributeIsMultiGpuBoard, 84},                    // MULTI_GPU_BOARD
    {hipDeviceAttributeKernelExecTimeout, 17},                  // KERNEL_EXEC_TIMEOUT
    {hipDeviceAttributeL2CacheSize, 38},                        // L2_CACHE_SIZE
    {hipDeviceAttributeLocalL1CacheSupported, 80},              // LOCAL_L1_CACHE_SUPPORTED
    {hipDeviceAttributeComputeCapabilityMajor, 75},             // COMPUTE_CAPABILITY_MAJOR
    {hipDeviceAttributeManagedMemory, 83},                      // MANAGED_MEMORY
    {hipDeviceAttributeMaxBlocksPerMultiProcessor, 106},        // MAX_BLOCKS_PER_MULTIPROCESSOR
    {hipDeviceAttributeMaxBlockDimX, 2},                        // MAX_BLOCK_DIM_X
    {hipDeviceAttributeMaxBlockDimY, 3},                        // MAX_BLOCK_DIM_Y
    {hipDeviceAttributeMaxBlockDimZ, 4},                        // MAX_BLOCK_DIM_Z
    {hipDeviceAttributeMaxGridDimX, 5},                         // MAX_GRID_DIM_X
    {hipDeviceAttributeMaxGridDimY, 6},                         // MAX_GRID_DIM_Y
    {hipDeviceAttributeMaxGridDimZ, 7},                         // MAX_GRID_DIM_Z
    {hipDeviceAttributeMaxThreadsPerBlock, 1},                  // MAX_THREADS_PER_BLOCK
    {hipDeviceAttributeMaxThreadsPerMultiProcessor, 39},        // MAX_THREADS_PER_MULTIPROCESSOR
    {hipDeviceAttributeMaxPitch, 11},                           // MAX_PITCH
    {hipDeviceAttributeMemoryBusWidth, 37},                     // GLOBAL_MEMORY_BUS_WIDTH
    {hipDeviceAttributeMemoryClockRate, 36},                    // MEMORY_CLOCK_RATE
    {hipDeviceAttributeComputeCapabilityMinor, 76},             // COMPUTE_CAPABILITY_MINOR
    {hipDeviceAttributeMultiGpuBoardGroupID, 85},               // MULTI_GPU_BOARD_GROUP_ID
    {hipDeviceAttributeMultiprocessorCount, 16},                // MULTIPROCESSOR_COUNT
    {hipDeviceAttributePageableMemoryAccess, 88},               // PAGEABLE_MEMORY_ACCESS
    {hipDeviceAttributePageableMemoryAccessUsesHostPageTables, 100},  // ..._USES_HOST_PAGE_TABLES
    {hipDeviceAttributePciBusId, 33},                                 // PCI_BUS_ID
    {hipDeviceAttributePciDeviceId, 34},                              // PCI_DEVICE_ID
    {hipDeviceAttributePciDomainID, 50},                              // PCI_DOMAIN_ID
    {hipDeviceAttributePersistingL2CacheMaxSize, 108},          // MAX_PERSISTING_L2_CACHE_SIZE
    {hipDeviceAttributeMaxRegistersPerBlock, 12},               // MAX_REGISTERS_PER_BLOCK
    {hipDeviceAttributeMaxRegistersPerMultiprocessor, 82},      // MAX_REGISTERS_PER_MULTIPROC...
    {hipDeviceAttributeReservedSharedMemPerBlock, 111},         // RESERVED_SHARED_MEMORY_PER_BLOCK
    {hipDeviceAttributeMaxSharedMemoryPerBlock, 8},             // MAX_SHARED_MEMORY_PER_BLOCK
    {hipDeviceAttributeSharedMemPerBlockOptin, 97},             // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    {hipDeviceAttributeSharedMemPerMultiprocessor, 81},         // MAX_SHARED_MEMORY_PER_MULTIPR...
    {hipDeviceAttributeSingleToDoublePrecisionPerfRatio, 87},   // SINGLE_TO_DOUBLE_PRECISION_...
    {hipDeviceAttributeStreamPrioritiesSupported, 78},          // STREAM_PRIORITIES_SUPPORTED
    {hipDeviceAttributeSurfaceAlignment, 30},                   // SURFACE_ALIGNMENT
    {hipDeviceAttributeTccDriver, 35},                          // TCC_DRIVER
    {hipDeviceAttributeTextureAlignment, 14},                   // TEXTURE_ALIGNMENT
    {hipDeviceAttributeTexturePitchAlignment, 51},              // TEXTURE_PITCH_ALIGNMENT
    {hipDeviceAttributeTotalConstantMemory, 9},                 // TOTAL_CONSTANT_MEMORY
    {hipDeviceAttributeUnifiedAddressing, 41},                  // UNIFIED_ADDRESSING
    {hipDeviceAttributeWarpSize, 10},                           // WARP_SIZE
    {hipDeviceAttributeMemoryPoolsSupported, 115},              // MEMORY_POOLS_SUPPORTED
    {hipDeviceAttributeVirtualMemoryManagementSupported, 102},  // VIRTUAL_MEMORY_MANAGEMENT_...
    {hipDeviceAttributeHostRegisterSupported, 99},              // HOST_REGISTER_SUPPORTED
    {hipDeviceAttributeMemoryPoolSupportedHandleTypes, 119},    // MEMPOOL_SUPPORTED_HANDLE_TYPES
};

}  // namespace

int CudaDeviceAttributeOf(hipDeviceAttribute_t attribute) {
  for (const Mapping& m : kMappings) {
    if (m.hip == attribute) return m.cu;
  }
  return -1;
}

}  // namespace hipfile::runtime
