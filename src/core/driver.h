// SPDX-License-Identifier: MIT
// Driver: the library's root object - the use count, the file and buffer registries, the
// parameters and the I/O engine, behind one lock (hipFile spec §1.3).
//
// Use count: Open adds one; Close takes one away (hipFileDriverNotInitialized at 0). Registering
// a file opens the driver implicitly (0 -> 1, never higher) at the moment the registration is
// stored; registering a buffer opens it first, before the arguments are checked (hipFile's
// order); a stream-ordered submission opens it and is refused. At 0 -> 1 the parameters set while
// closed take effect and the SyncEngine is built from them; at 1 -> 0 the buffers and then the
// files are dropped (descriptors the library opened are closed once no operation uses them), the
// close hooks run (the batches go) and the engine is released.
//
// The process's Driver (Global) is built on first use and never destroyed; tests build their own
// with fake Sys/GpuRuntime.
#pragma once

#include <hipfile.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/async/async_executor.h"
#include "core/buffer_registry.h"
#include "core/config.h"
#include "core/file_registry.h"
#include "core/io_service.h"
#include "core/params.h"
#include "core/stats.h"
#include "engine/io_rule.h"
#include "engine/sync_io.h"
#include "engine/worker_pool.h"
#include "platform/sys.h"
#include "runtime/gpu_runtime.h"
#include "util/mutex.h"
#include "util/status.h"

namespace hipfile::core {

class Driver {
 public:
  // sys and gpu must outlive the Driver.
  Driver(platform::Sys& sys, runtime::GpuRuntime& gpu, const Config& config);
  ~Driver();
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  // The process's Driver: real system calls, ProcessRuntime(), ProcessConfig().
  static Driver& Global();

  // hipFileDriverError when the GPU runtime cannot work (see InitializeLocked).
  Status Open();
  // hipFileDriverNotInitialized when the count is 0. The last close runs the close hooks.
  Status Close();
  int64_t UseCount() const;
  // How many times the count has dropped to 0; read without the lock.
  uint64_t LastCloses() const { return last_closes_.load(std::memory_order_acquire); }

  // Runs hook(LastCloses()) after each last close, once the registrations are dropped, outside
  // the driver's lock and before Close returns: what lives above the driver and goes with it -
  // the batches (BatchManager) - lets go of itself there. A hook must not open or close the
  // driver. Returns the id RemoveCloseHook takes.
  using CloseHook = std::function<void(uint64_t last_closes)>;
  uint64_t AddCloseHook(CloseHook hook);
  // Once it returns, the hook is not running and does not run again.
  void RemoveCloseHook(uint64_t id);

  // Registers the descriptor (see OpenFile for its errors; hipFileHandleAlreadyRegistered for a
  // descriptor registered already) and returns the handle.
  Result<void*> RegisterHandle(int fd);
  // Unknown handles and handles in use by an operation are left alone (logged).
  void DeregisterHandle(const void* handle);
  // Opens the driver implicitly, then: see DescribeForRegistration (a null ptr is
  // hipFileInvalidValue); hipFileMemoryAlreadyRegistered for a base registered already.
  Status RegisterBuffer(const void* ptr, size_t length, int flags);
  // hipFileDriverClosing when the count is 0, hipFileMemoryNotRegistered, or
  // hipFileInternalError while an operation uses the buffer.
  Status DeregisterBuffer(const void* ptr);

  // hipFileRead / hipFileWrite, the rules of spec §1.8 in order. Errors: Status::Errno(EINVAL)
  // when the count is 0 or an offset is negative; hipFileHandleNotRegistered; buffer errors (see
  // DescribeUnregistered); hipFileInvalidValue when the range does not fit the buffer;
  // hipFileInternalError when the compatibility path is disabled; then the engine's.
  Result<size_t> Read(const void* handle, void* buffer_base, size_t size, off_t file_offset,
                      off_t buffer_offset);
  Result<size_t> Write(const void* handle, const void* buffer_base, size_t size, off_t file_offset,
                       off_t buffer_offset);
  // hipFileExtReadHost / hipFileExtWriteHost: [buffer, buffer + size) is host memory of any kind
  // (pageable too), taken at the caller's word, never looked up in the runtime or the registry;
  // the system calls move the bytes straight into or out of it. Otherwise Read's rules: the count,
  // the handle, a negative offset; a null buffer with size > 0 is hipFileInvalidValue; size 0
  // moves nothing.
  Result<size_t> TransferHost(IoDirection direction, const void* handle, const void* buffer,
                              size_t size, off_t file_offset);

  // The parameter API: setters only while the count is 0 (else hipFileDriverAlreadyOpen), taking
  // effect at the next open; getters give the values in use while open, else the next open's.
  // An invalid parameter or value is hipFileInvalidValue whether or not the driver is open.
  Status SetParameterSizeT(int param, size_t value);
  Status SetParameterBool(int param, bool value);
  Status SetParameterString(int param, const std::string& value);
  Result<size_t> GetParameterSizeT(int param) const;
  Result<bool> GetParameterBool(int param) const;
  Result<std::string> GetParameterString(int param) const;
  // The statistics level, settable while the driver is open too (cuFileSetStatsLevel): the level
  // recorded at from now on and at the next open (hipFileParamProfileStats). Levels past the
  // parameter's range are hipFileInvalidValue. StatsLevel: the level recorded at now while open,
  // else the next open's.
  Status SetStatsLevel(size_t level) EXCLUDES(mu_);
  size_t StatsLevel() const EXCLUDES(mu_);
  // Where a parameter's value came from (ParamSet::Source), for the values Get* reports: those in
  // use while the driver is open, the next open's while it is closed. Opens nothing.
  Result<SettingSource> GetParameterSource(ParamKind kind, int param) const;

  // The way each kind of bytes of a read or write of fd's file into device memory would go here
  // (engine/io_rule.h): the file reopened as a registration reopens it (O_DIRECT, its alignment;
  // the descriptors closed again), with the engine's options in use while the driver is open, the
  // next open's while it is closed. Opens nothing; errors as hipFileHandleRegister's.
  struct IoRuleAnswer {
    engine::IoRuleInputs inputs;
    engine::IoRule rule;
  };
  Result<IoRuleAnswer> DescribeIoRule(int fd);

  // hipFileReadAsync / hipFileWriteAsync (spec §1.10). At count 0 the driver is opened and
  // hipFileInvalidValue returned (hipFile's quirk, kept). Then: a null pointer argument ->
  // hipFileInvalidValue; hipFileHandleNotRegistered; buffer errors as for Read; offsets,
  // range or a buffer on another device than the stream -> hipFileInvalidValue. On success
  // *bytes_p is 0 and the operation is queued on the stream; see docs/async.md.
  // `fixed_flags`: HIPFILE_STREAM_FIXED_* flags of this operation alone, added to its stream's:
  // the values they name are taken at submission and their pointers not kept
  // (hipFileExtReadAsyncFixed passes kAllFixed, core/async/async_op.h, with pointers to its
  // arguments).
  Status SubmitAsync(IoDirection direction, const void* handle, const void* buffer_base,
                     size_t* size_p, off_t* file_offset_p, off_t* buffer_offset_p, ssize_t* bytes_p,
                     runtime::Stream stream, unsigned fixed_flags = 0);
  // hipFileInvalidValue for flags outside HIPFILE_STREAM_FLAGS_MASK or a stream registered
  // already; the runtime's error for a stream it does not know.
  Status RegisterStream(runtime::Stream stream, unsigned flags);
  // hipFileInvalidValue for a stream not registered. Operations in flight are not waited for.
  Status DeregisterStream(runtime::Stream stream);

  // Looks up the handle and the buffer of a transfer: Status::Errno(EINVAL) when the count is 0,
  // hipFileHandleNotRegistered, buffer errors (see DescribeUnregistered).
  // entry names the C entry point in the warn lines refusals log; null logs nothing.
  Result<PreparedIo> Prepare(IoDirection direction, const void* handle, const void* buffer_base,
                             const char* entry = nullptr);
  // Prepare for n transfers with the driver's lock taken once (a batch submission: at a million
  // entries a second, a lock per entry is contended by every submitting thread); out[i] is what
  // Prepare(args[i]) would return. An unregistered buffer is described once per call.
  struct PrepareArgs {
    IoDirection direction = IoDirection::kRead;
    const void* handle = nullptr;
    const void* buffer_base = nullptr;
    const char* entry = nullptr;  // as PreparedIo::entry
  };
  std::vector<Result<PreparedIo>> PrepareMany(const PrepareArgs* args, size_t n);
  // Sets up what stream-ordered and batch I/O need of `device` (its copy kernels, whether its
  // streams take memory operations), once per device and driver, before the library can make any
  // stream of that device wait: loading code onto a device blocks while any of its streams waits
  // (docs/reliability.md, "Several GPUs"). Called at the open (the opening thread's device), for a
  // buffer registered on the device, a stream registered on it, and before a stream-ordered
  // submission or a batch queues anything for it. Nothing where device memory is host memory.
  // Takes no lock; called without mu_ except by the open (InitializeLocked), where mu_ is held
  // across GPU calls anyway. A device out of range is left to the runtime's answer.
  void PrepareDevice(int device);
  // hipFileDriverSet*: as cuFile documents them, they set the value for the next open and are a
  // no-op (success, logged at warn) while the driver is open. Sizes in KiB, validated as the
  // matching size_t parameters.
  Status SetPollMode(bool poll, size_t poll_threshold_kb);
  Status SetMaxDirectIoSize(size_t kb);
  Status SetMaxCacheSize(size_t kb);
  Status SetMaxPinnedMemSize(size_t kb);
  // hipFileDriverNotInitialized when the count is 0 (cuFile requires an open driver).
  Status GetProperties(hipFileDriverProps_t* props) const;

  // The engine's options while open; nullopt while closed.
  std::optional<engine::EngineOptions> EngineOptionsInUse() const;

  Stats& stats() { return stats_; }
  AsyncStageStats& async_stage_stats() { return async_stage_stats_; }
  // Where every transfer runs once looked up (core/io_service.h).
  IoService& io_service() { return service_; }
  platform::Sys& sys() { return sys_; }
  runtime::GpuRuntime& gpu() { return gpu_; }
  // The stream-ordered executor, made on first use; the error when its threads were refused.
  Result<AsyncExecutor*> async_executor() { return Async(); }
  // The I/O threads: the engine's helpers and batch runs. Sized at each open
  // (ParamSet::io_threads); lives as long as the Driver.
  engine::WorkerPool& io_pool() { return io_pool_; }
  // The stream-ordered executor's workers: as many, in a pool of their own. A stream waiting for
  // an operation must never wait behind I/O threads that are themselves inside a GPU call - one
  // freeing memory waits for every stream (docs/async.md, "Another thread freeing memory").
  engine::WorkerPool& async_pool() { return async_pool_; }

 private:
  template <class Fn>
  Status SetParameter(const char* name, int param, Fn&& set) EXCLUDES(mu_);
  template <class Fn>
  Status DriverSetter(const char* name, Fn&& set) EXCLUDES(mu_);
  // 0 -> 1: hipFileDriverError, logged with the reason, when the GPU runtime has no usable device
  // (a forced runtime that cannot work).
  Status InitializeLocked() REQUIRES(mu_);
  // The engine's options for an open: the parameters in use, with the transfers' share of the
  // pinned staging limit (engine::SplitStagingBudget); the streams' share goes to the executor.
  engine::EngineOptions EngineOptionsForOpenLocked() REQUIRES(mu_) EXCLUDES(async_mu_);
  Status EnsureOpenLocked() REQUIRES(mu_);
  // The info line of a registration (core/file.h, DescribeRegistration): the file, its path and
  // what its reads and writes will take. Reads the path through sys_ outside the lock.
  void LogRegistration(const void* handle) EXCLUDES(mu_);
  Result<size_t> Transfer(IoDirection direction, const void* handle, const void* buffer_base,
                          size_t size, off_t file_offset, off_t buffer_offset);
  Result<AsyncExecutor*> Async() EXCLUDES(async_mu_);
  // Prepare's lookups (the driver open, the handle, a registration); and its description of the
  // buffer, without the lock.
  Status LookUpLocked(const PrepareArgs& args, PreparedIo* io) const REQUIRES(mu_);
  Status Describe(PreparedIo* io) EXCLUDES(mu_);
  // Frees the retired engines no transfer uses any more, where no stream-ordered operation is in
  // flight; those it cannot free wait for a later last close. Called by the last Close, the call
  // documented to wait for the device (docs/engine.md, "When pins are released"); never by an
  // open, which must not wait for the program's streams.
  void FreeRetiredEngines() EXCLUDES(mu_);
  // Runs `fn` (a call that waits for every stream, such as unpinning memory) where no
  // stream-ordered operation is in flight, and keeps any from being submitted meanwhile; false,
  // without running it, while some are in flight.
  bool RunWithoutStreamOps(const std::function<void()>& fn) EXCLUDES(mu_, async_mu_);

  platform::Sys& sys_;
  runtime::GpuRuntime& gpu_;
  const bool async_staged_;              // HIPFILE_ASYNC_STAGED, where it cannot hang
  const bool refused_unstaged_;          // HIPFILE_ASYNC_STAGED=false asked for where it could hang
  const bool async_stage_times_;         // HIPFILE_ASYNC_STAGE_TIMES
  const size_t async_run_idle_bytes_;    // HIPFILE_ASYNC_RUN_IDLE_KB, in bytes
  const bool async_copy_at_submission_;  // HIPFILE_ASYNC_COPY_AT_SUBMISSION
  const bool async_read_at_submission_;  // HIPFILE_ASYNC_READ_AT_SUBMISSION
  const unsigned async_assumed_fixed_;   // HIPFILE_ASYNC_ASSUME_FIXED: kAllFixed, or 0
  const bool async_ahead_stream_;        // HIPFILE_ASYNC_AHEAD_STREAM
  const AsyncCopyRuns async_copy_runs_;  // HIPFILE_ASYNC_COPY_RUNS
  const bool async_run_table_on_device_;  // HIPFILE_ASYNC_RUN_TABLE
  const size_t async_large_chunks_from_;  // HIPFILE_ASYNC_LARGE_CHUNKS_MB, in bytes
  const size_t async_ahead_part_bytes_;   // HIPFILE_ASYNC_AHEAD_PART_MB, in bytes
  const bool async_choose_ahead_way_;     // that setting not set: measured per device
  const unsigned async_quiet_streams_;    // HIPFILE_ASYNC_QUIET_STREAMS
  // Where stream-ordered operations' time goes: on at stats level 2, or async_stage_times_.
  AsyncStageStats async_stage_stats_;
  std::string runtime_reason_;  // why the process's runtime was chosen; empty in tests
  // Before everything that queues on them, so destroyed after all of them.
  engine::WorkerPool io_pool_;
  engine::WorkerPool async_pool_;
  Stats stats_;
  IoService service_;  // uses stats_

  mutable Mutex mu_;
  // Written under mu_; UseCount reads it without the lock (every batch submission asks), so
  // atomic and not GUARDED_BY.
  std::atomic<int64_t> count_{0};
  std::atomic<uint64_t> last_closes_{0};  // written under mu_
  ParamSet next_ GUARDED_BY(mu_);         // what the next open uses
  ParamSet in_use_ GUARDED_BY(mu_);       // meaningful while count_ > 0
  // Set while count_ > 0; I/O holds copies.
  std::shared_ptr<engine::SyncEngine> engine_ GUARDED_BY(mu_);
  // Engines of earlier opens not freed yet: stream-ordered work was in flight when they could
  // have been (FreeRetiredEngines).
  std::vector<std::shared_ptr<engine::SyncEngine>> retired_engines_ GUARDED_BY(mu_);
  FileRegistry files_ GUARDED_BY(mu_);
  BufferRegistry buffers_ GUARDED_BY(mu_);

  // Held while the hooks run, so that RemoveCloseHook waits for a hook running.
  Mutex hooks_mu_;
  std::map<uint64_t, CloseHook> close_hooks_ GUARDED_BY(hooks_mu_);
  uint64_t next_hook_ GUARDED_BY(hooks_mu_) = 1;

  // PrepareDevice done, by device (devices past HIPFILE_MAX_GPUS are asked every time; the
  // runtime remembers its answers).
  std::atomic<bool> device_ready_[HIPFILE_MAX_GPUS] = {};
  // The streams' share of the pinned staging limit, in blocks: set at each open.
  std::atomic<size_t> stream_staging_blocks_{0};
  // Each device's memory for stream-ordered reads copied ahead: PropertiesMaxDeviceCacheSizeKB,
  // taken at each open (AsyncExecutor::SetDeviceScratchBytes).
  std::atomic<uint64_t> device_scratch_bytes_{0};
  Mutex async_mu_;  // taken after mu_ where both are held (InitializeLocked)
  // Made on first use, under async_mu_. Last member: destroyed first, waiting for operations that
  // use the members above.
  std::unique_ptr<AsyncExecutor> async_ GUARDED_BY(async_mu_);
  // async_.get() once made (it is never replaced): every stream-ordered submission reads it
  // without async_mu_, which 16 threads submitting 250k small reads a second contended for.
  std::atomic<AsyncExecutor*> async_made_{nullptr};
};

}  // namespace hipfile::core
