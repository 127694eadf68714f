// Deltas of changed blocks: a chain of deltas (from a fresh filter or on top
// of a base image) rebuilds the filter bit for bit; only inserts that change
// a bit dirty a block; the delta format's frozen bytes and every corruption
// case.
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bloom/filter.h"
#include "gtest/gtest.h"
#include "keys.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloom {
namespace {

BloomFilter Fresh(Layout layout, uint64_t n) {
  FilterOptions options;
  options.expected_count = n;
  options.fp_rate = 0.01;
  options.layout = layout;
  absl::StatusOr<BloomFilter> filter = BloomFilter::Create(options);
  EXPECT_TRUE(filter.ok());
  return *std::move(filter);
}

void AddRange(BloomFilter& filter, uint64_t begin, uint64_t end) {
  for (uint64_t i = begin; i < end; ++i) filter.Add(bloom_test::Key("d", i));
}

std::string Saved(const BloomFilter& filter) {
  std::ostringstream out;
  EXPECT_TRUE(filter.Save(out).ok());
  return out.str();
}

// The delta of the dirty blocks, then the bits cleared (as a checkpoint does).
std::string TakeDelta(BloomFilter& filter) {
  std::ostringstream out;
  absl::StatusOr<uint64_t> bytes = filter.SaveDirtyBlocks(out);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, out.str().size());
  filter.ClearDirtyBlocks();
  return out.str();
}

absl::Status Apply(BloomFilter& filter, const std::string& delta) {
  std::istringstream in(delta);
  return filter.ApplyBlocks(in);
}

absl::StatusOr<BloomFilter> LoadDelta(const std::string& delta) {
  std::istringstream in(delta);
  return BloomFilter::LoadDelta(in);
}

class DeltaTest : public testing::TestWithParam<Layout> {};

TEST_P(DeltaTest, ChainFromAFreshFilterRebuildsItBitForBit) {
  BloomFilter live = Fresh(GetParam(), 200'000);
  live.EnableDirtyTracking();
  BloomFilter reference = Fresh(GetParam(), 200'000);
  std::vector<std::string> deltas;
  for (uint64_t round = 0; round < 4; ++round) {
    AddRange(live, round * 20'000, (round + 1) * 20'000);
    AddRange(reference, round * 20'000, (round + 1) * 20'000);
    deltas.push_back(TakeDelta(live));
  }
  absl::StatusOr<BloomFilter> rebuilt = LoadDelta(deltas[0]);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  for (size_t i = 1; i < deltas.size(); ++i) ASSERT_TRUE(Apply(*rebuilt, deltas[i]).ok());
  EXPECT_EQ(Saved(*rebuilt), Saved(reference));
  EXPECT_EQ(rebuilt->BitsSet(), reference.BitsSet());
}

TEST_P(DeltaTest, BasePlusDeltasRebuildsTheFilterAndApplyIsIdempotent) {
  BloomFilter live = Fresh(GetParam(), 1'000'000);
  AddRange(live, 0, 30'000);
  const std::string base = Saved(live);
  live.EnableDirtyTracking();
  AddRange(live, 30'000, 40'000);
  const std::string first = TakeDelta(live);
  AddRange(live, 40'000, 41'000);
  const std::string second = TakeDelta(live);

  std::istringstream base_in(base);
  absl::StatusOr<BloomFilter> rebuilt = BloomFilter::Load(base_in);
  ASSERT_TRUE(rebuilt.ok());
  ASSERT_TRUE(Apply(*rebuilt, first).ok());
  ASSERT_TRUE(Apply(*rebuilt, second).ok());
  EXPECT_EQ(Saved(*rebuilt), Saved(live));
  ASSERT_TRUE(Apply(*rebuilt, first).ok());  // again: nothing changes
  EXPECT_EQ(Saved(*rebuilt), Saved(live));
  EXPECT_EQ(rebuilt->BitsSet(), live.BitsSet());
  // A tenth of the inserts: under half the dirty blocks (blocked: 5% vs 41%
  // of the blocks; classic, 7 blocks per key: 31% vs 98%).
  EXPECT_LT(second.size() * 2, first.size());
}

TEST_P(DeltaTest, OnlyInsertsThatTurnABitOnDirtyABlock) {
  BloomFilter live = Fresh(GetParam(), 100'000);
  live.EnableDirtyTracking();
  EXPECT_EQ(live.DirtyBlockCount(), 0u);
  AddRange(live, 0, 1000);
  const uint64_t dirty = live.DirtyBlockCount();
  EXPECT_GT(dirty, 0u);
  // Blocked: one block per key (distinct keys rarely share one of ~1900).
  if (GetParam() == Layout::kBlocked) {
    EXPECT_LE(dirty, 1000u);
  }
  EXPECT_EQ(TakeDelta(live).size(), BloomFilter::DeltaBytes(dirty));
  AddRange(live, 0, 1000);  // re-inserts
  for (uint64_t i = 0; i < 1000; ++i) live.MayContain(bloom_test::Key("other", i));
  EXPECT_EQ(live.DirtyBlockCount(), 0u);
  EXPECT_EQ(TakeDelta(live).size(), BloomFilter::DeltaBytes(0));
}

TEST_P(DeltaTest, BatchesAndMergeDirtyTheirBlocks) {
  BloomFilter live = Fresh(GetParam(), 100'000);
  live.EnableDirtyTracking();
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < 5000; ++i) keys.push_back(bloom_test::Key("batch", i));
  std::vector<std::string_view> views(keys.begin(), keys.end());
  live.AddBatch(views);
  BloomFilter other = Fresh(GetParam(), 100'000);
  AddRange(other, 0, 5000);
  ASSERT_TRUE(live.Merge(other).ok());
  absl::StatusOr<BloomFilter> rebuilt = LoadDelta(TakeDelta(live));
  ASSERT_TRUE(rebuilt.ok());
  EXPECT_EQ(Saved(*rebuilt), Saved(live));
}

TEST_P(DeltaTest, ConcurrentInsertsAreAllInTheDelta) {
  BloomFilter live = Fresh(GetParam(), 200'000);
  live.EnableDirtyTracking();
  const uint64_t per_thread = bloom_test::Scaled(20'000);
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 4; ++t) {
    threads.emplace_back([&live, t, per_thread] {
      std::vector<std::string> keys;
      for (uint64_t i = 0; i < per_thread; ++i)
        keys.push_back(bloom_test::Key("t", t * 1'000'000 + i));
      std::vector<std::string_view> views(keys.begin(), keys.end());
      live.AddBatch(absl::Span<const std::string_view>(views.data(), views.size() / 2));
      for (size_t i = views.size() / 2; i < views.size(); ++i) live.Add(views[i]);
    });
  }
  for (std::thread& t : threads) t.join();
  absl::StatusOr<BloomFilter> rebuilt = LoadDelta(TakeDelta(live));
  ASSERT_TRUE(rebuilt.ok());
  EXPECT_EQ(Saved(*rebuilt), Saved(live));
}

INSTANTIATE_TEST_SUITE_P(Layouts, DeltaTest, testing::Values(Layout::kBlocked, Layout::kClassic),
                         [](const auto& info) { return std::string(LayoutName(info.param)); });

TEST(Delta, WithoutTrackingIsFailedPrecondition) {
  BloomFilter live = Fresh(Layout::kBlocked, 1000);
  std::ostringstream out;
  EXPECT_EQ(live.SaveDirtyBlocks(out).status().code(), absl::StatusCode::kFailedPrecondition);
}

// A classic filter of 15 words: block 0 is words 0..7, block 1 (partial)
// words 8..14, written with a zero eighth word.
BloomFilter Tiny() {
  absl::StatusOr<BloomFilter> filter =
      BloomFilter::CreateWithShape(Layout::kClassic, FilterShape{15 * 64, 3}, 100, 0.01);
  EXPECT_TRUE(filter.ok());
  return *std::move(filter);
}

TEST(Delta, GoldenBytesOfVersionOne) {
  // Frozen: a change here is a format change and needs a new version.
  BloomFilter filter = Tiny();
  filter.EnableDirtyTracking();
  for (const char* key : {"a", "b", "https://example.com/"}) filter.Add(key);
  const std::string bytes = TakeDelta(filter);
  ASSERT_EQ(bytes.size(), BloomFilter::DeltaBytes(2));  // both blocks touched
  EXPECT_EQ(bytes.substr(0, 12), std::string("CRAWLBLD\x01\0\0\0", 12));
  EXPECT_EQ(XXH3_64bits(bytes.data(), bytes.size()), 0x76195a3179a09c85ULL)
      << std::hex << XXH3_64bits(bytes.data(), bytes.size());
  absl::StatusOr<BloomFilter> rebuilt = LoadDelta(bytes);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  EXPECT_EQ(Saved(*rebuilt), Saved(filter));
}

void PutU32(std::string& bytes, size_t offset, uint32_t value) {
  std::memcpy(bytes.data() + offset, &value, 4);
}
void Reseal(std::string& bytes) {
  const uint64_t sum = XXH3_64bits(bytes.data(), 56);
  std::memcpy(bytes.data() + 56, &sum, 8);
}

std::string SmallDelta() {
  BloomFilter filter = Fresh(Layout::kBlocked, 10'000);
  filter.EnableDirtyTracking();
  AddRange(filter, 0, 100);
  return TakeDelta(filter);
}

TEST(Delta, CorruptionIsDataLossAndForeignInputIsRefused) {
  const std::string good = SmallDelta();
  ASSERT_TRUE(LoadDelta(good).ok());
  std::string flipped = good;
  flipped[64 + 68 * 3 + 10] ^= 0x10;  // a bit inside a record
  EXPECT_EQ(LoadDelta(flipped).status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(LoadDelta(good.substr(0, good.size() - 1)).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(LoadDelta(good.substr(0, 30)).status().code(), absl::StatusCode::kDataLoss);
  std::string header = good;
  header[30] ^= 1;
  EXPECT_EQ(LoadDelta(header).status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(LoadDelta("GIF89a this is not a delta at all, not even close, no no no no no....")
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  std::string newer = good;
  PutU32(newer, 8, 2);
  EXPECT_EQ(LoadDelta(newer).status().code(), absl::StatusCode::kUnimplemented);
  std::string unsorted = good;  // swap the first two records' indices
  std::string first = unsorted.substr(64, 4);
  unsorted.replace(64, 4, unsorted.substr(64 + 68, 4));
  unsorted.replace(64 + 68, 4, first);
  EXPECT_EQ(LoadDelta(unsorted).status().code(), absl::StatusCode::kDataLoss);
  std::string forged = good;  // a block count the file does not hold
  PutU32(forged, 48, 99);
  Reseal(forged);
  EXPECT_EQ(LoadDelta(forged).status().code(), absl::StatusCode::kDataLoss);
}

TEST(Delta, ADeltaOfAnotherShapeIsInvalidArgument) {
  BloomFilter other = Fresh(Layout::kBlocked, 20'000);
  std::istringstream in(SmallDelta());
  const absl::Status status = other.ApplyBlocks(in);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("shape"), absl::string_view::npos) << status;
}

}  // namespace
}  // namespace bloom
