// SPDX-License-Identifier: MIT
#include "executor.h"

#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile_ext.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/tuple.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <tuple>

#include "results.h"

namespace nb = nanobind;

namespace hipfile::python {
namespace {

enum class Op { kReadDevice = 0, kWriteDevice = 1, kReadHost = 2, kWriteHost = 3 };

// One call's outcome, filled by a worker: (result, extra) as the low-level hipFileRead wrapper.
class CallState {
 public:
  void Finish(int64_t ret, int extra) {
    std::lock_guard<std::mutex> lock(mu_);
    ret_ = ret;
    extra_ = extra;
    done_ = true;
    cv_.notify_all();
  }
  // True once finished; waits at most `seconds` (forever when empty).
  bool Wait(std::optional<double> seconds) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!seconds) {
      cv_.wait(lock, [&] { return done_; });
      return true;
    }
    return cv_.wait_for(lock, std::chrono::duration<double>(*seconds), [&] { return done_; });
  }
  bool done() {
    std::lock_guard<std::mutex> lock(mu_);
    return done_;
  }
  std::tuple<int64_t, int> result() {
    std::lock_guard<std::mutex> lock(mu_);
    return {ret_, extra_};
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  int64_t ret_ = 0;
  int extra_ = 0;
};

struct Job {
  Op op;
  uintptr_t handle;
  uintptr_t ptr;
  size_t size;
  hoff_t file_offset;
  hoff_t buffer_offset;
  std::shared_ptr<CallState> state;
};

void Run(const Job& job) {
  errno = 0;
  auto fh = reinterpret_cast<hipFileHandle_t>(job.handle);
  ssize_t ret = 0;
  switch (job.op) {
    case Op::kReadDevice:
      ret = hipFileRead(fh, reinterpret_cast<void*>(job.ptr), job.size, job.file_offset,
                        job.buffer_offset);
      break;
    case Op::kWriteDevice:
      ret = hipFileWrite(fh, reinterpret_cast<const void*>(job.ptr), job.size, job.file_offset,
                         job.buffer_offset);
      break;
    case Op::kReadHost:
      ret = hipFileExtReadHost(fh, reinterpret_cast<char*>(job.ptr) + job.buffer_offset, job.size,
                               job.file_offset);
      break;
    case Op::kWriteHost:
      ret = hipFileExtWriteHost(fh, reinterpret_cast<const char*>(job.ptr) + job.buffer_offset,
                                job.size, job.file_offset);
      break;
  }
  const auto [result, extra] = SyncResult(ret);
  job.state->Finish(result, extra);
}

// Threads started as work arrives, up to a limit; never destroyed (the process's exit ends them:
// joining them from a static destructor could wait on a library already torn down). A forked
// child starts a pool of its own.
class Executor {
 public:
  static Executor& ForThisProcess() {
    static std::mutex mu;
    static Executor* current = nullptr;
    std::lock_guard<std::mutex> lock(mu);
    if (current == nullptr || current->pid_ != getpid()) current = new Executor();  // NOLINT
    return *current;
  }

  void set_max_threads(size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    max_threads_ = n;
  }
  size_t max_threads() {
    std::lock_guard<std::mutex> lock(mu_);
    return max_threads_;
  }

  // Queues the job; starts a thread when none is idle and the limit allows. Throws
  // std::system_error when no thread exists and none can be started (the job is not queued).
  void Submit(Job job) {
    std::unique_lock<std::mutex> lock(mu_);
    queue_.push_back(std::move(job));
    if (idle_ >= queue_.size() || threads_ >= max_threads_) {
      cv_.notify_one();
      return;
    }
    ++threads_;
    try {
      std::thread([this] { Work(); }).detach();
    } catch (const std::system_error&) {
      --threads_;
      if (threads_ == 0) {
        queue_.pop_back();
        throw;
      }
    }
    cv_.notify_one();
  }

 private:
  void Work() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      ++idle_;
      cv_.wait(lock, [&] { return !queue_.empty(); });
      --idle_;
      Job job = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      Run(job);
      lock.lock();
    }
  }

  const pid_t pid_ = getpid();
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;
  size_t threads_ = 0;
  size_t idle_ = 0;
  size_t max_threads_ = 8;
};

// What Python holds for a submitted call: the outcome, and the objects whose memory the call
// uses. Dropping it before the call finished waits for the call (with the GIL released), so the
// memory outlives every use.
class PendingCall {
 public:
  PendingCall(std::shared_ptr<CallState> state, nb::object keep)
      : keep_(std::move(keep)), state_(std::move(state)) {}
  PendingCall(const PendingCall&) = delete;
  PendingCall& operator=(const PendingCall&) = delete;
  ~PendingCall() {
    if (!state_->done()) {
      nb::gil_scoped_release release;
      state_->Wait(std::nullopt);
    }
  }
  bool wait(std::optional<double> seconds) {
    nb::gil_scoped_release release;
    return state_->Wait(seconds);
  }
  bool done() { return state_->done(); }
  std::tuple<int64_t, int> result() { return state_->result(); }

 private:
  nb::object keep_;  // destroyed after the wait above
  std::shared_ptr<CallState> state_;
};

}  // namespace

void BindExecutor(nb::module_& m) {
  nb::class_<PendingCall>(m, "_PendingCall")
      .def("wait", &PendingCall::wait, nb::arg("timeout") = nb::none(),
           "Waits until the call finished, at most timeout seconds; True when it has.")
      .def("done", &PendingCall::done)
      .def("result", &PendingCall::result, "(result, extra) as the hipFileRead wrapper's.");
  m.def(
      "_submit",
      [](int op, uintptr_t handle, uintptr_t ptr, size_t size, hoff_t file_offset,
         hoff_t buffer_offset, nb::object keep) {
        auto state = std::make_shared<CallState>();
        if (op < 0 || op > 3) throw nb::value_error("hipfile: unknown operation");
        try {
          Executor::ForThisProcess().Submit(
              Job{static_cast<Op>(op), handle, ptr, size, file_offset, buffer_offset, state});
        } catch (const std::system_error& e) {
          errno = e.code().value();
          PyErr_SetFromErrno(PyExc_OSError);
          throw nb::python_error();
        }
        return new PendingCall(std::move(state), std::move(keep));
      },
      nb::arg("op"), nb::arg("handle"), nb::arg("ptr"), nb::arg("size"), nb::arg("file_offset"),
      nb::arg("buffer_offset"), nb::arg("keep"), nb::rv_policy::take_ownership,
      "Runs one call on the executor: op 0 hipFileRead, 1 hipFileWrite, 2 hipFileExtReadHost, "
      "3 hipFileExtWriteHost. OSError when no thread could be started.");
  m.def(
      "_set_max_threads",
      [](size_t n) {
        if (n == 0) throw nb::value_error("hipfile: the executor needs at least one thread");
        Executor::ForThisProcess().set_max_threads(n);
      },
      nb::arg("n"));
  m.def("_max_threads", [] { return Executor::ForThisProcess().max_threads(); });
}

}  // namespace hipfile::python
