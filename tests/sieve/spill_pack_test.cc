// Packs (spill_store.h): the parts that the shared budget forces out of many
// lanes go into one spill file, each lane's segment at its own offset. Each
// lane keeps its exact order (FIFO and LIFO); a pack is removed when, and
// only when, the last segment in it has been loaded back; damage in one
// segment of a pack loses that segment alone; a checkpoint links a pack once
// (whole, even partly popped) and a Sieve opened from it adopts it once and
// restores every lane's order. The files are read from disk, not taken from
// the code's own bookkeeping.
#include <algorithm>
#include <deque>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../../sieve/src/lanes.h"
#include "../../sieve/src/segment_file.h"
#include "gtest/gtest.h"
#include "sieve/sieve.h"
#include "sieve/test_urls.h"

// Its own namespace: the unity build compiles this file with the other
// sieve tests, whose file-scope names (kBudget, Model) would collide.
namespace sieve::internal::pack_test {
namespace {

namespace fs = std::filesystem;
using sieve_test::ScratchDir;
using sieve_test::TestUrl;

// The least budget (8 KiB segments, parts of 4 KiB and more forced out) and
// enough lanes that each lane's tail stays under a segment when the lanes
// together cross the budget: every spill is a forced one.
constexpr size_t kBudget = 64 << 10;
constexpr int kLanes = 12;
constexpr int kUrls = 6000;

// One segment of a spill file, as found on disk.
struct OnDisk {
  fs::path file;
  uint64_t offset = 0;
  SegmentFileInfo info;
  std::vector<std::string> urls;
};

// Every segment of every file under `dir`, walking each file's records
// back to back from offset 0.
std::vector<OnDisk> SegmentsOnDisk(const fs::path& dir) {
  std::vector<OnDisk> segments;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const uint64_t size = entry.file_size();
    for (uint64_t offset = 0; offset < size;) {
      absl::StatusOr<SegmentFileInfo> info = ReadSegmentHeaderAt(entry.path(), offset);
      EXPECT_TRUE(info.ok()) << info.status();
      if (!info.ok()) break;
      absl::StatusOr<Segment> segment = LoadSegmentAt(entry.path(), offset, *info);
      EXPECT_TRUE(segment.ok()) << segment.status();
      if (!segment.ok()) break;
      OnDisk found{entry.path(), offset, *info, {}};
      segment
          ->ForEachRemaining([&](std::string_view url, std::string_view) {
            found.urls.emplace_back(url);
            return absl::OkStatus();
          })
          .IgnoreError();
      segments.push_back(std::move(found));
      offset += info->FileBytes();
    }
  }
  return segments;
}

// The files holding more than one segment.
std::set<fs::path> PackFiles(const std::vector<OnDisk>& segments) {
  std::map<fs::path, int> per_file;
  for (const OnDisk& segment : segments) ++per_file[segment.file];
  std::set<fs::path> packs;
  for (const auto& [file, count] : per_file) {
    if (count > 1) packs.insert(file);
  }
  return packs;
}

// The lane (priority) of a URL pushed by PushRoundRobin.
int32_t LaneOf(uint64_t i) { return static_cast<int32_t>(i % kLanes); }

// The contract: per lane a deque, highest lane first, popped at the front
// (FIFO) or the back (LIFO).
struct Model {
  LaneOrder order;
  std::map<int32_t, std::deque<std::string>, std::greater<int32_t>> lanes;
  std::pair<int32_t, std::string> Pop() {
    auto top = lanes.begin();
    const int32_t priority = top->first;
    std::string url;
    if (order == LaneOrder::kFifo) {
      url = top->second.front();
      top->second.pop_front();
    } else {
      url = top->second.back();
      top->second.pop_back();
    }
    if (top->second.empty()) lanes.erase(top);
    return {priority, url};
  }
};

void PushRoundRobin(LaneSet& lanes, Model& model) {
  for (uint64_t i = 0; i < kUrls; ++i) {
    lanes.Push(LaneOf(i), TestUrl(i), "");
    model.lanes[LaneOf(i)].push_back(TestUrl(i));
  }
  lanes.WaitForWrites();
}

class SpillPackTest : public testing::TestWithParam<LaneOrder> {};

// Segments of several lanes in one pack come back in each lane's exact
// order; each pack file is on disk exactly while one of its segments has
// not been loaded back (none of its URLs popped yet).
TEST_P(SpillPackTest, LanesKeepTheirOrderAndAPackGoesWithItsLastSegment) {
  ScratchDir dir;
  LaneSet lanes({.memory_budget_bytes = kBudget, .spill_dir = dir.path(), .order = GetParam()});
  Model model{GetParam(), {}};
  PushRoundRobin(lanes, model);
  const std::vector<OnDisk> segments = SegmentsOnDisk(dir.path());
  const std::set<fs::path> packs = PackFiles(segments);
  ASSERT_GE(packs.size(), 3u) << segments.size() << " segments";
  // A pack holds several lanes' segments.
  std::map<std::string, int32_t> lane_of_url;
  for (uint64_t i = 0; i < kUrls; ++i) lane_of_url[TestUrl(i)] = LaneOf(i);
  std::map<fs::path, std::set<int32_t>> lanes_of_file;
  for (const OnDisk& segment : segments) {
    lanes_of_file[segment.file].insert(lane_of_url.at(segment.urls.at(0)));
  }
  size_t shared = 0;
  for (const fs::path& pack : packs) shared += lanes_of_file[pack].size() > 1;
  EXPECT_GT(shared, 0u);
  EXPECT_LT(lanes.SpilledSegments(), segments.size());  // files, fewer than segments

  std::set<std::string> popped;
  for (int i = 0; i < kUrls; ++i) {
    absl::StatusOr<std::optional<SieveEntry>> entry = lanes.Pop();
    ASSERT_TRUE(entry.ok()) << entry.status();
    ASSERT_TRUE(entry->has_value());
    const auto [priority, url] = model.Pop();
    ASSERT_EQ((*entry)->url, url) << i;
    ASSERT_EQ((*entry)->priority, priority);
    popped.insert(url);
    for (const fs::path& pack : packs) {
      bool unread = false;  // a segment of it with no URL popped yet
      for (const OnDisk& segment : segments) {
        if (segment.file != pack) continue;
        unread |= std::none_of(segment.urls.begin(), segment.urls.end(),
                               [&](const std::string& u) { return popped.contains(u); });
      }
      ASSERT_EQ(fs::exists(pack), unread) << pack << " after pop " << i;
    }
  }
  EXPECT_FALSE(lanes.Pop()->has_value());
  EXPECT_EQ(sieve_test::CountFiles(dir.path()), 0u);
  EXPECT_EQ(lanes.SpilledSegments(), 0u);
  EXPECT_EQ(lanes.DiskBytes(), 0u);
  EXPECT_TRUE(lanes.Health().ok()) << lanes.Health();
}

// Damage in one segment of a pack loses that segment's URLs alone: the
// other segments of the pack, and every other URL, come out in order, and
// Health() names the file and the offset.
TEST_P(SpillPackTest, DamageInOneSegmentOfAPackLosesOnlyThatSegment) {
  ScratchDir dir;
  LaneSet lanes({.memory_budget_bytes = kBudget, .spill_dir = dir.path(), .order = GetParam()});
  Model model{GetParam(), {}};
  PushRoundRobin(lanes, model);
  const std::vector<OnDisk> segments = SegmentsOnDisk(dir.path());
  const std::set<fs::path> packs = PackFiles(segments);
  ASSERT_FALSE(packs.empty());
  // The second segment of the first pack: a byte in the middle of its body.
  const OnDisk* victim = nullptr;
  for (const OnDisk& segment : segments) {
    if (segment.file == *packs.begin() && segment.offset > 0) {
      victim = &segment;
      break;
    }
  }
  ASSERT_NE(victim, nullptr);
  {
    std::fstream f(victim->file, std::ios::in | std::ios::out | std::ios::binary);
    const uint64_t at = victim->offset + kSegmentHeaderBytes + victim->info.stored_bytes / 2;
    f.seekg(static_cast<std::streamoff>(at));
    const char old = static_cast<char>(f.get());
    f.seekp(static_cast<std::streamoff>(at));
    f.put(static_cast<char>(old ^ 0x5a));
  }
  const std::set<std::string> lost(victim->urls.begin(), victim->urls.end());
  std::vector<std::string> got;
  int errors = 0;
  while (true) {
    absl::StatusOr<std::optional<SieveEntry>> entry = lanes.Pop();
    if (!entry.ok()) {
      ++errors;
      ASSERT_EQ(entry.status().code(), absl::StatusCode::kDataLoss) << entry.status();
      continue;
    }
    if (!entry->has_value()) break;
    got.push_back((*entry)->url);
  }
  EXPECT_EQ(errors, 1);
  std::vector<std::string> want;
  while (!model.lanes.empty()) {
    std::string url = model.Pop().second;
    if (!lost.contains(url)) want.push_back(std::move(url));
  }
  EXPECT_EQ(got, want);
  const absl::Status health = lanes.Health();
  EXPECT_EQ(health.code(), absl::StatusCode::kDataLoss) << health;
  EXPECT_NE(health.message().find(victim->file.string()), std::string::npos) << health;
  EXPECT_NE(health.message().find("at offset " + std::to_string(victim->offset)), std::string::npos)
      << health;
  EXPECT_EQ(lanes.SpilledSegments(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Orders, SpillPackTest, testing::Values(LaneOrder::kFifo, LaneOrder::kLifo),
                         [](const testing::TestParamInfo<LaneOrder>& info) {
                           return info.param == LaneOrder::kFifo ? "Fifo" : "Lifo";
                         });

SieveOptions PackSieveOptions(const ScratchDir& dir, LaneOrder order) {
  SieveOptions options;
  options.expected_count = 100'000;
  options.fp_rate = 1e-6;  // no URL of these tests is wrongly dropped (checked)
  options.spill_dir = dir.path() / "spill";
  fs::create_directories(options.spill_dir);
  options.queue_memory_budget_bytes = kBudget;
  options.lane_order = order;
  return options;
}

std::vector<std::string> FilesStartingWith(const fs::path& dir, std::string_view prefix) {
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(prefix)) names.push_back(name);
  }
  return names;
}

// A Sieve whose lanes share packs, some packs partly popped, saved twice
// (the second Save after more pops and pushes): each checkpoint holds the
// packs as files linked once, whole, and a Sieve opened from it pops every
// lane in its exact order, then the first checkpoint still opens the same.
TEST_P(SpillPackTest, CheckpointsOfPartlyPoppedPacksRestoreEveryLane) {
  ScratchDir dir;
  const SieveOptions options = PackSieveOptions(dir, GetParam());
  absl::StatusOr<std::unique_ptr<Sieve>> created = Sieve::Create(options);
  ASSERT_TRUE(created.ok()) << created.status();
  Sieve& sieve = **created;
  Model model{GetParam(), {}};
  for (uint64_t i = 0; i < kUrls; ++i) {
    ASSERT_TRUE(sieve.Push(TestUrl(i), "", LaneOf(i)));
    model.lanes[LaneOf(i)].push_back(TestUrl(i));
  }
  // The top lanes are drained: packs they share with lower lanes are now
  // partly popped.
  for (int i = 0; i < kUrls / 4; ++i) {
    std::optional<SieveEntry> entry = sieve.TryPopEntry();
    ASSERT_TRUE(entry.has_value());
    ASSERT_EQ(entry->url, model.Pop().second);
    ASSERT_TRUE(sieve.MarkDone(entry->url));
  }
  const std::vector<OnDisk> before = SegmentsOnDisk(options.spill_dir);
  ASSERT_FALSE(PackFiles(before).empty());
  const fs::path first = dir.path() / "first";
  ASSERT_TRUE(sieve.Save(first).ok());
  const std::vector<std::string> packs = FilesStartingWith(first, "sieve-pack-");
  ASSERT_FALSE(packs.empty());
  for (const std::string& pack : packs) {
    // A hard link to the running Sieve's spill file, not a copy.
    EXPECT_EQ(fs::hard_link_count(first / pack), 2u) << pack;
  }
  Model at_first = model;

  // More pops and pushes, then a second Save into the same directory: the
  // packs still referred to are reused, not copied again.
  for (int i = 0; i < kUrls / 4; ++i) {
    std::optional<SieveEntry> entry = sieve.TryPopEntry();
    ASSERT_TRUE(entry.has_value());
    ASSERT_EQ(entry->url, model.Pop().second);
    ASSERT_TRUE(sieve.MarkDone(entry->url));
  }
  for (uint64_t i = kUrls; i < kUrls + kUrls / 2; ++i) {
    ASSERT_TRUE(sieve.Push(TestUrl(i), "", LaneOf(i)));
    model.lanes[LaneOf(i)].push_back(TestUrl(i));
  }
  const fs::path second = dir.path() / "second";
  ASSERT_TRUE(sieve.Save(second).ok());
  ASSERT_TRUE(sieve.Save(second).ok());  // the same state again: every file reused
  EXPECT_FALSE(FilesStartingWith(second, "sieve-pack-").empty());

  for (auto& [ckpt, expected] : {std::pair{second, model}, std::pair{first, at_first}}) {
    absl::StatusOr<std::unique_ptr<Sieve>> opened =
        Sieve::Open(ckpt, PackSieveOptions(dir, GetParam()));
    ASSERT_TRUE(opened.ok()) << opened.status();
    Model want = expected;
    size_t count = 0;
    for (const auto& [priority, lane] : want.lanes) count += lane.size();
    EXPECT_EQ((*opened)->Stats().queued, count);
    while (!want.lanes.empty()) {
      std::optional<SieveEntry> entry = (*opened)->TryPopEntry();
      ASSERT_TRUE(entry.has_value());
      const auto [priority, url] = want.Pop();
      ASSERT_EQ(entry->url, url) << ckpt;
      ASSERT_EQ(entry->priority, priority);
    }
    EXPECT_FALSE((*opened)->TryPopEntry().has_value());
    EXPECT_TRUE((*opened)->Health().ok()) << (*opened)->Health();
  }
}

}  // namespace
}  // namespace sieve::internal::pack_test
