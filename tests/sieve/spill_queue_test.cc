// The spilling FIFO: exact order across memory and disk, memory near the
// budget, disk reclaimed as segments are consumed, and a damaged spill file
// reported as an error instead of garbage.
#include "../../sieve/src/spill_queue.h"

#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sieve/test_urls.h"

namespace sieve::internal {
namespace {

using sieve_test::CountFiles;
using sieve_test::ScratchDir;
using sieve_test::TestUrl;

constexpr size_t kBudget = 64 << 10;

// Every URL pushed by these tests carries a payload derived from it, so each
// pop also checks that the payload travelled with its URL through memory and
// spill files.
std::string PayloadOf(std::string_view url) { return "p:" + std::to_string(url.size()); }

void PushWithPayload(SpillQueue& queue, const std::string& url) { queue.Push(url, PayloadOf(url)); }

std::string PopOk(SpillQueue& queue) {
  absl::StatusOr<std::optional<SieveEntry>> entry = queue.Pop();
  EXPECT_TRUE(entry.ok()) << entry.status();
  if (!entry.ok() || !entry->has_value()) return "<none>";
  EXPECT_EQ((*entry)->payload, PayloadOf((*entry)->url));
  return (*entry)->url;
}

TEST(SpillQueueTest, SmallQueueStaysInMemory) {
  ScratchDir dir;
  SpillQueue queue({kBudget, dir.path()});
  for (int i = 0; i < 100; ++i) PushWithPayload(queue, TestUrl(i));
  EXPECT_EQ(queue.Size(), 100u);
  EXPECT_EQ(queue.SpilledSegments(), 0u);
  EXPECT_EQ(CountFiles(dir.path()), 0u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(PopOk(queue), TestUrl(i));
  EXPECT_FALSE(*queue.Pop());
}

TEST(SpillQueueTest, OrderIsExactAcrossSpillsAndInterleavedPops) {
  ScratchDir dir;
  SpillQueue queue({kBudget, dir.path()});
  uint64_t pushed = 0;
  uint64_t popped = 0;
  size_t max_memory = 0;
  // Push 3, pop 1, so the queue grows far past the budget while the head is
  // drained, loaded from disk and refilled many times.
  while (pushed < 60000) {
    for (int i = 0; i < 3; ++i) PushWithPayload(queue, TestUrl(pushed++));
    ASSERT_EQ(PopOk(queue), TestUrl(popped++));
    max_memory = std::max(max_memory, queue.MemoryBytes());
  }
  queue.WaitForWrites();
  EXPECT_GT(queue.SpilledSegments(), 10u);
  EXPECT_GT(queue.DiskBytes(), 200000u);  // ~40000 URLs, zstd-compressed
  while (popped < pushed) {
    ASSERT_EQ(PopOk(queue), TestUrl(popped++));
    max_memory = std::max(max_memory, queue.MemoryBytes());
  }
  EXPECT_EQ(queue.Size(), 0u);
  // The documented bound: budget plus about three segments, plus the
  // segments with the spill writer when spilling starts (each reserved a
  // segment and 4 KiB).
  EXPECT_LE(max_memory, kBudget + 4 * queue.SegmentBytes() +
                            kMaxUnwrittenSegments * (queue.SegmentBytes() + 4096));
}

TEST(SpillQueueTest, DiskIsReclaimedAsSegmentsAreConsumed) {
  ScratchDir dir;
  SpillQueue queue({kBudget, dir.path()});
  for (int i = 0; i < 20000; ++i) PushWithPayload(queue, TestUrl(i));
  queue.WaitForWrites();
  const size_t files = CountFiles(dir.path());
  const uint64_t disk = queue.DiskBytes();
  ASSERT_GT(files, 5u);
  EXPECT_EQ(files, queue.SpilledSegments());
  for (int i = 0; i < 10000; ++i) PopOk(queue);
  EXPECT_LT(CountFiles(dir.path()), files);
  EXPECT_LT(queue.DiskBytes(), disk);
  for (int i = 10000; i < 20000; ++i) PopOk(queue);
  EXPECT_EQ(CountFiles(dir.path()), 0u);
  EXPECT_EQ(queue.DiskBytes(), 0u);
}

TEST(SpillQueueTest, ForEachVisitsEverythingInOrderWithoutConsuming) {
  ScratchDir dir;
  SpillQueue queue({kBudget, dir.path()});
  for (int i = 0; i < 5000; ++i) PushWithPayload(queue, TestUrl(i));
  for (int i = 0; i < 10; ++i) PopOk(queue);
  queue.WaitForWrites();
  ASSERT_GT(queue.SpilledSegments(), 0u);
  std::vector<std::string> seen;
  ASSERT_TRUE(queue
                  .ForEach([&](std::string_view url, std::string_view payload) {
                    EXPECT_EQ(payload, PayloadOf(url));
                    seen.emplace_back(url);
                    return absl::OkStatus();
                  })
                  .ok());
  ASSERT_EQ(seen.size(), 4990u);
  for (int i = 0; i < 4990; ++i) ASSERT_EQ(seen[i], TestUrl(i + 10));
  EXPECT_EQ(queue.Size(), 4990u);
  EXPECT_EQ(PopOk(queue), TestUrl(10));
}

TEST(SpillQueueTest, DamagedSpillFileIsAnErrorAndItsUrlsAreNotCounted) {
  ScratchDir dir;
  SpillQueue queue({kBudget, dir.path()});
  for (int i = 0; i < 20000; ++i) PushWithPayload(queue, TestUrl(i));
  queue.WaitForWrites();
  ASSERT_GT(queue.SpilledSegments(), 2u);
  // Flip a byte in the middle of the oldest spill file.
  std::filesystem::path oldest;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path())) {
    if (e.path().filename() == "segment-0.spill") oldest = e.path();
  }
  ASSERT_FALSE(oldest.empty());
  {
    std::fstream f(oldest, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\xff');
  }
  const size_t before = queue.Size();
  absl::Status error;
  size_t got = 0;
  while (queue.Size() > 0) {
    absl::StatusOr<std::optional<SieveEntry>> entry = queue.Pop();
    if (!entry.ok()) {
      error = entry.status();
      continue;
    }
    ++got;
  }
  EXPECT_EQ(error.code(), absl::StatusCode::kDataLoss) << error;
  EXPECT_NE(error.message().find("segment-0.spill"), absl::string_view::npos) << error;
  EXPECT_EQ(queue.Health().code(), absl::StatusCode::kDataLoss);  // sticky
  EXPECT_LT(got, before);
  EXPECT_GT(got, before / 2);
}

TEST(SpillQueueTest, UnwritableSpillDirKeepsUrlsInMemoryInOrder) {
  SpillQueue queue({kBudget, "/proc/definitely/not/writable"});
  for (int i = 0; i < 5000; ++i) PushWithPayload(queue, TestUrl(i));
  EXPECT_EQ(queue.SpilledSegments(), 0u);
  EXPECT_GT(queue.MemoryBytes(), kBudget);
  EXPECT_GT(queue.SpillFailures(), 0u);
  EXPECT_NE(queue.Health().message().find("/proc/definitely/not/writable"), std::string::npos)
      << queue.Health();
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(PopOk(queue), TestUrl(i));
}

}  // namespace
}  // namespace sieve::internal
