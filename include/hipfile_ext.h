// SPDX-License-Identifier: MIT
/* hipfile_ext.h - extensions of this implementation beyond the hipFile API.
 *
 * Everything here is prefixed hipFileExt and absent from AMD's hipFile; programs that want to stay
 * portable should guard its use with `#ifdef HIPFILE_EXT_H`.
 */
#ifndef HIPFILE_EXT_H
#define HIPFILE_EXT_H

#include <hipfile.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The GPU runtime this process uses: "cuda" or "cpu" (chosen at first use; see
 * docs/environment.md, HIPFILE_RUNTIME). Never NULL; the string is static. */
HIPFILE_API const char *hipFileExtRuntimeName(void);

/* Why that runtime was chosen, e.g. "cpu: CUDA unavailable (libcuda.so.1 not found: ...)".
 * Never NULL; valid until process exit. */
HIPFILE_API const char *hipFileExtRuntimeReason(void);

/* The enumerator's name of a hipFile error code, e.g. "hipFileHandleNotRegistered" for 5018;
 * "hipFileSuccess" for 0; "hipFileUnknownError" for a value that is no hipFileOpError_t. Never
 * NULL; the string is static.
 * hipFileGetOpErrorString gives its description. */
HIPFILE_API const char *hipFileExtOpErrorName(int err);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HIPFILE_EXT_H */
