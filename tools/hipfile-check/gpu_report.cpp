// SPDX-License-Identifier: MIT
#include "gpu_report.h"

#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile_ext.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace hipfile_check {

namespace {

std::string ReadLine(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  return line;
}

std::optional<int> ReadInt(const std::string& file) {
  const std::string s = ReadLine(file);
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (end == s.c_str() || v <= 0) return std::nullopt;
  return static_cast<int>(v);
}

std::string HipError(hipError_t e) {
  return std::string(hipGetErrorName(e)) + " (" + hipGetErrorString(e) + ")";
}

void ProbePcie(const hipDeviceProp_t& prop, bool cpu_runtime, PcieLink* link) {
  if (cpu_runtime) {
    link->note = "the CPU runtime has no PCI device";
    return;
  }
  char id[32];
  std::snprintf(id, sizeof id, "%04x:%02x:%02x.0", static_cast<unsigned>(prop.pciDomainID),
                static_cast<unsigned>(prop.pciBusID), static_cast<unsigned>(prop.pciDeviceID));
  link->bus_id = id;
  const std::string dir = std::string("/sys/bus/pci/devices/") + id + "/";
  link->speed = ReadLine(dir + "current_link_speed");
  link->width = ReadInt(dir + "current_link_width");
  link->max_speed = ReadLine(dir + "max_link_speed");
  link->max_width = ReadInt(dir + "max_link_width");
  link->generation = PcieGeneration(link->speed);
  if (link->speed.empty()) link->note = "no link speed in " + dir;
}

}  // namespace

std::string UuidText(const char bytes[16]) {
  if (std::all_of(bytes, bytes + 16, [](char c) { return c == 0; })) return "";
  std::string text;
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(bytes[i]));
    text += hex;
  }
  return text;
}

std::optional<int> PcieGeneration(const std::string& speed) {
  // The per-lane rates of PCIe generations 1 to 6 (sysfs writes "2.5 GT/s PCIe", "16.0 GT/s").
  static const struct {
    const char* rate;
    int generation;
  } kRates[] = {{"2.5 GT/s", 1},  {"5.0 GT/s", 2},  {"8.0 GT/s", 3},
                {"16.0 GT/s", 4}, {"32.0 GT/s", 5}, {"64.0 GT/s", 6}};
  for (const auto& r : kRates) {
    if (speed.rfind(r.rate, 0) == 0) return r.generation;
  }
  return std::nullopt;
}

void ProbePlatform(Platform* p) {
  unsigned major = 0, minor = 0, patch = 0;
  (void)hipFileGetVersion(&major, &minor, &patch);
  p->library_version =
      std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  p->build_features = hipFileExtBuildFeatures();
  p->runtime = hipFileExtRuntimeName();
  p->runtime_reason = hipFileExtRuntimeReason();
  // The CPU runtime's device memory is host memory; cpu-staged reports it as device memory to
  // take a GPU's data paths (docs/environment.md, HIPFILE_RUNTIME).
  p->device_memory_is_host = p->runtime == "cpu";
  const bool cpu_runtime = p->runtime.rfind("cpu", 0) == 0;

  int version = 0;
  if (hipDriverGetVersion(&version) == hipSuccess) p->hip_driver_version = version;
  if (hipRuntimeGetVersion(&version) == hipSuccess) p->hip_runtime_version = version;

  int count = 0;
  const hipError_t err = hipGetDeviceCount(&count);
  if (err != hipSuccess) {
    p->device_error = HipError(err);
    count = 0;
  }
  // Every GPU is visited with hipSetDevice (hipMemGetInfo is the current device's); the thread's
  // device is given back, so that the driver opens below on it and not on the last GPU listed.
  int current = 0;
  const bool restore = count > 0 && hipGetDevice(&current) == hipSuccess;
  for (int d = 0; d < count; ++d) {
    Gpu gpu;
    gpu.index = d;
    hipDeviceProp_t prop;
    std::memset(&prop, 0, sizeof prop);
    if (hipGetDeviceProperties(&prop, d) == hipSuccess) {
      gpu.name = std::string(prop.name, strnlen(prop.name, sizeof prop.name));
      gpu.uuid = UuidText(prop.uuid.bytes);
      gpu.total_bytes = prop.totalGlobalMem;
      if (!cpu_runtime) {
        gpu.compute_major = prop.major;
        gpu.compute_minor = prop.minor;
      }
      ProbePcie(prop, cpu_runtime, &gpu.pcie);
    }
    size_t free_bytes = 0, total_bytes = 0;
    if (hipSetDevice(d) == hipSuccess && hipMemGetInfo(&free_bytes, &total_bytes) == hipSuccess) {
      gpu.free_bytes = free_bytes;
      if (gpu.total_bytes == 0) gpu.total_bytes = total_bytes;
    }
    p->gpus.push_back(std::move(gpu));
  }
  if (restore) (void)hipSetDevice(current);

  const hipFileError_t opened = hipFileDriverOpen();
  if (opened.err == hipFileSuccess) {
    p->driver_opened = true;
    (void)hipFileDriverClose();
  } else if (opened.err == hipFileHipDriverError) {
    p->driver_error = std::string("hipFileHipDriverError: ") + HipError(opened.hip_drv_err);
  } else {
    p->driver_error = std::string(hipFileExtOpErrorName(opened.err)) + " (" +
                      hipFileGetOpErrorString(opened.err) + ")";
  }
}

namespace {

// One GPU's copies: a warm-up, then kReps timed copies of kBytes from pinned host memory.
void TimeCopies(Gpu* gpu, bool host_runtime) {
  constexpr size_t kBytes = 256u << 20;
  constexpr int kReps = 5;
  Bandwidth& b = gpu->bandwidth;
  b.what = host_runtime ? "host memcpy on the CPU runtime, not a PCIe link"
                        : "pinned host memory to GPU memory";
  void* host = nullptr;
  void* dev = nullptr;
  hipStream_t stream = nullptr;
  hipEvent_t start = nullptr, stop = nullptr;
  hipError_t e = hipSetDevice(gpu->index);
  if (e == hipSuccess) e = hipHostMalloc(&host, kBytes, hipHostMallocDefault);
  if (e == hipSuccess) e = hipMalloc(&dev, kBytes);
  if (e == hipSuccess) e = hipStreamCreate(&stream);
  if (e == hipSuccess) e = hipEventCreate(&start);
  if (e == hipSuccess) e = hipEventCreate(&stop);
  if (e == hipSuccess) std::memset(host, 0x5a, kBytes);
  double total_ms = 0, best_ms = 0;
  for (int rep = 0; rep <= kReps && e == hipSuccess; ++rep) {
    e = hipEventRecord(start, stream);
    if (e == hipSuccess) e = hipMemcpyAsync(dev, host, kBytes, hipMemcpyHostToDevice, stream);
    if (e == hipSuccess) e = hipEventRecord(stop, stream);
    if (e == hipSuccess) e = hipEventSynchronize(stop);
    float ms = 0;
    if (e == hipSuccess) e = hipEventElapsedTime(&ms, start, stop);
    if (e == hipSuccess && rep > 0) {  // rep 0 warms up
      total_ms += ms;
      if (best_ms == 0 || ms < best_ms) best_ms = ms;
    }
  }
  if (e != hipSuccess) {
    b.error = HipError(e);
  } else if (best_ms > 0) {
    const double gib = static_cast<double>(kBytes) / (1u << 30);
    b.ran = true;
    b.bytes = kBytes;
    b.reps = kReps;
    b.best_gib_s = gib / (best_ms / 1000.0);
    b.mean_gib_s = gib * kReps / (total_ms / 1000.0);
  } else {
    b.error = "the events timed no copy (0 ms)";
  }
  if (start != nullptr) (void)hipEventDestroy(start);
  if (stop != nullptr) (void)hipEventDestroy(stop);
  if (stream != nullptr) (void)hipStreamDestroy(stream);
  (void)hipFree(dev);
  (void)hipHostFree(host);
}

}  // namespace

void ProbeBandwidth(Platform* p) {
  p->bandwidth_asked = true;
  int current = 0;
  const bool restore = hipGetDevice(&current) == hipSuccess;
  for (Gpu& gpu : p->gpus) TimeCopies(&gpu, p->runtime.rfind("cpu", 0) == 0);
  if (restore) (void)hipSetDevice(current);
}

}  // namespace hipfile_check
