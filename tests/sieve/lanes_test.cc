// Priority lanes (sieve/sieve.h, "Priorities"): the highest priority pops
// first, FIFO or LIFO within a priority, exactly, across spills to disk and
// across checkpoints; the lanes share one memory budget; the number of lanes
// is bounded; Defer keeps a URL's priority. Each case is checked against a
// model of the contract (a map of deques), not against hand-listed orders
// alone.
#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sieve/memory_sieve.h"
#include "sieve/sieve.h"
#include "sieve/test_urls.h"

namespace sieve {
namespace {

using sieve_test::ScratchDir;
using sieve_test::TestUrl;

constexpr size_t kSmallBudget = 64 << 10;  // the least allowed: 8 KiB segments

SieveOptions LaneOptions(const ScratchDir& dir, LaneOrder order, uint64_t expected = 1'000'000) {
  SieveOptions options;
  options.expected_count = expected;
  options.fp_rate = 1e-6;  // no URL of these tests is wrongly dropped (checked)
  options.spill_dir = dir.path() / "spill";
  options.queue_memory_budget_bytes = kSmallBudget;
  options.lane_order = order;
  return options;
}

std::unique_ptr<Sieve> Make(const SieveOptions& options) {
  absl::StatusOr<std::unique_ptr<Sieve>> sieve = Sieve::Create(options);
  EXPECT_TRUE(sieve.ok()) << sieve.status();
  return *std::move(sieve);
}

std::string PayloadOf(const std::string& url) { return "p" + std::to_string(url.size()); }

// The contract: lanes by priority, highest first; each a deque popped at the
// front (FIFO) or the back (LIFO).
class Model {
 public:
  explicit Model(LaneOrder order) : order_(order) {}
  void Push(int32_t priority, const std::string& url) { lanes_[priority].push_back(url); }
  // Defer: behind everything of its lane (FIFO: the back; LIFO: the bottom,
  // first deferred first: in a stack popped at the back, that is the front
  // of the deque, each new one pushed under the earlier ones).
  void Defer(int32_t priority, const std::string& url) {
    if (order_ == LaneOrder::kFifo) {
      lanes_[priority].push_back(url);
    } else {
      lanes_[priority].push_front(url);
    }
  }
  std::optional<std::pair<int32_t, std::string>> Pop() {
    if (lanes_.empty()) return std::nullopt;
    auto top = lanes_.begin();
    std::string url;
    if (order_ == LaneOrder::kFifo) {
      url = top->second.front();
      top->second.pop_front();
    } else {
      url = top->second.back();
      top->second.pop_back();
    }
    const int32_t priority = top->first;
    if (top->second.empty()) lanes_.erase(top);
    return std::make_pair(priority, url);
  }
  // What a checkpoint does with URLs in flight: they are queued again first
  // in their lanes, in the order they were popped.
  void Requeue(const std::vector<std::pair<int32_t, std::string>>& in_flight) {
    for (auto it = in_flight.rbegin(); it != in_flight.rend(); ++it) {
      auto& lane = lanes_[it->first];
      if (order_ == LaneOrder::kFifo) {
        lane.push_front(it->second);
      } else {
        lane.push_back(it->second);
      }
    }
  }

 private:
  LaneOrder order_;
  std::map<int32_t, std::deque<std::string>, std::greater<int32_t>> lanes_;
};

void ExpectPop(Sieve& sieve, const std::pair<int32_t, std::string>& expected) {
  std::optional<SieveEntry> entry = sieve.TryPopEntry();
  ASSERT_TRUE(entry.has_value()) << "expected " << expected.second;
  ASSERT_EQ(entry->url, expected.second);
  ASSERT_EQ(entry->priority, expected.first) << entry->url;
  ASSERT_EQ(entry->payload, PayloadOf(entry->url));
}

void DrainAgainstModel(Sieve& sieve, Model& model) {
  while (std::optional<std::pair<int32_t, std::string>> expected = model.Pop()) {
    ExpectPop(sieve, *expected);
    if (::testing::Test::HasFatalFailure()) return;
    sieve.MarkDone(expected->second);
  }
  EXPECT_FALSE(sieve.TryPopEntry().has_value());
}

class LanesTest : public ::testing::TestWithParam<LaneOrder> {};

INSTANTIATE_TEST_SUITE_P(Orders, LanesTest, ::testing::Values(LaneOrder::kFifo, LaneOrder::kLifo),
                         [](const auto& info) {
                           return info.param == LaneOrder::kFifo ? "Fifo" : "Lifo";
                         });

TEST_P(LanesTest, HighestPriorityFirstThenTheLaneOrder) {
  ScratchDir dir;
  auto sieve = Make(LaneOptions(dir, GetParam()));
  Model model(GetParam());
  const std::vector<int32_t> priorities = {0, 5, -2, 5, 0, 1, -2, 5, INT32_MAX, INT32_MIN};
  for (size_t i = 0; i < priorities.size(); ++i) {
    const std::string url = TestUrl(i);
    ASSERT_TRUE(sieve->Push(url, PayloadOf(url), priorities[i]));
    model.Push(priorities[i], url);
  }
  // The same URL at another priority is still seen: one filter for all lanes.
  EXPECT_FALSE(sieve->Push(TestUrl(0), "", 7));
  const SieveStats stats = sieve->Stats();
  EXPECT_EQ(stats.lanes, 6u);
  ASSERT_EQ(stats.top_lanes.size(), 6u);
  EXPECT_EQ(stats.top_lanes[0], (LaneStats{INT32_MAX, 1}));
  EXPECT_EQ(stats.top_lanes[1], (LaneStats{5, 3}));
  EXPECT_EQ(stats.top_lanes[5], (LaneStats{INT32_MIN, 1}));
  DrainAgainstModel(*sieve, model);
  EXPECT_EQ(sieve->Stats().lanes, 0u);
}

TEST_P(LanesTest, ScrapysDequeuePrioritiesCase) {
  // Scrapy's test_dequeue_priorities: priorities 1, 2, 3 of two URLs each
  // come out as [3, 3, 2, 2, 1, 1].
  ScratchDir dir;
  auto sieve = Make(LaneOptions(dir, GetParam()));
  int i = 0;
  for (int32_t priority : {1, 2, 3, 1, 2, 3}) {
    const std::string url = TestUrl(i++);
    sieve->Push(url, PayloadOf(url), priority);
  }
  std::vector<int32_t> got;
  while (std::optional<SieveEntry> entry = sieve->TryPopEntry()) got.push_back(entry->priority);
  EXPECT_EQ(got, (std::vector<int32_t>{3, 3, 2, 2, 1, 1}));
}

// Many URLs in 16 lanes through a 64 KiB budget, pushes and pops
// interleaved at random: every lane spills, and the order is exact.
TEST_P(LanesTest, OrderIsExactAcrossSpillsOfManyLanes) {
  ScratchDir dir;
  auto sieve = Make(LaneOptions(dir, GetParam()));
  Model model(GetParam());
  std::mt19937 random(7);
  size_t max_memory = 0;
  bool spilled = false;
  for (uint64_t i = 0; i < 200'000; ++i) {
    const auto priority = static_cast<int32_t>(random() % 16) - 8;
    const std::string url = TestUrl(i);
    ASSERT_TRUE(sieve->Push(url, PayloadOf(url), priority)) << "wrongly dropped " << url;
    model.Push(priority, url);
    if (random() % 3 == 0) {
      std::optional<std::pair<int32_t, std::string>> expected = model.Pop();
      ASSERT_TRUE(expected.has_value());
      ExpectPop(*sieve, *expected);
      if (HasFatalFailure()) return;
      sieve->MarkDone(expected->second);
    }
    if (i % 1000 == 0) {
      const SieveStats stats = sieve->Stats();
      max_memory = std::max<size_t>(max_memory, stats.queue_memory_bytes);
      spilled = spilled || stats.spilled_segments > 0;
    }
  }
  EXPECT_TRUE(spilled);
  // One budget for every lane: budget + a few segments + 4 KiB a lane.
  EXPECT_LT(max_memory, kSmallBudget + 4 * (kSmallBudget / 8) + 16 * (4 << 10));
  DrainAgainstModel(*sieve, model);
  EXPECT_EQ(sieve->Stats().queue_disk_bytes, 0u);
}

// 1,024 lanes of a few URLs each: the budget holds (the largest parts are
// forced out), and the order is exact.
TEST_P(LanesTest, AThousandLanesShareOneBudget) {
  ScratchDir dir;
  auto sieve = Make(LaneOptions(dir, GetParam()));
  Model model(GetParam());
  size_t max_memory = 0;
  for (uint64_t i = 0; i < 100'000; ++i) {
    const auto priority = static_cast<int32_t>((i * 7919) % kMaxLanes);
    const std::string url = TestUrl(i);
    ASSERT_TRUE(sieve->Push(url, PayloadOf(url), priority));
    model.Push(priority, url);
    if (i % 997 == 0) {
      max_memory = std::max<size_t>(max_memory, sieve->Stats().queue_memory_bytes);
    }
  }
  EXPECT_EQ(sieve->Stats().lanes, kMaxLanes);
  // Budget + two segments of slack + under 4 KiB for each lane's unspilled part.
  EXPECT_LT(max_memory, kSmallBudget + 3 * (kSmallBudget / 8) + kMaxLanes * (4 << 10));
  DrainAgainstModel(*sieve, model);
}

TEST_P(LanesTest, TheLaneBoundRefusesOneMoreAndFreesOnDrain) {
  ScratchDir dir;
  auto sieve = Make(LaneOptions(dir, GetParam()));
  for (size_t i = 0; i < kMaxLanes; ++i) {
    ASSERT_TRUE(sieve->Push(TestUrl(i), "", static_cast<int32_t>(i)));
  }
  EXPECT_FALSE(sieve->Push(TestUrl(kMaxLanes), "", -1));  // lane 1,025
  EXPECT_EQ(sieve->Stats().refused, 1u);
  // An existing lane still takes URLs; the refused URL was not marked seen.
  EXPECT_TRUE(sieve->Push(TestUrl(kMaxLanes + 1), "", 3));
  std::vector<std::string_view> batch = {"https://batch.example/1", "https://batch.example/2"};
  std::vector<int32_t> batch_priorities = {-5, 7};
  bool accepted[2];
  EXPECT_EQ(sieve->PushBatch(batch, {}, batch_priorities, absl::Span<bool>(accepted, 2)), 1u);
  EXPECT_FALSE(accepted[0]);
  EXPECT_TRUE(accepted[1]);
  // Pop the highest lane empty: its slot is free again.
  std::optional<SieveEntry> top = sieve->TryPopEntry();
  ASSERT_TRUE(top.has_value());
  EXPECT_EQ(top->priority, static_cast<int32_t>(kMaxLanes - 1));
  EXPECT_TRUE(sieve->Push(TestUrl(kMaxLanes), "", -1));
  EXPECT_EQ(sieve->Stats().lanes, kMaxLanes);
}

TEST_P(LanesTest, DeferKeepsThePriorityAndGoesBehindItsLane) {
  ScratchDir dir;
  auto sieve = Make(LaneOptions(dir, GetParam()));
  Model model(GetParam());
  for (uint64_t i = 0; i < 12; ++i) {
    const std::string url = TestUrl(i);
    const auto priority = static_cast<int32_t>(i % 3);
    sieve->Push(url, PayloadOf(url), priority);
    model.Push(priority, url);
  }
  // Pop two and defer them: they go behind their own lane (priority 2),
  // still ahead of every lower lane.
  for (int round = 0; round < 2; ++round) {
    std::optional<std::pair<int32_t, std::string>> expected = model.Pop();
    ExpectPop(*sieve, *expected);
    ASSERT_TRUE(sieve->Defer(expected->second));
    model.Defer(expected->first, expected->second);
  }
  // A push after the defers comes before them in a LIFO lane, after in a FIFO one.
  sieve->Push(TestUrl(100), PayloadOf(TestUrl(100)), 2);
  model.Push(2, TestUrl(100));
  DrainAgainstModel(*sieve, model);
}

// A checkpoint keeps the lanes, their order, the in-flight URLs (queued
// again first in their lanes) and lane_order; the restored Sieve pops
// exactly what the model says.
TEST_P(LanesTest, CheckpointKeepsLanesAndOrder) {
  ScratchDir dir;
  SieveOptions options = LaneOptions(dir, GetParam());
  auto sieve = Make(options);
  Model model(GetParam());
  std::mt19937 random(11);
  for (uint64_t i = 0; i < 60'000; ++i) {
    const auto priority = static_cast<int32_t>(random() % 5) * 10 - 20;
    const std::string url = TestUrl(i);
    ASSERT_TRUE(sieve->Push(url, PayloadOf(url), priority));
    model.Push(priority, url);
  }
  // Some popped and done, some popped and still in flight.
  std::vector<std::pair<int32_t, std::string>> in_flight;
  for (int i = 0; i < 5000; ++i) {
    std::optional<std::pair<int32_t, std::string>> expected = model.Pop();
    ExpectPop(*sieve, *expected);
    if (HasFatalFailure()) return;
    if (i % 1000 < 3) {
      in_flight.push_back(*expected);
    } else {
      sieve->MarkDone(expected->second);
    }
  }
  ASSERT_GT(sieve->Stats().spilled_segments, 0u);
  const auto ckpt = dir.path() / "ckpt";
  ASSERT_TRUE(sieve->Save(ckpt).ok());
  sieve.reset();
  SieveOptions runtime;
  runtime.spill_dir = options.spill_dir;
  runtime.queue_memory_budget_bytes = kSmallBudget;
  absl::StatusOr<std::unique_ptr<Sieve>> restored = Sieve::Open(ckpt, runtime);
  ASSERT_TRUE(restored.ok()) << restored.status();
  model.Requeue(in_flight);
  // Pushes after the restore go by the same rules (lane_order came back).
  for (uint64_t i = 60'000; i < 60'010; ++i) {
    const std::string url = TestUrl(i);
    (*restored)->Push(url, PayloadOf(url), 0);
    model.Push(0, url);
  }
  DrainAgainstModel(**restored, model);
}

TEST(LanesPushBatchTest, PrioritiesParallelToUrls) {
  ScratchDir dir;
  auto sieve = Make(LaneOptions(dir, LaneOrder::kFifo));
  std::vector<std::string> urls = {TestUrl(1), TestUrl(2), TestUrl(3), TestUrl(2)};
  std::vector<std::string_view> views(urls.begin(), urls.end());
  std::vector<std::string_view> payloads = {"a", "b", "c", "d"};
  std::vector<int32_t> priorities = {-1, 4, 0, 9};
  EXPECT_EQ(sieve->PushBatch(views, payloads, priorities, {}), 3u);
  std::vector<std::pair<int32_t, std::string>> got;
  while (std::optional<SieveEntry> entry = sieve->TryPopEntry()) {
    got.push_back({entry->priority, entry->url + "/" + entry->payload});
  }
  EXPECT_EQ(got, (std::vector<std::pair<int32_t, std::string>>{
                     {4, TestUrl(2) + "/b"}, {0, TestUrl(3) + "/c"}, {-1, TestUrl(1) + "/a"}}));
}

TEST(LanesLazyTest, PushLazyTakesAPriority) {
  ScratchDir dir;
  auto sieve = Make(LaneOptions(dir, LaneOrder::kFifo));
  sieve->Push(TestUrl(1));
  EXPECT_TRUE(sieve->PushLazy(
      TestUrl(2), [] { return std::optional<std::string>("x"); }, 3));
  std::optional<SieveEntry> entry = sieve->TryPopEntry();
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->url, TestUrl(2));
  EXPECT_EQ(entry->priority, 3);
  EXPECT_EQ(entry->payload, "x");
}

}  // namespace
}  // namespace sieve
