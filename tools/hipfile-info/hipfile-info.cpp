// SPDX-License-Identifier: MIT
// hipfile-info: what this machine's hipFile would do - version, GPU runtime and why, devices,
// and the driver properties in use.
//   hipfile-info           full report
//   hipfile-info --brief   one line: version and runtime
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile_ext.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

int Brief() {
  unsigned major = 0, minor = 0, patch = 0;
  (void)hipFileGetVersion(&major, &minor, &patch);
  std::printf("hipfile %u.%u.%u, runtime %s (%s)\n", major, minor, patch, hipFileExtRuntimeName(),
              hipFileExtRuntimeReason());
  return EXIT_SUCCESS;
}

void PrintFlag(const char* name, unsigned bits, int bit) {
  std::printf("    %-26s %s\n", name, (bits >> bit) & 1u ? "yes" : "no");
}

int Full() {
  Brief();
  int count = 0;
  const hipError_t err = hipGetDeviceCount(&count);
  if (err != hipSuccess) {
    std::printf("devices: none usable (%s)\n", hipGetErrorString(err));
  } else {
    std::printf("devices: %d\n", count);
    for (int d = 0; d < count; ++d) {
      size_t free_bytes = 0, total_bytes = 0;
      if (hipSetDevice(d) == hipSuccess && hipMemGetInfo(&free_bytes, &total_bytes) == hipSuccess) {
        std::printf("  device %d: %.1f GiB total, %.1f GiB free\n", d, total_bytes / 1073741824.0,
                    free_bytes / 1073741824.0);
      }
    }
  }

  const hipFileError_t opened = hipFileDriverOpen();
  if (opened.err != hipFileSuccess) {
    if (opened.err == hipFileHipDriverError) {
      std::printf("driver: could not open: %s (%s)\n", hipGetErrorName(opened.hip_drv_err),
                  hipGetErrorString(opened.hip_drv_err));
    } else {
      std::printf("driver: could not open: %s (%s)\n", hipFileExtOpErrorName(opened.err),
                  hipFileGetOpErrorString(opened.err));
    }
    return EXIT_FAILURE;
  }
  hipFileDriverProps_t props;
  std::memset(&props, 0, sizeof props);
  const hipFileError_t status = hipFileDriverGetProperties(&props);
  if (status.err != hipFileSuccess) {
    std::printf("driver properties: unavailable: %s (%s)\n", hipFileExtOpErrorName(status.err),
                hipFileGetOpErrorString(status.err));
  } else {
    std::printf("driver properties:\n");
    std::printf("  max direct I/O size      %llu KiB\n",
                (unsigned long long)props.nvfs.max_direct_io_size);
    std::printf("  poll threshold           %llu KiB\n",
                (unsigned long long)props.nvfs.poll_thresh_size);
    std::printf("  max device cache size    %llu KiB\n",
                (unsigned long long)props.max_device_cache_size);
    std::printf("  per-buffer cache size    %llu KiB\n",
                (unsigned long long)props.per_buffer_cache_size);
    std::printf("  max pinned memory        %llu KiB\n",
                (unsigned long long)props.max_device_pinned_mem_size);
    std::printf("  max batch I/O count      %u\n", props.max_batch_io_count);
    std::printf("  batch I/O timeout        %u ms\n", props.max_batch_io_timeout_msecs);
    std::printf("  control flags:\n");
    PrintFlag("poll mode", props.nvfs.driver_control_flags, hipFileUsePollMode);
    PrintFlag("compat mode allowed", props.nvfs.driver_control_flags, hipFileAllowCompatMode);
    std::printf("  features:\n");
    PrintFlag("batch I/O", props.feature_flags, hipFileBatchIOSupported);
    PrintFlag("stream-ordered I/O", props.feature_flags, hipFileStreamsSupported);
    PrintFlag("parallel I/O", props.feature_flags, hipFileParallelIOSupported);
  }
  (void)hipFileDriverClose();
  return EXIT_SUCCESS;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--brief") == 0) return Brief();
  if (argc == 1) return Full();
  std::fprintf(stderr, "usage: %s [--brief]\n", argv[0]);
  return EXIT_FAILURE;
}
