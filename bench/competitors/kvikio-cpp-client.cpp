// SPDX-License-Identifier: MIT
// KvikIO's C++ API as a client writes it (issue 22, item 2: "KvikIO's C++ FileHandle"):
// kvikio::FileHandle with its compatibility mode OFF, so every read and write is a cuFile call -
// on whichever libcufile.so.0 the process loads - or ON, KvikIO's own POSIX path (the baseline).
// Built on the GPU machine against the libkvikio wheel's headers and library by
// bench/run_cufile_clients_h200.sh; not part of the build.
//
//   kvikio-cpp-client FILE SIZE SCRATCH [off|on]      (compatibility mode; default off)
//
// FILE is a hipfile-bench data set (byte N holds hipfile-bench's Pattern(N)) of at least SIZE
// bytes, in whatever cache state the caller left it. Prints one JSON line per step:
//   {"op": "FileHandle.pread", "bytes": SIZE, "seconds": s, "check_ok": true|false, ...}
//   {"op": "roundtrip FileHandle.pwrite/pread", "bytes": n, "check_ok": ...} (n = min(SIZE,
//   256 MiB), written to SCRATCH, read back, compared on the host)
// Exit 0 when every step's bytes were right, 1 otherwise, 2 on bad arguments.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <kvikio/compat_mode.hpp>
#include <kvikio/compat_mode_manager.hpp>
#include <kvikio/file_handle.hpp>
#include <string>
#include <vector>

namespace {

unsigned char Pattern(uint64_t offset) {  // tools/hipfile-bench/data_set.h's
  const uint64_t x = offset * 0x9E3779B97F4A7C15ull;
  return static_cast<unsigned char>((x >> 56) ^ (offset >> 12));
}

// The first offset whose byte is not the pattern, or -1.
long long FirstBad(const std::vector<unsigned char>& got) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != Pattern(i)) return static_cast<long long>(i);
  }
  return -1;
}

bool Cu(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return true;
  const char* s = nullptr;
  cuGetErrorString(r, &s);
  std::printf("{\"op\": \"%s\", \"ok\": false, \"error\": \"%s\"}\n", what, s ? s : "?");
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: %s FILE SIZE SCRATCH [off|on]\n", argv[0]);
    return 2;
  }
  const std::string mode_arg = argc == 5 ? argv[4] : "off";
  if (mode_arg != "off" && mode_arg != "on") return 2;
  const kvikio::CompatMode mode =
      mode_arg == "on" ? kvikio::CompatMode::ON : kvikio::CompatMode::OFF;
  const std::string file = argv[1], scratch = argv[3];
  const size_t size = std::strtoull(argv[2], nullptr, 10);
  if (size == 0) return 2;
  CUdevice dev;
  CUcontext ctx;
  CUdeviceptr buf = 0;
  if (!Cu(cuInit(0), "cuInit") || !Cu(cuDeviceGet(&dev, 0), "cuDeviceGet") ||
      !Cu(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") ||
      !Cu(cuCtxSetCurrent(ctx), "cuCtxSetCurrent") || !Cu(cuMemAlloc(&buf, size), "cuMemAlloc")) {
    return 1;
  }
  bool all_ok = true;
  try {
    kvikio::FileHandle f(file, "r", kvikio::FileHandle::m644, mode);
    // Off must mean cuFile: KvikIO falls back silently where it may.
    if (f.get_compat_mode_manager().is_compat_mode_preferred() !=
        (mode == kvikio::CompatMode::ON)) {
      std::printf("{\"op\": \"FileHandle\", \"ok\": false, \"error\": \"compat mode %s\"}\n",
                  mode == kvikio::CompatMode::ON ? "not taken" : "preferred with OFF asked for");
      return 1;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const size_t got = f.pread(reinterpret_cast<void*>(buf), size).get();
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<unsigned char> host(size);
    if (!Cu(cuMemcpyDtoH(host.data(), buf, size), "cuMemcpyDtoH")) return 1;
    const long long bad = got == size ? FirstBad(host) : 0;
    all_ok = all_ok && bad < 0;
    std::printf(
        "{\"op\": \"FileHandle.pread\", \"bytes\": %zu, \"seconds\": %.4f, \"gb_s\": %.3f, "
        "\"ok\": %s, \"check_ok\": %s, \"first_bad\": %lld}\n",
        got, secs, secs > 0 ? static_cast<double>(got) / secs / 1e9 : 0.0,
        got == size ? "true" : "false", bad < 0 ? "true" : "false", bad);
    f.close();

    // Round trip: the first n bytes (the pattern, now in buf) to SCRATCH and back.
    const size_t n = std::min<size_t>(size, size_t{256} << 20);
    CUdeviceptr back = 0;
    if (!Cu(cuMemAlloc(&back, n), "cuMemAlloc") || !Cu(cuMemsetD8(back, 0, n), "cuMemsetD8")) {
      return 1;
    }
    size_t wrote = 0, read_back = 0;
    {
      kvikio::FileHandle w(scratch, "w", kvikio::FileHandle::m644, mode);
      wrote = w.pwrite(reinterpret_cast<void*>(buf), n).get();
    }
    {
      kvikio::FileHandle r(scratch, "r", kvikio::FileHandle::m644, mode);
      read_back = r.pread(reinterpret_cast<void*>(back), n).get();
    }
    std::vector<unsigned char> again(n);
    if (!Cu(cuMemcpyDtoH(again.data(), back, n), "cuMemcpyDtoH")) return 1;
    const long long bad_rt = wrote == n && read_back == n ? FirstBad(again) : 0;
    all_ok = all_ok && bad_rt < 0;
    std::printf(
        "{\"op\": \"roundtrip FileHandle.pwrite/pread\", \"bytes\": %zu, \"wrote\": %zu, "
        "\"read\": %zu, \"ok\": %s, \"check_ok\": %s, \"first_bad\": %lld}\n",
        n, wrote, read_back, wrote == n && read_back == n ? "true" : "false",
        bad_rt < 0 ? "true" : "false", bad_rt);
    (void)cuMemFree(back);
  } catch (const std::exception& e) {
    std::printf("{\"op\": \"FileHandle\", \"ok\": false, \"error\": \"%s\"}\n", e.what());
    all_ok = false;
  }
  (void)cuMemFree(buf);
  (void)std::remove(scratch.c_str());
  return all_ok ? 0 : 1;
}
