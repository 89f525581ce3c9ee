# SPDX-License-Identifier: MIT
"""``OpError`` and ``FileHandleType``: the C enumerations, values taken from the extension."""

from enum import IntEnum

from hipfile import _hipfile as _c  # pylint: disable=E0401,E0611

__all__ = ["OpError", "FileHandleType"]


class OpError(IntEnum):
    """``hipFileOpError_t``."""

    SUCCESS = _c.hipFileSuccess
    DRIVER_NOT_INITIALIZED = _c.hipFileDriverNotInitialized
    DRIVER_INVALID_PROPS = _c.hipFileDriverInvalidProps
    DRIVER_UNSUPPORTED_LIMIT = _c.hipFileDriverUnsupportedLimit
    DRIVER_VERSION_MISMATCH = _c.hipFileDriverVersionMismatch
    DRIVER_VERSION_READ_ERROR = _c.hipFileDriverVersionReadError
    DRIVER_CLOSING = _c.hipFileDriverClosing
    PLATFORM_NOT_SUPPORTED = _c.hipFilePlatformNotSupported
    IO_NOT_SUPPORTED = _c.hipFileIONotSupported
    DEVICE_NOT_SUPPORTED = _c.hipFileDeviceNotSupported
    DRIVER_ERROR = _c.hipFileDriverError
    HIP_DRIVER_ERROR = _c.hipFileHipDriverError
    HIP_POINTER_INVALID = _c.hipFileHipPointerInvalid
    HIP_MEMORY_TYPE_INVALID = _c.hipFileHipMemoryTypeInvalid
    HIP_POINTER_RANGE_ERROR = _c.hipFileHipPointerRangeError
    HIP_CONTEXT_MISMATCH = _c.hipFileHipContextMismatch
    INVALID_MAPPING_SIZE = _c.hipFileInvalidMappingSize
    INVALID_MAPPING_RANGE = _c.hipFileInvalidMappingRange
    INVALID_FILE_TYPE = _c.hipFileInvalidFileType
    INVALID_FILE_OPEN_FLAG = _c.hipFileInvalidFileOpenFlag
    DIO_NOT_SET = _c.hipFileDIONotSet
    INVALID_VALUE = _c.hipFileInvalidValue
    MEMORY_ALREADY_REGISTERED = _c.hipFileMemoryAlreadyRegistered
    MEMORY_NOT_REGISTERED = _c.hipFileMemoryNotRegistered
    PERMISSION_DENIED = _c.hipFilePermissionDenied
    DRIVER_ALREADY_OPEN = _c.hipFileDriverAlreadyOpen
    HANDLE_NOT_REGISTERED = _c.hipFileHandleNotRegistered
    HANDLE_ALREADY_REGISTERED = _c.hipFileHandleAlreadyRegistered
    DEVICE_NOT_FOUND = _c.hipFileDeviceNotFound
    INTERNAL_ERROR = _c.hipFileInternalError
    GET_NEW_FD_FAILED = _c.hipFileGetNewFDFailed
    DRIVER_SETUP_ERROR = _c.hipFileDriverSetupError
    IO_DISABLED = _c.hipFileIODisabled
    BATCH_SUBMIT_FAILED = _c.hipFileBatchSubmitFailed
    GPU_MEMORY_PINNING_FAILED = _c.hipFileGPUMemoryPinningFailed
    BATCH_FULL = _c.hipFileBatchFull
    ASYNC_NOT_SUPPORTED = _c.hipFileAsyncNotSupported
    IO_MAX_ERROR = _c.hipFileIOMaxError


class FileHandleType(IntEnum):
    """``hipFileFileHandleType_t``."""

    OPAQUE_FD = _c.hipFileHandleTypeOpaqueFD
    OPAQUE_WIN32 = _c.hipFileHandleTypeOpaqueWin32
    USERSPACE_FS = _c.hipFileHandleTypeUserspaceFS
