// SPDX-License-Identifier: MIT
/* get-version: prints the hipFile version from the header macros and from the library. */
#include <hipfile.h>

#include <cstdio>
#include <cstdlib>

int main() {
    std::printf("Version from the header symbols (major.minor.patch): %d.%d.%d\n",
                HIPFILE_VERSION_MAJOR, HIPFILE_VERSION_MINOR, HIPFILE_VERSION_PATCH);
    unsigned major = 0, minor = 0, patch = 0;
    const hipFileError_t status = hipFileGetVersion(&major, &minor, &patch);
    if (status.err != hipFileSuccess) {
        std::fprintf(stderr, "hipFileGetVersion failed: %s\n", hipFileGetOpErrorString(status.err));
        return EXIT_FAILURE;
    }
    std::printf("Version from hipFileGetVersion() (major.minor.patch): %u.%u.%u\n", major, minor,
                patch);
    return EXIT_SUCCESS;
}
