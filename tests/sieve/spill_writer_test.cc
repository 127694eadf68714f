// The spill writer (spill_store.h): segments are compressed and written by a
// background thread, and nothing of the queue's contract moves. Order stays
// exact (FIFO and LIFO) when pops reach segments the writer has not started
// (taken back from memory) or is writing (waited for); a failed write keeps
// its segment in memory, in order, and Health() reports it; a checkpoint
// taken while writes are pending holds every URL; a queue destroyed with
// jobs queued does not hang. No test waits on a clock: the writer is paused
// (PauseWriterForTesting) where a test needs jobs to stay queued.
#include <sys/resource.h>

#include <csignal>
#include <deque>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../../sieve/src/file_io.h"
#include "../../sieve/src/lanes.h"
#include "../../sieve/src/segment_file.h"
#include "../../sieve/src/spill_queue.h"
#include "../../sieve/src/spill_store.h"
#include "gtest/gtest.h"
#include "sieve/sieve.h"
#include "sieve/test_urls.h"

namespace sieve::internal {
namespace {

using sieve_test::ScratchDir;
using sieve_test::TestUrl;

std::string PayloadOf(std::string_view url) { return "p:" + std::to_string(url.size()); }

std::string PopOk(SpillQueue& queue) {
  absl::StatusOr<std::optional<SieveEntry>> entry = queue.Pop();
  EXPECT_TRUE(entry.ok()) << entry.status();
  if (!entry.ok() || !entry->has_value()) return "<none>";
  EXPECT_EQ((*entry)->payload, PayloadOf((*entry)->url));
  return (*entry)->url;
}

// The least budget: 4 KiB segments, so one push seals at most two.
constexpr size_t kTinyBudget = 8 << 10;

class SpillWriterOrderTest : public testing::TestWithParam<LaneOrder> {};

// Pops reach segments still queued for the writer (paused): they are taken
// back from memory, in order, and no file is written for them.
TEST_P(SpillWriterOrderTest, PopsTakeQueuedSegmentsBackInOrder) {
  ScratchDir dir;
  SpillStore store(dir.path(), nullptr);
  SpillQueue queue(
      {.memory_budget_bytes = kTinyBudget, .spill_dir = dir.path(), .order = GetParam()}, &store);
  std::deque<std::string> model;
  uint64_t next = 0;
  for (int round = 0; round < 20; ++round) {
    store.PauseWriterForTesting(true);
    // Up to kMaxUnwrittenSegments - 2 queued: the next push (sealing at
    // most two) cannot find the writer full, so it never waits.
    while (store.Unwritten() + 2 < kMaxUnwrittenSegments) {
      const std::string url = TestUrl(next++);
      queue.Push(url, PayloadOf(url));
      model.push_back(url);
    }
    ASSERT_GT(store.HeldBytes(), 0u);
    // Pop half of what is queued while the jobs wait.
    for (size_t i = model.size() / 2; i > 0; --i) {
      if (GetParam() == LaneOrder::kFifo) {
        ASSERT_EQ(PopOk(queue), model.front());
        model.pop_front();
      } else {
        ASSERT_EQ(PopOk(queue), model.back());
        model.pop_back();
      }
    }
    store.PauseWriterForTesting(false);
  }
  while (!model.empty()) {
    if (GetParam() == LaneOrder::kFifo) {
      ASSERT_EQ(PopOk(queue), model.front());
      model.pop_front();
    } else {
      ASSERT_EQ(PopOk(queue), model.back());
      model.pop_back();
    }
  }
  EXPECT_EQ(queue.Size(), 0u);
  queue.WaitForWrites();
  EXPECT_EQ(store.HeldBytes(), 0u);
  EXPECT_EQ(store.DiskBytes(), 0u);
  EXPECT_TRUE(store.Health().ok()) << store.Health();
}

// The writer running: pops race its writes (a pop may find the segment it
// needs queued, being written, or on disk), many lanes share it, and the
// order of each lane is exact.
TEST_P(SpillWriterOrderTest, ManyLanesRacingTheWriterKeepExactOrder) {
  ScratchDir dir;
  LaneSet lanes({.memory_budget_bytes = 64 << 10, .spill_dir = dir.path(), .order = GetParam()});
  std::map<int32_t, std::deque<std::string>> model;
  std::mt19937 random(7);
  uint64_t next = 0;
  size_t queued = 0;
  for (int step = 0; step < 200000; ++step) {
    if (random() % 8 < 5) {
      const int32_t priority = static_cast<int32_t>(random() % 16);
      const std::string url = TestUrl(next++);
      lanes.Push(priority, url, PayloadOf(url));
      model[priority].push_back(url);
      ++queued;
    } else if (queued > 0) {
      absl::StatusOr<std::optional<SieveEntry>> entry = lanes.Pop();
      ASSERT_TRUE(entry.ok()) << entry.status();
      ASSERT_TRUE(entry->has_value());
      auto highest = std::prev(model.end());
      while (highest->second.empty()) highest = std::prev(highest);
      std::deque<std::string>& lane = highest->second;
      const std::string expected = GetParam() == LaneOrder::kFifo ? lane.front() : lane.back();
      GetParam() == LaneOrder::kFifo ? lane.pop_front() : lane.pop_back();
      ASSERT_EQ((*entry)->url, expected) << "step " << step;
      ASSERT_EQ((*entry)->priority, highest->first);
      --queued;
    }
  }
  lanes.WaitForWrites();
  EXPECT_GT(lanes.SpilledSegments(), 0u);
  while (queued > 0) {
    absl::StatusOr<std::optional<SieveEntry>> entry = lanes.Pop();
    ASSERT_TRUE(entry.ok() && entry->has_value());
    auto highest = std::prev(model.end());
    while (highest->second.empty()) highest = std::prev(highest);
    std::deque<std::string>& lane = highest->second;
    const std::string expected = GetParam() == LaneOrder::kFifo ? lane.front() : lane.back();
    GetParam() == LaneOrder::kFifo ? lane.pop_front() : lane.pop_back();
    ASSERT_EQ((*entry)->url, expected);
    --queued;
  }
  EXPECT_EQ(lanes.Size(), 0u);
  EXPECT_EQ(lanes.DiskBytes(), 0u);
}

// A full disk, simulated with RLIMIT_FSIZE (process-wide: the writer thread's
// writes fail with EFBIG, as on a full disk with ENOSPC).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    old_handler_ = ::signal(SIGXFSZ, SIG_IGN);
    ::getrlimit(RLIMIT_FSIZE, &old_);
    rlimit limited = old_;
    limited.rlim_cur = bytes;
    EXPECT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    ::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_;
  sighandler_t old_handler_;
};

// Writes that fail in the writer keep their segments in memory, in order;
// Health() reports them, and clears once a later write succeeds.
TEST_P(SpillWriterOrderTest, FailedWritesKeepSegmentsInMemoryInOrder) {
  ScratchDir dir;
  SpillQueue queue({.memory_budget_bytes = 64 << 10, .spill_dir = dir.path(), .order = GetParam()});
  std::vector<std::string> pushed;
  auto push = [&](int count) {
    for (int i = 0; i < count; ++i) {
      pushed.push_back(TestUrl(pushed.size()));
      queue.Push(pushed.back(), PayloadOf(pushed.back()));
    }
  };
  push(3000);
  queue.WaitForWrites();
  ASSERT_GT(queue.SpilledSegments(), 0u);
  {
    FileSizeLimit limit(256);  // below any segment file
    push(5000);
    queue.WaitForWrites();  // the writes fail under the limit
    EXPECT_EQ(queue.Health().code(), absl::StatusCode::kResourceExhausted) << queue.Health();
    EXPECT_NE(queue.Health().message().find("File too large"), std::string::npos) << queue.Health();
    EXPECT_GT(queue.SpillFailures(), 0u);
    EXPECT_GT(queue.MemoryBytes(), size_t{64} << 10);  // kept, over the budget
  }
  push(3000);
  queue.WaitForWrites();
  EXPECT_TRUE(queue.Health().ok()) << queue.Health();
  if (GetParam() == LaneOrder::kFifo) {
    for (const std::string& url : pushed) ASSERT_EQ(PopOk(queue), url);
  } else {
    for (auto it = pushed.rbegin(); it != pushed.rend(); ++it) ASSERT_EQ(PopOk(queue), *it);
  }
  EXPECT_EQ(queue.Size(), 0u);
}

// SaveTo while jobs are pending waits for them: the checkpoint holds every
// URL, in order, and an adopted copy pops exactly that order.
TEST_P(SpillWriterOrderTest, SaveWhileWritesArePendingHoldsEverything) {
  ScratchDir dir;
  SpillQueue queue({.memory_budget_bytes = 64 << 10, .spill_dir = dir.path(), .order = GetParam()});
  std::vector<std::string> pushed;
  for (int i = 0; i < 20000; ++i) {
    pushed.push_back(TestUrl(i));
    queue.Push(pushed.back(), PayloadOf(pushed.back()));
  }
  const std::filesystem::path ckpt = dir.path() / "ckpt";
  std::filesystem::create_directories(ckpt);
  absl::StatusOr<std::vector<SpillQueue::FileRef>> files = queue.SaveTo(ckpt, Segment());
  ASSERT_TRUE(files.ok()) << files.status();
  SpillQueue restored(
      {.memory_budget_bytes = 64 << 10, .spill_dir = dir.path(), .order = GetParam()});
  ASSERT_TRUE(restored.Adopt(ckpt, *files).ok());
  ASSERT_EQ(restored.Size(), pushed.size());
  if (GetParam() == LaneOrder::kFifo) {
    for (const std::string& url : pushed) {
      ASSERT_EQ(PopOk(restored), url);
      ASSERT_EQ(PopOk(queue), url);
    }
  } else {
    for (auto it = pushed.rbegin(); it != pushed.rend(); ++it) {
      ASSERT_EQ(PopOk(restored), *it);
      ASSERT_EQ(PopOk(queue), *it);
    }
  }
}

// A queue (and its store) destroyed while jobs wait for a paused writer:
// the jobs are taken back, nothing hangs, the spill directory goes.
TEST_P(SpillWriterOrderTest, DestroyedWithJobsQueuedDoesNotHang) {
  ScratchDir dir;
  {
    SpillStore store(dir.path(), nullptr);
    SpillQueue queue(
        {.memory_budget_bytes = kTinyBudget, .spill_dir = dir.path(), .order = GetParam()}, &store);
    store.PauseWriterForTesting(true);
    uint64_t next = 0;
    while (store.Unwritten() + 2 < kMaxUnwrittenSegments) {
      const std::string url = TestUrl(next++);
      queue.Push(url, PayloadOf(url));
    }
    EXPECT_GT(store.Unwritten(), 0u);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

// A writer that keeps up compresses every segment at kSegmentZstdLevel; one
// with segments waiting behind the one it takes writes that one at
// kSegmentBurstZstdLevel. Either way every URL comes back, in order.
TEST_P(SpillWriterOrderTest, BacklogIsWrittenAtTheBurstLevel) {
  ScratchDir dir;
  SpillStore store(dir.path(), nullptr);
  SpillQueue queue(
      {.memory_budget_bytes = kTinyBudget, .spill_dir = dir.path(), .order = GetParam()}, &store);
  std::deque<std::string> model;
  uint64_t next = 0;
  auto push = [&] {
    const std::string url = TestUrl(next++);
    queue.Push(url, PayloadOf(url));
    model.push_back(url);
  };
  // Keeping up: wait for each sealed segment before the next push.
  while (store.SpilledFiles() < 3) {
    push();
    store.WaitForWrites();
  }
  EXPECT_EQ(store.BurstWrites(), 0u);
  // A backlog: three segments queued while the writer is paused.
  const size_t written = store.SpilledFiles();
  store.PauseWriterForTesting(true);
  while (store.Unwritten() < kMaxUnwrittenSegments - 1) push();
  store.PauseWriterForTesting(false);
  store.WaitForWrites();
  EXPECT_GT(store.SpilledFiles(), written);
  EXPECT_GE(store.BurstWrites(), 2u);  // all but the last of the backlog
  while (!model.empty()) {
    if (GetParam() == LaneOrder::kFifo) {
      ASSERT_EQ(PopOk(queue), model.front());
      model.pop_front();
    } else {
      ASSERT_EQ(PopOk(queue), model.back());
      model.pop_back();
    }
  }
  EXPECT_TRUE(queue.Health().ok()) << queue.Health();
}

// A job of `urls` small records, its file named by the store.
std::shared_ptr<SpillJob> SmallJob(SpillStore& store, uint64_t first, int urls) {
  auto job = std::make_shared<SpillJob>();
  job->file = *store.NewFilePath();
  Segment segment;
  for (int i = 0; i < urls; ++i) segment.Append(TestUrl(first + i), "");
  job->AddPart(std::move(segment));
  return job;
}

// The writer's bound counts bytes as well as segments: small parts (many
// lanes' forced-out parts) may wait for it past kMaxUnwrittenSegments while
// their bytes stay within the bound, and not one byte past it; full-size
// segments stay bounded by their count.
TEST(SpillStoreBoundTest, SmallJobsWaitByBytesFullOnesByCount) {
  ScratchDir dir;
  const size_t max_bytes = 64 << 10;
  SpillStore store(dir.path(), nullptr, max_bytes);
  store.PauseWriterForTesting(true);
  std::vector<std::shared_ptr<SpillJob>> jobs;
  size_t unwritten = 0;
  uint64_t next = 0;
  while (true) {
    std::shared_ptr<SpillJob> job = SmallJob(store, next, 20);
    next += 20;
    const bool fits = jobs.size() < kMaxUnwrittenSegments || unwritten + job->Bytes() <= max_bytes;
    ASSERT_EQ(store.HasRoomFor(job->Bytes()), fits) << jobs.size() << " jobs, " << unwritten;
    if (!fits) break;
    unwritten += job->Bytes();
    store.Submit(job);  // returns at once: there is room
    jobs.push_back(std::move(job));
  }
  EXPECT_GT(jobs.size(), 2 * kMaxUnwrittenSegments);
  EXPECT_EQ(store.Unwritten(), jobs.size());
  store.PauseWriterForTesting(false);
  for (auto& job : jobs) EXPECT_EQ(store.Settle(*job, 0, false), SpillJob::State::kWritten);
  EXPECT_TRUE(store.HasRoomFor(max_bytes));  // all written: room again
  EXPECT_EQ(store.SpilledFiles(), jobs.size());

  // Jobs each over the byte bound: exactly kMaxUnwrittenSegments wait.
  SpillStore by_count(dir.path(), nullptr, max_bytes);
  by_count.PauseWriterForTesting(true);
  std::vector<std::shared_ptr<SpillJob>> big;
  while (true) {
    std::shared_ptr<SpillJob> job = SmallJob(by_count, next, 2000);
    next += 2000;
    ASSERT_GT(job->Bytes(), max_bytes);
    if (!by_count.HasRoomFor(job->Bytes())) break;
    by_count.Submit(job);
    big.push_back(std::move(job));
  }
  EXPECT_EQ(big.size(), kMaxUnwrittenSegments);
  by_count.PauseWriterForTesting(false);
  for (auto& job : big) EXPECT_EQ(by_count.Settle(*job, 0, false), SpillJob::State::kWritten);
}

// The level is applied: the same segment compresses to other bytes at the
// burst level (smaller or larger depends on the URLs: on these synthetic
// ones level 1 happens to win), and both files load back to the same records.
TEST(SegmentCompressorLevelTest, BurstLevelWritesOtherBytesThatLoadTheSame) {
  ScratchDir dir;
  Segment segment;
  for (uint64_t i = 0; i < 20000; ++i) segment.Append(TestUrl(i), PayloadOf(TestUrl(i)));
  SegmentCompressor compressor;
  std::map<int, SegmentFileInfo> infos;
  for (int level : {kSegmentBurstZstdLevel, kSegmentZstdLevel}) {
    SegmentFileInfo& info = infos[level];
    absl::StatusOr<std::string> bytes =
        compressor.Encode(segment.RemainingBytes(), segment.Remaining(), info, level);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    const std::filesystem::path file = dir.path() / ("level-" + std::to_string(level));
    ASSERT_TRUE(WriteWholeFile(file, *bytes).ok());
    absl::StatusOr<Segment> loaded = LoadSegmentFile(file, info);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(loaded->RemainingBytes(), segment.RemainingBytes());
  }
  EXPECT_NE(infos[kSegmentBurstZstdLevel].stored_bytes, infos[kSegmentZstdLevel].stored_bytes);
}

INSTANTIATE_TEST_SUITE_P(Orders, SpillWriterOrderTest,
                         testing::Values(LaneOrder::kFifo, LaneOrder::kLifo),
                         [](const testing::TestParamInfo<LaneOrder>& info) {
                           return info.param == LaneOrder::kFifo ? "Fifo" : "Lifo";
                         });

// Through the Sieve: producers and consumers on many threads, priorities
// from a small set, a tiny budget so that the writer is always busy, and a
// Save in the middle. Every URL comes out once; within a priority, URLs of
// one producer come out in the order it pushed them (FIFO).
TEST(SpillWriterConcurrencyTest, ThreadsPushPopAndSaveWithTheWriterBusy) {
  ScratchDir dir;
  SieveOptions options;
  options.expected_count = 1'000'000;
  options.fp_rate = 1e-6;
  options.spill_dir = dir.path() / "spill";
  std::filesystem::create_directories(options.spill_dir);
  options.queue_memory_budget_bytes = 64 << 10;
  absl::StatusOr<std::unique_ptr<Sieve>> created = Sieve::Create(options);
  ASSERT_TRUE(created.ok()) << created.status();
  Sieve& sieve = **created;
  constexpr int kProducers = 3;
  constexpr int kPerProducer = 20000;
  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; ++p) {
    threads.emplace_back([&, p] {
      for (int i = 0; i < kPerProducer; ++i) {
        const uint64_t n = static_cast<uint64_t>(p) * kPerProducer + i;
        sieve.Push(TestUrl(n), std::to_string(n), static_cast<int32_t>(n % 4));
      }
    });
  }
  // One consumer, so that the order it sees is the queue's.
  std::vector<std::vector<uint64_t>> got(kProducers * 4);  // by producer and priority
  std::thread consumer([&] {
    for (int popped = 0; popped < kProducers * kPerProducer;) {
      std::optional<SieveEntry> entry = sieve.TryPopEntry();
      if (!entry) {
        std::this_thread::yield();
        continue;
      }
      const uint64_t n = std::stoull(entry->payload);
      got[(n / kPerProducer) * 4 + n % 4].push_back(n);
      EXPECT_EQ(entry->priority, static_cast<int32_t>(n % 4));
      EXPECT_TRUE(sieve.MarkDone(entry->url));
      ++popped;
    }
  });
  const absl::Status saved = sieve.Save(dir.path() / "ckpt");
  EXPECT_TRUE(saved.ok()) << saved;
  for (std::thread& t : threads) t.join();
  consumer.join();
  EXPECT_TRUE(sieve.Health().ok()) << sieve.Health();
  size_t total = 0;
  for (const std::vector<uint64_t>& list : got) {
    total += list.size();
    for (size_t i = 1; i < list.size(); ++i) ASSERT_LT(list[i - 1], list[i]);
  }
  EXPECT_EQ(total, static_cast<size_t>(kProducers * kPerProducer));
}

}  // namespace
}  // namespace sieve::internal
