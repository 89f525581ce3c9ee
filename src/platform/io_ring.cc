// SPDX-License-Identifier: MIT
#include "platform/io_ring.h"

#include <errno.h>

#include <utility>

#ifdef HIPFILE_HAVE_IO_URING
#include <liburing.h>
#ifndef IORING_SETUP_SUBMIT_ALL  // liburing before 2.2 (Ubuntu 22.04); the kernel decides
#define IORING_SETUP_SUBMIT_ALL (1U << 7)
#endif
#endif

namespace hipfile::platform {

#ifdef HIPFILE_HAVE_IO_URING
namespace {

// liburing returns -errno; this keeps the errno, as PosixSys does.
Status FromRet(int ret) { return Status::Errno(-ret); }

class KernelIoRing final : public IoRing {
 public:
  explicit KernelIoRing(unsigned depth) : depth_(depth) {}
  ~KernelIoRing() override {
    if (initialized_) io_uring_queue_exit(&ring_);
  }
  KernelIoRing(const KernelIoRing&) = delete;
  KernelIoRing& operator=(const KernelIoRing&) = delete;

  // The ring is set up in place: liburing's struct is not documented as copyable.
  Status Init() {
    // SUBMIT_ALL (Linux 5.18) keeps submitting past an entry that fails early, so that a batch
    // is taken whole; older kernels refuse the flag with EINVAL and get a plain ring.
    int ret = io_uring_queue_init(depth_, &ring_, IORING_SETUP_SUBMIT_ALL);
    if (ret == -EINVAL) ret = io_uring_queue_init(depth_, &ring_, 0);
    if (ret < 0) return FromRet(ret);
    initialized_ = true;
    depth_ = *ring_.sq.kring_entries;  // the kernel rounds up to a power of two
    return Status::Ok();
  }

  unsigned depth() const override { return depth_; }

  Result<size_t> Submit(const RingOp* ops, size_t n) override {
    // After a short submission the entries the kernel did not take are still in the queue; a
    // later submission would run them.
    if (spent_) return Status::Errno(EBADFD);
    size_t queued = 0;
    for (; queued < n; ++queued) {
      io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
      if (sqe == nullptr) break;  // more than the free entries: the rest are not taken
      const RingOp& op = ops[queued];
      const auto size =
          static_cast<unsigned>(op.size < kMaxRingOpBytes ? op.size : kMaxRingOpBytes);
      if (op.kind == RingOp::Kind::kRead) {
        io_uring_prep_read(sqe, op.fd, op.buf, size, static_cast<uint64_t>(op.offset));
      } else {
        io_uring_prep_write(sqe, op.fd, op.buf, size, static_cast<uint64_t>(op.offset));
      }
      io_uring_sqe_set_data(sqe, reinterpret_cast<void*>(static_cast<uintptr_t>(op.tag)));
    }
    // The kernel may take fewer entries than queued (it stops at resource shortages); ask again
    // while it makes progress.
    size_t taken = 0;
    Status error;
    while (taken < queued) {
      const int ret = io_uring_submit(&ring_);
      if (ret < 0) {
        if (ret == -EINTR) continue;
        error = FromRet(ret);
        break;
      }
      if (ret == 0) break;
      taken += static_cast<size_t>(ret);
    }
    if (taken < n) spent_ = true;
    if (taken == 0 && n > 0) return error.ok() ? Status::Errno(EBUSY) : error;
    return taken;
  }

  Result<size_t> Wait(RingCompletion* out, size_t max, size_t min) override {
    if (min > 0) {
      io_uring_cqe* cqe = nullptr;
      const int ret = io_uring_wait_cqe_nr(&ring_, &cqe, static_cast<unsigned>(min));
      if (ret < 0) return FromRet(ret);
    }
    size_t n = 0;
    unsigned head = 0;
    io_uring_cqe* cqe = nullptr;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      if (n == max) break;
      out[n++] = RingCompletion{cqe->user_data, cqe->res};
    }
    io_uring_cq_advance(&ring_, static_cast<unsigned>(n));
    return n;
  }

 private:
  io_uring ring_{};
  unsigned depth_;
  bool initialized_ = false;
  bool spent_ = false;
};

}  // namespace

Result<std::unique_ptr<IoRing>> CreateKernelIoRing(unsigned depth) {
  if (depth == 0) return Status::Errno(EINVAL);
  auto ring = std::make_unique<KernelIoRing>(depth);
  HF_RETURN_IF_ERROR(ring->Init());
  return std::unique_ptr<IoRing>(std::move(ring));
}

#else  // built without liburing

Result<std::unique_ptr<IoRing>> CreateKernelIoRing(unsigned /*depth*/) {
  return Status::Errno(ENOSYS);
}

#endif

}  // namespace hipfile::platform
