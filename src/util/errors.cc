// SPDX-License-Identifier: MIT
#include "util/errors.h"

namespace hipfile {

namespace {

struct OpEntry {
  const char* name;
  const char* text;
};

// Indexed by value - HIPFILE_BASE_ERR (hipFileSuccess at 0 by hand).
constexpr OpEntry kOpErrors[] = {
    {"hipFileDriverNotInitialized",
     "driver is not initialized; call hipFileDriverOpen or register a file or buffer first"},
    {"hipFileDriverInvalidProps", "invalid driver properties"},
    {"hipFileDriverUnsupportedLimit", "driver limit not supported"},
    {"hipFileDriverVersionMismatch", "driver version mismatch"},
    {"hipFileDriverVersionReadError", "driver version could not be read"},
    {"hipFileDriverClosing", "driver is closing or closed"},
    {"hipFilePlatformNotSupported", "platform not supported"},
    {"hipFileIONotSupported", "I/O not supported for this file or handle type"},
    {"hipFileDeviceNotSupported", "device not supported"},
    {"hipFileDriverError", "driver error"},
    {"hipFileHipDriverError", "GPU driver error: Inspect hip_drv_err for additional information"},
    {"hipFileHipPointerInvalid", "invalid GPU pointer"},
    {"hipFileHipMemoryTypeInvalid", "invalid GPU memory type for this operation"},
    {"hipFileHipPointerRangeError", "pointer range lies outside the GPU allocation"},
    {"hipFileHipContextMismatch", "GPU context mismatch"},
    {"hipFileInvalidMappingSize", "invalid mapping size"},
    {"hipFileInvalidMappingRange", "invalid mapping range"},
    {"hipFileInvalidFileType", "invalid file type"},
    {"hipFileInvalidFileOpenFlag", "invalid file open flags"},
    {"hipFileDIONotSet", "O_DIRECT is not set on the file descriptor"},
    {nullptr, nullptr},  // unused value
    {"hipFileInvalidValue", "invalid arguments"},
    {"hipFileMemoryAlreadyRegistered", "memory is already registered"},
    {"hipFileMemoryNotRegistered", "memory is not registered"},
    {"hipFilePermissionDenied", "permission denied"},
    {"hipFileDriverAlreadyOpen", "driver is already open"},
    {"hipFileHandleNotRegistered", "file handle is not registered"},
    {"hipFileHandleAlreadyRegistered", "file handle is already registered"},
    {"hipFileDeviceNotFound", "GPU device not found"},
    {"hipFileInternalError", "internal error"},
    {"hipFileGetNewFDFailed", "could not open a new file descriptor"},
    {nullptr, nullptr},  // unused value
    {"hipFileDriverSetupError", "driver setup error"},
    {"hipFileIODisabled", "GPU I/O is disabled by the configuration"},
    {"hipFileBatchSubmitFailed", "batch submission failed"},
    {"hipFileGPUMemoryPinningFailed", "GPU memory pinning failed"},
    {"hipFileBatchFull", "batch is full"},
    {"hipFileAsyncNotSupported", "stream-ordered I/O is not supported"},
};

const OpEntry* FindOp(int e) {
  if (e == hipFileSuccess) {
    static constexpr OpEntry kSuccess = {"hipFileSuccess", "hipFile success"};
    return &kSuccess;
  }
  const long index = static_cast<long>(e) - HIPFILE_BASE_ERR - 1;
  if (index < 0 || index >= static_cast<long>(sizeof kOpErrors / sizeof kOpErrors[0]))
    return nullptr;
  return kOpErrors[index].name ? &kOpErrors[index] : nullptr;
}

struct GpuEntry {
  hipError_t code;
  const char* name;
  const char* text;
};

constexpr GpuEntry kGpuErrors[] = {
    {hipSuccess, "hipSuccess", "no error"},
    {hipErrorInvalidValue, "hipErrorInvalidValue", "invalid argument"},
    {hipErrorOutOfMemory, "hipErrorOutOfMemory", "out of memory"},
    {hipErrorNotInitialized, "hipErrorNotInitialized", "initialization error"},
    {hipErrorDeinitialized, "hipErrorDeinitialized", "driver shutting down"},
    {hipErrorInvalidConfiguration, "hipErrorInvalidConfiguration",
     "invalid configuration argument"},
    {hipErrorInvalidSymbol, "hipErrorInvalidSymbol", "invalid device symbol"},
    {hipErrorInvalidDevicePointer, "hipErrorInvalidDevicePointer", "invalid device pointer"},
    {hipErrorInvalidMemcpyDirection, "hipErrorInvalidMemcpyDirection",
     "invalid copy direction for memcpy"},
    {hipErrorInsufficientDriver, "hipErrorInsufficientDriver",
     "driver version is insufficient for runtime version"},
    {hipErrorNoDevice, "hipErrorNoDevice", "no GPU device is detected"},
    {hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal"},
    {hipErrorInvalidImage, "hipErrorInvalidImage", "device kernel image is invalid"},
    {hipErrorInvalidContext, "hipErrorInvalidContext", "invalid device context"},
    {hipErrorContextAlreadyCurrent, "hipErrorContextAlreadyCurrent", "context already current"},
    {hipErrorMapFailed, "hipErrorMapFailed", "mapping of buffer object failed"},
    {hipErrorAlreadyMapped, "hipErrorAlreadyMapped", "resource already mapped"},
    {hipErrorContextAlreadyInUse, "hipErrorContextAlreadyInUse", "context already in use"},
    {hipErrorFileNotFound, "hipErrorFileNotFound", "file not found"},
    {hipErrorSharedObjectInitFailed, "hipErrorSharedObjectInitFailed",
     "shared object initialization failed"},
    {hipErrorOperatingSystem, "hipErrorOperatingSystem",
     "OS call failed or operation not supported on this OS"},
    {hipErrorInvalidHandle, "hipErrorInvalidHandle", "invalid resource handle"},
    {hipErrorIllegalState, "hipErrorIllegalState",
     "the operation cannot be performed in the present state"},
    {hipErrorNotFound, "hipErrorNotFound", "named symbol not found"},
    {hipErrorNotReady, "hipErrorNotReady", "device not ready"},
    {hipErrorIllegalAddress, "hipErrorIllegalAddress", "an illegal memory access was encountered"},
    {hipErrorLaunchOutOfResources, "hipErrorLaunchOutOfResources",
     "too many resources requested for launch"},
    {hipErrorLaunchTimeOut, "hipErrorLaunchTimeOut", "the launch timed out and was terminated"},
    {hipErrorPeerAccessAlreadyEnabled, "hipErrorPeerAccessAlreadyEnabled",
     "peer access is already enabled"},
    {hipErrorPeerAccessNotEnabled, "hipErrorPeerAccessNotEnabled",
     "peer access has not been enabled"},
    {hipErrorSetOnActiveProcess, "hipErrorSetOnActiveProcess",
     "cannot set while device is active in this process"},
    {hipErrorContextIsDestroyed, "hipErrorContextIsDestroyed", "context is destroyed"},
    {hipErrorAssert, "hipErrorAssert", "device-side assert triggered"},
    {hipErrorHostMemoryAlreadyRegistered, "hipErrorHostMemoryAlreadyRegistered",
     "part or all of the requested memory range is already mapped"},
    {hipErrorHostMemoryNotRegistered, "hipErrorHostMemoryNotRegistered",
     "pointer does not correspond to a registered memory region"},
    {hipErrorLaunchFailure, "hipErrorLaunchFailure", "unspecified launch failure"},
    {hipErrorNotSupported, "hipErrorNotSupported", "operation not supported"},
    {hipErrorStreamCaptureUnsupported, "hipErrorStreamCaptureUnsupported",
     "operation not permitted when stream is capturing"},
    {hipErrorUnknown, "hipErrorUnknown", "unknown error"},
    {hipErrorRuntimeMemory, "hipErrorRuntimeMemory", "runtime memory call returned error"},
    {hipErrorRuntimeOther, "hipErrorRuntimeOther", "runtime call other than memory returned error"},
};

const GpuEntry* FindGpu(int e) {
  for (const GpuEntry& entry : kGpuErrors) {
    if (static_cast<int>(entry.code) == e) return &entry;
  }
  return nullptr;
}

}  // namespace

const char* OpErrorName(int e) {
  const OpEntry* entry = FindOp(e);
  return entry ? entry->name : "hipFileUnknownError";
}

const char* OpErrorString(int e) {
  const OpEntry* entry = FindOp(e);
  return entry ? entry->text : "Unknown hipFile error";
}

const char* GpuErrorName(hipError_t e) { return GpuErrorNameOf(static_cast<int>(e)); }

const char* GpuErrorString(hipError_t e) { return GpuErrorStringOf(static_cast<int>(e)); }

const char* GpuErrorNameOf(int e) {
  const GpuEntry* entry = FindGpu(e);
  return entry ? entry->name : "hipErrorUnknown";
}

const char* GpuErrorStringOf(int e) {
  const GpuEntry* entry = FindGpu(e);
  return entry ? entry->text : "unknown error";
}

}  // namespace hipfile
