// BatchContext on its own: capacity, events, waiting, cancel and close, with plain functions as
// the entries' work.
#include "core/batch/batch_context.h"

#include <errno.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>
#include <vector>

namespace hipfile::core {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

void* Cookie(uintptr_t n) { return reinterpret_cast<void*>(n); }

std::vector<BatchContext::Entry> Entries(size_t count, size_t bytes = 1) {
  std::vector<BatchContext::Entry> entries(count);
  for (size_t i = 0; i < count; ++i) {
    entries[i].cookie = Cookie(i + 1);
    entries[i].work = [bytes] { return Result<size_t>(bytes); };
  }
  return entries;
}

BatchDeadline Poll() { return BatchDeadline(Clock::now()); }

TEST(BatchContextTest, AcceptsAllOrNothingWithinCapacity) {
  BatchContext batch(4);
  Result<uint64_t> first = batch.Accept(Entries(3));
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(batch.Accept(Entries(2)).status().IsOp(hipFileBatchFull));
  EXPECT_EQ(batch.Outstanding(), 3u);
  Result<uint64_t> next = batch.Accept(Entries(1));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, *first + 3);  // ids are consecutive
  EXPECT_TRUE(batch.Accept(Entries(1)).status().IsOp(hipFileBatchFull));
}

TEST(BatchContextTest, EventsCarryCookieStatusAndRet) {
  BatchContext batch(8);
  std::vector<BatchContext::Entry> entries(4);
  entries[0].work = [] { return Result<size_t>(4096); };
  entries[1].work = [] { return Result<size_t>(Status::Errno(EIO)); };
  entries[2].work = [] { return Result<size_t>(Status::Op(hipFileInvalidValue)); };
  entries[3].work = [] { return Result<size_t>(Status::Gpu(hipErrorOutOfMemory)); };
  for (size_t i = 0; i < entries.size(); ++i) entries[i].cookie = Cookie(10 + i);
  const Result<uint64_t> first = batch.Accept(std::move(entries));
  ASSERT_TRUE(first.ok());
  for (uint64_t id = *first; id < *first + 4; ++id) batch.Run(id);

  hipFileIOEvents_t events[4] = {};
  ASSERT_EQ(batch.Reap(4, 4, Poll(), events), 4u);
  EXPECT_EQ(events[0].cookie, Cookie(10));
  EXPECT_EQ(events[0].status, hipFileComplete);
  EXPECT_EQ(events[0].ret, 4096u);
  EXPECT_EQ(events[1].cookie, Cookie(11));
  EXPECT_EQ(events[1].status, hipFileFailed);
  EXPECT_EQ(static_cast<ssize_t>(events[1].ret), -EIO);
  EXPECT_EQ(events[2].status, hipFileFailed);
  EXPECT_EQ(static_cast<ssize_t>(events[2].ret), -static_cast<ssize_t>(hipFileInvalidValue));
  EXPECT_EQ(events[3].status, hipFileFailed);
  EXPECT_EQ(static_cast<ssize_t>(events[3].ret), -static_cast<ssize_t>(hipFileHipDriverError));
  EXPECT_EQ(batch.Outstanding(), 0u);
}

TEST(BatchContextTest, ReapReturnsOldestFirstOnceAndAtMostMaxEvents) {
  BatchContext batch(8);
  const Result<uint64_t> first = batch.Accept(Entries(5));
  ASSERT_TRUE(first.ok());
  // Completion order, not submission order.
  for (uint64_t id : {*first + 4, *first + 1, *first + 3, *first, *first + 2}) batch.Run(id);
  hipFileIOEvents_t events[5] = {};
  ASSERT_EQ(batch.Reap(0, 2, Poll(), events), 2u);
  EXPECT_EQ(events[0].cookie, Cookie(5));
  EXPECT_EQ(events[1].cookie, Cookie(2));
  ASSERT_EQ(batch.Reap(0, 5, Poll(), events), 3u);
  EXPECT_EQ(events[0].cookie, Cookie(4));
  EXPECT_EQ(events[1].cookie, Cookie(1));
  EXPECT_EQ(events[2].cookie, Cookie(3));
  EXPECT_EQ(batch.Reap(0, 5, Poll(), events), 0u);
  // Reaped events free capacity.
  EXPECT_TRUE(batch.Accept(Entries(8)).ok());
}

TEST(BatchContextTest, PollAndTimeoutReturnWithFewerEvents) {
  BatchContext batch(4);
  ASSERT_TRUE(batch.Accept(Entries(2)).ok());  // never run
  hipFileIOEvents_t events[2] = {};
  auto start = Clock::now();
  EXPECT_EQ(batch.Reap(1, 2, Poll(), events), 0u);
  EXPECT_LT(Clock::now() - start, milliseconds(40));

  start = Clock::now();
  EXPECT_EQ(batch.Reap(1, 2, BatchDeadline(start + milliseconds(50)), events), 0u);
  const auto waited = Clock::now() - start;
  EXPECT_GE(waited, milliseconds(45));
  EXPECT_LT(waited, milliseconds(500));
}

TEST(BatchContextTest, MinNrIsCappedAtOutstanding) {
  BatchContext batch(8);
  const Result<uint64_t> first = batch.Accept(Entries(2));
  ASSERT_TRUE(first.ok());
  batch.Run(*first);
  batch.Run(*first + 1);
  hipFileIOEvents_t events[8] = {};
  EXPECT_EQ(batch.Reap(8, 8, BatchDeadline(), events), 2u);  // would wait forever uncapped
  EXPECT_EQ(batch.Reap(8, 8, BatchDeadline(), events), 0u);  // nothing outstanding
}

TEST(BatchContextTest, WaitEndsWhenAnotherThreadCompletesAnEntry) {
  BatchContext batch(4);
  const Result<uint64_t> first = batch.Accept(Entries(1));
  ASSERT_TRUE(first.ok());
  std::thread worker([&] {
    std::this_thread::sleep_for(milliseconds(20));
    batch.Run(*first);
  });
  hipFileIOEvents_t event = {};
  EXPECT_EQ(batch.Reap(1, 1, BatchDeadline(), &event), 1u);
  EXPECT_EQ(event.status, hipFileComplete);
  worker.join();
}

TEST(BatchContextTest, CancelCancelsPendingAndWaitsForRunning) {
  BatchContext batch(4);
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::vector<BatchContext::Entry> entries = Entries(3, 7);
  entries[0].work = [&started, released] {
    started.set_value();
    released.wait();
    return Result<size_t>(100);
  };
  const Result<uint64_t> first = batch.Accept(std::move(entries));
  ASSERT_TRUE(first.ok());
  std::thread worker([&] { batch.Run(*first); });
  started.get_future().wait();

  std::atomic<bool> cancel_returned{false};
  std::thread canceller([&] {
    batch.Cancel();
    cancel_returned = true;
  });
  // The pending two are Canceled at once; the running one is waited for.
  hipFileIOEvents_t events[3] = {};
  ASSERT_EQ(batch.Reap(2, 3, BatchDeadline(), events), 2u);
  EXPECT_EQ(events[0].status, hipFileCanceled);
  EXPECT_EQ(events[0].ret, 0u);
  EXPECT_EQ(events[1].status, hipFileCanceled);
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(cancel_returned);
  release.set_value();
  canceller.join();
  worker.join();
  EXPECT_TRUE(cancel_returned);
  ASSERT_EQ(batch.Reap(1, 3, Poll(), events), 1u);
  EXPECT_EQ(events[0].cookie, Cookie(1));
  EXPECT_EQ(events[0].status, hipFileComplete);
  EXPECT_EQ(events[0].ret, 100u);
  // Runs of canceled entries do nothing.
  batch.Run(*first + 1);
  EXPECT_EQ(batch.Reap(0, 3, Poll(), events), 0u);
  // The batch stays usable.
  EXPECT_TRUE(batch.Accept(Entries(4)).ok());
}

TEST(BatchContextTest, CloseRefusesNewEntriesAndCancelsPending) {
  BatchContext batch(4);
  ASSERT_TRUE(batch.Accept(Entries(2)).ok());
  batch.Close();
  EXPECT_TRUE(batch.Accept(Entries(1)).status().IsOp(hipFileInvalidValue));
  hipFileIOEvents_t events[2] = {};
  EXPECT_EQ(batch.Reap(2, 2, Poll(), events), 2u);
  EXPECT_EQ(events[1].status, hipFileCanceled);
}

TEST(BatchContextTest, WorkIsReleasedBeforeItsEventIsVisible) {
  BatchContext batch(2);
  auto held = std::make_shared<int>(1);
  std::weak_ptr<int> watch = held;
  std::vector<BatchContext::Entry> entries(1);
  entries[0].work = [held] { return Result<size_t>(1); };
  held.reset();
  const Result<uint64_t> first = batch.Accept(std::move(entries));
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(watch.expired());
  std::thread worker([&] { batch.Run(*first); });
  hipFileIOEvents_t event = {};
  ASSERT_EQ(batch.Reap(1, 1, BatchDeadline(), &event), 1u);
  EXPECT_TRUE(watch.expired());  // before the worker is joined
  worker.join();
}

TEST(BatchContextTest, CancelReleasesTheWorkOfCanceledEntries) {
  BatchContext batch(2);
  auto held = std::make_shared<int>(1);
  std::weak_ptr<int> watch = held;
  std::vector<BatchContext::Entry> entries(1);
  entries[0].work = [held] { return Result<size_t>(1); };
  held.reset();
  ASSERT_TRUE(batch.Accept(std::move(entries)).ok());
  batch.Cancel();
  EXPECT_TRUE(watch.expired());
}

TEST(BatchContextTest, EventRetEncodesErrorsNegatively) {
  EXPECT_EQ(EventRet(Result<size_t>(12)), 12u);
  EXPECT_EQ(static_cast<ssize_t>(EventRet(Status::Errno(EBADF))), -EBADF);
  EXPECT_EQ(static_cast<ssize_t>(EventRet(Status::Op(hipFileHandleNotRegistered))),
            -static_cast<ssize_t>(hipFileHandleNotRegistered));
  EXPECT_EQ(static_cast<ssize_t>(EventRet(Status::Gpu(hipErrorInvalidValue))),
            -static_cast<ssize_t>(hipFileHipDriverError));
}

}  // namespace
}  // namespace hipfile::core
