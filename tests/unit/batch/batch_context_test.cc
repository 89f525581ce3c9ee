// SPDX-License-Identifier: MIT
// BatchContext on its own: capacity, events, waiting, cancel and close, grouping, with plain
// functions standing in for the entries' transfers (looked up by cookie by the test's Runner).
#include "core/batch/batch_context.h"

#include <errno.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace hipfile::core {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

void* Cookie(uintptr_t n) { return reinterpret_cast<void*>(n); }

// What the test's Runner does for an entry, by cookie.
using Work = std::function<Result<size_t>()>;
struct Entry {
  void* cookie = nullptr;
  Work work;
  size_t size = 1;
};

// Accepts entries into a batch and runs them, recording which transfers each Run got.
class Harness {
 public:
  explicit Harness(BatchContext& batch) : batch_(batch) {}

  Result<uint64_t> Accept(std::vector<Entry> entries) {
    std::vector<BatchTransfer> transfers(entries.size());
    for (size_t i = 0; i < entries.size(); ++i) {
      transfers[i].cookie = entries[i].cookie;
      transfers[i].size = entries[i].size;
      std::lock_guard<std::mutex> lock(mu_);
      works_[entries[i].cookie] = std::move(entries[i].work);
    }
    return batch_.Accept(std::move(transfers));
  }
  Result<uint64_t> Accept(std::vector<BatchTransfer> transfers) {
    return batch_.Accept(std::move(transfers));
  }

  // Runs entry id alone.
  void Run(uint64_t id) { Run(id, BatchContext::GroupLimits{}); }
  void Run(uint64_t id, const BatchContext::GroupLimits& limits) {
    batch_.Run(id, limits, Runner());
  }
  bool RunNext(const BatchContext::GroupLimits& limits) { return batch_.RunNext(limits, Runner()); }
  BatchContext::Runner Runner() {
    return [this](const std::vector<const BatchTransfer*>& transfers, Result<size_t>* results) {
      std::vector<void*> group;
      for (size_t i = 0; i < transfers.size(); ++i) {
        group.push_back(transfers[i]->cookie);
        Work work;
        {
          std::lock_guard<std::mutex> lock(mu_);
          work = works_[transfers[i]->cookie];
        }
        results[i] = work ? work() : Result<size_t>(transfers[i]->size);
      }
      std::lock_guard<std::mutex> lock(mu_);
      groups_.push_back(group);
    };
  }
  // The cookies of each Run's transfers, in the order Runs happened.
  std::vector<std::vector<void*>> groups() {
    std::lock_guard<std::mutex> lock(mu_);
    return groups_;
  }

 private:
  BatchContext& batch_;
  std::mutex mu_;
  std::map<void*, Work> works_;
  std::vector<std::vector<void*>> groups_;
};

std::vector<Entry> Entries(size_t count, size_t bytes = 1) {
  std::vector<Entry> entries(count);
  for (size_t i = 0; i < count; ++i) {
    entries[i].cookie = Cookie(i + 1);
    entries[i].size = bytes;
    entries[i].work = [bytes] { return Result<size_t>(bytes); };
  }
  return entries;
}

BatchDeadline Poll() { return BatchDeadline(Clock::now()); }

TEST(BatchContextTest, AcceptsAllOrNothingWithinCapacity) {
  BatchContext batch(4);
  Harness h(batch);
  Result<uint64_t> first = h.Accept(Entries(3));
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(h.Accept(Entries(2)).status().IsOp(hipFileBatchFull));
  EXPECT_EQ(batch.Outstanding(), 3u);
  Result<uint64_t> next = h.Accept(Entries(1));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, *first + 3);  // ids are consecutive
  EXPECT_TRUE(h.Accept(Entries(1)).status().IsOp(hipFileBatchFull));
}

TEST(BatchContextTest, EventsCarryCookieStatusAndRet) {
  BatchContext batch(8);
  Harness h(batch);
  std::vector<Entry> entries(4);
  entries[0].work = [] { return Result<size_t>(4096); };
  entries[1].work = [] { return Result<size_t>(Status::Errno(EIO)); };
  entries[2].work = [] { return Result<size_t>(Status::Op(hipFileInvalidValue)); };
  entries[3].work = [] { return Result<size_t>(Status::Gpu(hipErrorOutOfMemory)); };
  for (size_t i = 0; i < entries.size(); ++i) entries[i].cookie = Cookie(10 + i);
  const Result<uint64_t> first = h.Accept(std::move(entries));
  ASSERT_TRUE(first.ok());
  for (uint64_t id = *first; id < *first + 4; ++id) h.Run(id);

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
  Harness h(batch);
  const Result<uint64_t> first = h.Accept(Entries(5));
  ASSERT_TRUE(first.ok());
  // Completion order, not submission order.
  for (uint64_t id : {*first + 4, *first + 1, *first + 3, *first, *first + 2}) h.Run(id);
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
  EXPECT_TRUE(h.Accept(Entries(8)).ok());
}

TEST(BatchContextTest, PollAndTimeoutReturnWithFewerEvents) {
  BatchContext batch(4);
  Harness h(batch);
  ASSERT_TRUE(h.Accept(Entries(2)).ok());  // never run
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
  Harness h(batch);
  const Result<uint64_t> first = h.Accept(Entries(2));
  ASSERT_TRUE(first.ok());
  h.Run(*first);
  h.Run(*first + 1);
  hipFileIOEvents_t events[8] = {};
  EXPECT_EQ(batch.Reap(8, 8, BatchDeadline(), events), 2u);  // would wait forever uncapped
  EXPECT_EQ(batch.Reap(8, 8, BatchDeadline(), events), 0u);  // nothing outstanding
}

TEST(BatchContextTest, WaitEndsWhenAnotherThreadCompletesAnEntry) {
  BatchContext batch(4);
  Harness h(batch);
  const Result<uint64_t> first = h.Accept(Entries(1));
  ASSERT_TRUE(first.ok());
  std::thread worker([&] {
    std::this_thread::sleep_for(milliseconds(20));
    h.Run(*first);
  });
  hipFileIOEvents_t event = {};
  EXPECT_EQ(batch.Reap(1, 1, BatchDeadline(), &event), 1u);
  EXPECT_EQ(event.status, hipFileComplete);
  worker.join();
}

TEST(BatchContextTest, CancelCancelsPendingAndWaitsForRunning) {
  BatchContext batch(4);
  Harness h(batch);
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::vector<Entry> entries = Entries(3, 7);
  entries[0].work = [&started, released] {
    started.set_value();
    released.wait();
    return Result<size_t>(100);
  };
  const Result<uint64_t> first = h.Accept(std::move(entries));
  ASSERT_TRUE(first.ok());
  std::thread worker([&] { h.Run(*first); });
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
  h.Run(*first + 1);
  EXPECT_EQ(batch.Reap(0, 3, Poll(), events), 0u);
  // The batch stays usable.
  EXPECT_TRUE(h.Accept(Entries(4)).ok());
}

TEST(BatchContextTest, CloseRefusesNewEntriesAndCancelsPending) {
  BatchContext batch(4);
  Harness h(batch);
  ASSERT_TRUE(h.Accept(Entries(2)).ok());
  batch.Close();
  EXPECT_TRUE(h.Accept(Entries(1)).status().IsOp(hipFileInvalidValue));
  hipFileIOEvents_t events[2] = {};
  EXPECT_EQ(batch.Reap(2, 2, Poll(), events), 2u);
  EXPECT_EQ(events[1].status, hipFileCanceled);
}

// What the driver's last close does to a batch whose handle it drops: nothing runs or is accepted
// any more, a waiter gets the canceled entries' events, and the running entry is left to finish -
// the close does not wait for it.
TEST(BatchContextTest, DropCancelsPendingAndLeavesRunningEntriesToFinish) {
  BatchContext batch(4);
  Harness h(batch);
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::vector<Entry> entries = Entries(3, 7);
  entries[0].work = [&started, released] {
    started.set_value();
    released.wait();
    return Result<size_t>(100);
  };
  const Result<uint64_t> first = h.Accept(std::move(entries));
  ASSERT_TRUE(first.ok());
  std::thread worker([&] { h.Run(*first); });
  started.get_future().wait();
  std::vector<hipFileIOEvents_t> waited(3);
  std::thread waiter([&] { waited.resize(batch.Reap(2, 3, BatchDeadline(), waited.data())); });

  batch.Drop();  // returns with the entry still running
  waiter.join();
  ASSERT_EQ(waited.size(), 2u);
  EXPECT_EQ(waited[0].status, hipFileCanceled);
  EXPECT_EQ(waited[1].status, hipFileCanceled);
  EXPECT_TRUE(h.Accept(Entries(1)).status().IsOp(hipFileInvalidValue));
  h.Run(*first + 1);  // a run of a canceled entry does nothing
  EXPECT_EQ(batch.Outstanding(), 1u);
  release.set_value();
  worker.join();
  hipFileIOEvents_t event = {};
  ASSERT_EQ(batch.Reap(1, 1, Poll(), &event), 1u);
  EXPECT_EQ(event.status, hipFileComplete);
  EXPECT_EQ(event.ret, 100u);
}

// A transfer holding a registered buffer's reference, as a submitted entry does.
std::vector<BatchTransfer> HoldingTransfer(const std::shared_ptr<Buffer>& buffer) {
  std::vector<BatchTransfer> transfers(1);
  transfers[0].cookie = Cookie(1);
  transfers[0].size = 1;
  transfers[0].io.registered = buffer;
  return transfers;
}

TEST(BatchContextTest, TransferIsReleasedBeforeItsEventIsVisible) {
  BatchContext batch(2);
  Harness h(batch);
  auto held = std::make_shared<Buffer>();
  std::weak_ptr<Buffer> watch = held;
  const Result<uint64_t> first = h.Accept(HoldingTransfer(held));
  held.reset();
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(watch.expired());
  std::thread worker([&] { h.Run(*first); });
  hipFileIOEvents_t event = {};
  ASSERT_EQ(batch.Reap(1, 1, BatchDeadline(), &event), 1u);
  EXPECT_TRUE(watch.expired());  // before the worker is joined
  worker.join();
}

TEST(BatchContextTest, CancelReleasesTheTransfersOfCanceledEntries) {
  BatchContext batch(2);
  Harness h(batch);
  auto held = std::make_shared<Buffer>();
  std::weak_ptr<Buffer> watch = held;
  ASSERT_TRUE(h.Accept(HoldingTransfer(held)).ok());
  held.reset();
  batch.Cancel();
  EXPECT_TRUE(watch.expired());
}

TEST(BatchContextTest, RunClaimsSmallPendingEntriesAfterItsOwn) {
  BatchContext batch(16);
  Harness h(batch);
  std::vector<Entry> entries = Entries(8, 4096);
  entries[3].size = 1 << 20;  // too large to share a group
  entries[3].work = nullptr;  // moves its size
  const Result<uint64_t> first = h.Accept(std::move(entries));
  ASSERT_TRUE(first.ok());
  BatchContext::GroupLimits limits;
  limits.max_entries = 4;
  limits.max_bytes = 64 << 10;
  limits.spread = 1;
  h.Run(*first + 1, limits);  // entries 2, 3, 5, 6: the large 4th is skipped, the 1st is before
  h.Run(*first + 2, limits);  // claimed already: nothing
  h.Run(*first + 3, limits);  // the large one, alone
  h.Run(*first, limits);      // 1, 7, 8
  const std::vector<std::vector<void*>> groups = h.groups();
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0], (std::vector<void*>{Cookie(2), Cookie(3), Cookie(5), Cookie(6)}));
  EXPECT_EQ(groups[1], (std::vector<void*>{Cookie(4)}));
  EXPECT_EQ(groups[2], (std::vector<void*>{Cookie(1), Cookie(7), Cookie(8)}));
  hipFileIOEvents_t events[8] = {};
  ASSERT_EQ(batch.Reap(8, 8, Poll(), events), 8u);
  for (const hipFileIOEvents_t& e : events) {
    EXPECT_EQ(e.status, hipFileComplete);
    EXPECT_EQ(e.ret, e.cookie == Cookie(4) ? 1u << 20 : 4096u);
  }
}

TEST(BatchContextTest, GroupTakesOnlyItsShareOfWhatIsPending) {
  BatchContext batch(16);
  Harness h(batch);
  const Result<uint64_t> first = h.Accept(Entries(12, 4096));
  ASSERT_TRUE(first.ok());
  BatchContext::GroupLimits limits;
  limits.max_entries = 16;
  limits.max_bytes = 4096;
  limits.spread = 4;  // 12 pending over 4 workers: 3 each
  h.Run(*first, limits);
  h.Run(*first + 3, limits);  // 9 pending: 3
  h.Run(*first + 6, limits);  // 6 pending: 2
  const std::vector<std::vector<void*>> groups = h.groups();
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].size(), 3u);
  EXPECT_EQ(groups[1].front(), Cookie(4));
  EXPECT_EQ(groups[1].size(), 3u);
  EXPECT_EQ(groups[2].size(), 2u);
  EXPECT_EQ(batch.Outstanding(), 12u);  // 8 events waiting, 4 pending
}

// Many batches busy at once: a batch's share is of what is pending in all of them, so a batch
// holding few entries is not spread one entry per worker while others wait. The shared count
// follows accepts, claims and cancels.
TEST(BatchContextTest, GroupShareCountsWhatIsPendingInEveryBatch) {
  std::atomic<size_t> pending{0};
  BatchContext busy(128, &pending), small(16, &pending);
  Harness hb(busy), hs(small);
  ASSERT_TRUE(hb.Accept(Entries(60, 4096)).ok());
  const Result<uint64_t> first = hs.Accept(Entries(6, 4096));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(pending.load(), 66u);
  BatchContext::GroupLimits limits;
  limits.max_entries = 4;
  limits.max_bytes = 4096;
  limits.spread = 8;  // alone, 6 pending over 8 workers would be 1 each
  hs.Run(*first, limits);
  EXPECT_EQ(hs.groups().back().size(), 4u) << "66 pending over 8 workers: a full group";
  EXPECT_EQ(pending.load(), 62u);
  small.Cancel();  // the 2 left
  EXPECT_EQ(pending.load(), 60u);
  busy.Close();
  EXPECT_EQ(pending.load(), 0u);
  // Without the shared count the same batch is spread thin.
  BatchContext alone(16);
  Harness ha(alone);
  const Result<uint64_t> id = ha.Accept(Entries(6, 4096));
  ASSERT_TRUE(id.ok());
  ha.Run(*id, limits);
  EXPECT_EQ(ha.groups().back().size(), 1u);
}

// Runs to queue: one per group the Pending entries make, less those queued and not started; a
// started run counts no more, so what it leaves is asked for again; nothing once none is Pending.
TEST(BatchContextTest, RunsToQueueFollowPendingEntriesNotSubmissions) {
  BatchContext batch(64);
  Harness h(batch);
  BatchContext::GroupLimits limits;
  limits.max_entries = 16;
  limits.max_bytes = 4096;
  limits.spread = 1;
  EXPECT_EQ(batch.RunsToQueue(limits), 0u) << "nothing pending";
  ASSERT_TRUE(h.Accept(Entries(40, 4096)).ok());
  EXPECT_EQ(batch.RunsToQueue(limits), 3u);  // 16 + 16 + 8
  EXPECT_EQ(batch.RunsToQueue(limits), 0u) << "queued already";
  for (int i = 0; i < 10; ++i) {
    // One entry per submission, as a program refilling on every completion submits.
    ASSERT_TRUE(h.Accept(Entries(1, 4096)).ok());
    // 41..48 pending fit in the 3 groups queued; 49 need a 4th; 50 fit in 4.
    EXPECT_EQ(batch.RunsToQueue(limits), i == 8 ? 1u : 0u) << i;
  }
  // 50 pending, 4 queued. Each run takes 16 and leaves the rest to the runs still queued.
  EXPECT_TRUE(h.RunNext(limits));
  EXPECT_EQ(batch.RunsToQueue(limits), 0u);  // 34 pending: 3 groups, 3 queued
  EXPECT_TRUE(h.RunNext(limits));
  EXPECT_TRUE(h.RunNext(limits));
  EXPECT_EQ(batch.RunsToQueue(limits), 0u);  // 2 pending, 1 queued
  EXPECT_FALSE(h.RunNext(limits));
  EXPECT_EQ(batch.RunsToQueue(limits), 0u) << "nothing pending";
  EXPECT_EQ(batch.Outstanding(), 50u);
  // A queued run whose entry was canceled meanwhile finds nothing, and no longer counts.
  ASSERT_TRUE(h.Accept(Entries(1, 4096)).ok());
  EXPECT_EQ(batch.RunsToQueue(limits), 1u);
  batch.Cancel();
  EXPECT_FALSE(h.RunNext(limits));
  ASSERT_TRUE(h.Accept(Entries(1, 4096)).ok());
  EXPECT_EQ(batch.RunsToQueue(limits), 1u);
}

// The worker pool hands out one RunNext per group: each takes the oldest Pending entries and
// says whether any are left for the next run.
TEST(BatchContextTest, RunNextTakesTheOldestPendingAndSaysWhatIsLeft) {
  BatchContext batch(16);
  Harness h(batch);
  const Result<uint64_t> first = h.Accept(Entries(11, 4096));
  ASSERT_TRUE(first.ok());
  h.Run(*first + 1);  // entry 2 alone
  BatchContext::GroupLimits limits;
  limits.max_entries = 4;
  limits.max_bytes = 4096;
  limits.spread = 1;
  EXPECT_EQ(batch.GroupShare(limits), 4u);
  EXPECT_TRUE(h.RunNext(limits));
  EXPECT_TRUE(h.RunNext(limits));
  limits.spread = 3;  // 2 pending over 3 workers: 1 each
  EXPECT_EQ(batch.GroupShare(limits), 1u);
  EXPECT_TRUE(h.RunNext(limits));
  EXPECT_FALSE(h.RunNext(limits)) << "the last pending entry";
  EXPECT_FALSE(h.RunNext(limits)) << "nothing to run";
  const std::vector<std::vector<void*>> groups = h.groups();
  ASSERT_EQ(groups.size(), 5u);
  EXPECT_EQ(groups[1], (std::vector<void*>{Cookie(1), Cookie(3), Cookie(4), Cookie(5)}));
  EXPECT_EQ(groups[2], (std::vector<void*>{Cookie(6), Cookie(7), Cookie(8), Cookie(9)}));
  EXPECT_EQ(groups[3], std::vector<void*>{Cookie(10)});
  EXPECT_EQ(groups[4], std::vector<void*>{Cookie(11)});
}

TEST(BatchContextTest, EachEntryOfAGroupGetsItsOwnResult) {
  BatchContext batch(4);
  Harness h(batch);
  std::vector<Entry> entries = Entries(3, 512);
  entries[1].work = [] { return Result<size_t>(Status::Errno(EIO)); };
  entries[2].work = [] { return Result<size_t>(100); };  // short: end of file
  const Result<uint64_t> first = h.Accept(std::move(entries));
  ASSERT_TRUE(first.ok());
  BatchContext::GroupLimits limits;
  limits.max_entries = 8;
  limits.max_bytes = 512;
  h.Run(*first, limits);
  ASSERT_EQ(h.groups().size(), 1u);
  hipFileIOEvents_t events[3] = {};
  ASSERT_EQ(batch.Reap(3, 3, Poll(), events), 3u);
  EXPECT_EQ(events[0].cookie, Cookie(1));
  EXPECT_EQ(events[0].ret, 512u);
  EXPECT_EQ(events[1].cookie, Cookie(2));
  EXPECT_EQ(events[1].status, hipFileFailed);
  EXPECT_EQ(static_cast<ssize_t>(events[1].ret), -EIO);
  EXPECT_EQ(events[2].status, hipFileComplete);
  EXPECT_EQ(events[2].ret, 100u);
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
