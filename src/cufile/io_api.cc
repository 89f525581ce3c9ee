// SPDX-License-Identifier: MIT
// cuFile's handle and buffer registration and synchronous I/O over hipFile's:
// cuFileHandleRegister/Deregister, cuFileBufRegister/Deregister, cuFileRead, cuFileWrite.
// cuFileRead and cuFileWrite move the whole size, as NVIDIA's library does: hipFileRead and
// hipFileWrite move at most Linux's MAX_RW_COUNT (2 GiB - 4 KiB) a call, hipFile's rule, and
// clients such as torch.cuda.gds make one call for a whole tensor and take no short count.
#include <cufile/cufile.h>
#include <hipfile.h>
#include <hipfile_ext.h>

#include <unordered_set>

#include "cufile/announce.h"
#include "cufile/error_map.h"
#include "util/mutex.h"

using hipfile::cufile::CuFileSsize;
using hipfile::cufile::ToCuFile;

namespace {

static_assert(static_cast<int>(CU_FILE_HANDLE_TYPE_OPAQUE_FD) == hipFileHandleTypeOpaqueFD);
static_assert(static_cast<int>(CU_FILE_HANDLE_TYPE_OPAQUE_WIN32) == hipFileHandleTypeOpaqueWin32);
static_assert(static_cast<int>(CU_FILE_HANDLE_TYPE_USERSPACE_FS) == hipFileHandleTypeUserspaceFS);
static_assert(sizeof(CUfileFSOps_t) == sizeof(hipFileFSOps_t));

// cuFile serves host memory where CUFILE_PARAM_PROPERTIES_ALLOW_SYSTEM_MEMORY is set; hipFileRead
// refuses pageable memory (hipFileHipMemoryTypeInvalid), which hipFileExtReadHost moves instead.
bool SystemMemoryAllowed(ssize_t hipfile_result) {
  if (hipfile_result != -static_cast<ssize_t>(hipFileHipMemoryTypeInvalid)) return false;
  bool allowed = false;
  const hipFileError_t status =
      hipFileGetParameterBool(hipFileParamPropertiesAllowSystemMemory, &allowed);
  return status.err == hipFileSuccess && allowed;
}

// Host memory registered while system memory is allowed: hipFile registers device and pinned
// memory only, so these are remembered here, for cuFileBufDeregister to accept them back. A
// registration costs nothing else: hipFileExtReadHost needs none.
class SystemBuffers {
 public:
  static SystemBuffers& Get() {
    static SystemBuffers* buffers = new SystemBuffers;  // never destroyed: used until exit
    return *buffers;
  }
  bool Add(const void* p) {
    hipfile::MutexLock lock(mu_);
    return set_.insert(p).second;
  }
  bool Remove(const void* p) {
    hipfile::MutexLock lock(mu_);
    return set_.erase(p) == 1;
  }

 private:
  hipfile::Mutex mu_;
  std::unordered_set<const void*> set_ GUARDED_BY(mu_);
};

bool MemoryTypeRefused(hipFileError_t e) { return e.err == hipFileHipMemoryTypeInvalid; }

// Calls one(done) - a hipFile call for [done, size) - until the size is moved, the file ends (0),
// or a call fails: then the bytes moved so far, or the failure where none were (read(2)'s way).
template <typename Call>
ssize_t WholeSize(size_t size, const Call& one) {
  size_t done = 0;
  do {
    const ssize_t r = one(done);
    if (r < 0) return done > 0 ? static_cast<ssize_t>(done) : r;
    if (r == 0) break;
    done += static_cast<size_t>(r);
  } while (done < size);
  return static_cast<ssize_t>(done);
}

}  // namespace

extern "C" {

CUFILE_API CUfileError_t cuFileHandleRegister(CUfileHandle_t* fh, CUfileDescr_t* descr) {
  if (descr == nullptr) return ToCuFile(hipFileHandleRegister(fh, nullptr));
  hipFileDescr_t hd{};
  hd.type = static_cast<hipFileFileHandleType_t>(descr->type);
  if (descr->type == CU_FILE_HANDLE_TYPE_OPAQUE_FD) {
    hd.handle.fd = descr->handle.fd;
  } else {
    hd.handle.hFile = descr->handle.handle;
  }
  // The two tables have the same members in the same order (tests/compat/cufile_abi checks ours
  // against NVIDIA's; hipfile.h's is hipFile's copy of the same table).
  hd.fs_ops = reinterpret_cast<const hipFileFSOps_t*>(descr->fs_ops);
  const CUfileError_t result = ToCuFile(hipFileHandleRegister(fh, &hd));
  // The driver may have opened implicitly just now (torch.cuda.gds never opens it itself).
  if (result.err == CU_FILE_SUCCESS) hipfile::cufile::AnnounceOnce();
  return result;
}

CUFILE_API void cuFileHandleDeregister(CUfileHandle_t fh) { hipFileHandleDeregister(fh); }

CUFILE_API CUfileError_t cuFileBufRegister(const void* bufPtr_base, size_t length, int flags) {
  const hipFileError_t status = hipFileBufRegister(bufPtr_base, length, flags);
  if (status.err == hipFileSuccess) hipfile::cufile::AnnounceOnce();  // an implicit open, maybe
  if (MemoryTypeRefused(status) &&
      SystemMemoryAllowed(-static_cast<ssize_t>(hipFileHipMemoryTypeInvalid))) {
    try {
      return ToCuFile(
          {SystemBuffers::Get().Add(bufPtr_base) ? hipFileSuccess : hipFileMemoryAlreadyRegistered,
           hipSuccess});
    } catch (...) {  // the set could not grow
      return ToCuFile({hipFileHipDriverError, hipErrorOutOfMemory});
    }
  }
  return ToCuFile(status);
}

CUFILE_API CUfileError_t cuFileBufDeregister(const void* bufPtr_base) {
  const hipFileError_t status = hipFileBufDeregister(bufPtr_base);
  if (status.err == hipFileMemoryNotRegistered && SystemBuffers::Get().Remove(bufPtr_base)) {
    return ToCuFile({hipFileSuccess, hipSuccess});
  }
  return ToCuFile(status);
}

CUFILE_API ssize_t cuFileRead(CUfileHandle_t fh, void* bufPtr_base, size_t size, off_t file_offset,
                              off_t bufPtr_offset) {
  return CuFileSsize(WholeSize(size, [&](size_t done) {
    const off_t at = static_cast<off_t>(done);
    ssize_t r = hipFileRead(fh, bufPtr_base, size - done, file_offset + at, bufPtr_offset + at);
    if (SystemMemoryAllowed(r)) {
      r = hipFileExtReadHost(fh, static_cast<char*>(bufPtr_base) + bufPtr_offset + at, size - done,
                             file_offset + at);
    }
    return r;
  }));
}

CUFILE_API ssize_t cuFileWrite(CUfileHandle_t fh, const void* bufPtr_base, size_t size,
                               off_t file_offset, off_t bufPtr_offset) {
  return CuFileSsize(WholeSize(size, [&](size_t done) {
    const off_t at = static_cast<off_t>(done);
    ssize_t r = hipFileWrite(fh, bufPtr_base, size - done, file_offset + at, bufPtr_offset + at);
    if (SystemMemoryAllowed(r)) {
      r = hipFileExtWriteHost(fh, static_cast<const char*>(bufPtr_base) + bufPtr_offset + at,
                              size - done, file_offset + at);
    }
    return r;
  }));
}

}  // extern "C"
