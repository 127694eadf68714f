// The growing filter's per-stage deltas: a chain from an empty filter, or
// from an image, rebuilds it byte for byte (stage table and counters
// included) across stages opened between saves; foreign and damaged deltas
// are refused; the format's bytes are frozen.
#include <xxhash.h>

#include <sstream>
#include <string>

#include "bloom/scalable_filter.h"
#include "gtest/gtest.h"

namespace bloom {
namespace {

ScalableBloomFilter Fresh(uint64_t initial) {
  FilterOptions options;
  options.expected_count = initial;
  options.fp_rate = 0.01;
  absl::StatusOr<ScalableBloomFilter> filter = ScalableBloomFilter::Create(options);
  EXPECT_TRUE(filter.ok()) << filter.status();
  return *std::move(filter);
}

void AddRange(ScalableBloomFilter& filter, int begin, int end) {
  for (int i = begin; i < end; ++i) filter.InsertIfNew("https://s.example/" + std::to_string(i));
}

std::string Saved(const ScalableBloomFilter& filter) {
  std::ostringstream out;
  EXPECT_TRUE(filter.Save(out).ok());
  return out.str();
}

// A delta of the blocks changed since the last one, then clears them.
std::string TakeDelta(ScalableBloomFilter& filter) {
  std::ostringstream out;
  absl::StatusOr<uint64_t> bytes = filter.SaveDirtyBlocks(out);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, out.str().size());
  filter.ClearDirtyBlocks();
  return out.str();
}

TEST(ScalableDelta, ChainFromAnEmptyFilterRebuildsItAcrossNewStages) {
  ScalableBloomFilter live = Fresh(1000);
  live.EnableDirtyTracking();
  AddRange(live, 0, 500);
  const std::string first = TakeDelta(live);
  AddRange(live, 500, 2600);  // opens stages 2 and 3 (capacities 2000, 4000)
  ASSERT_GE(live.StageCount(), 2u);
  const uint64_t expected_bytes = live.DeltaBytes();
  const std::string second = TakeDelta(live);
  EXPECT_EQ(second.size(), expected_bytes);
  AddRange(live, 2600, 2700);
  const std::string third = TakeDelta(live);

  std::istringstream in(first);
  absl::StatusOr<ScalableBloomFilter> rebuilt = ScalableBloomFilter::LoadDelta(in);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  for (const std::string* delta : {&second, &third}) {
    std::istringstream next(*delta);
    ASSERT_TRUE(rebuilt->ApplyDelta(next).ok());
  }
  EXPECT_EQ(Saved(*rebuilt), Saved(live));  // bits, stage table and inserted counts
  EXPECT_EQ(rebuilt->InsertedCount(), live.InsertedCount());
  // The rebuilt filter goes on growing as the original would.
  AddRange(live, 2700, 9000);
  AddRange(*rebuilt, 2700, 9000);
  EXPECT_EQ(Saved(*rebuilt), Saved(live));
}

TEST(ScalableDelta, ImagePlusDeltasRebuildsItAndReapplyingIsHarmless) {
  ScalableBloomFilter live = Fresh(1000);
  AddRange(live, 0, 1500);
  live.EnableDirtyTracking();  // after the image: the deltas hold the rest
  const std::string image = Saved(live);
  AddRange(live, 1500, 4000);
  const std::string delta = TakeDelta(live);
  std::istringstream base_in(image);
  absl::StatusOr<ScalableBloomFilter> rebuilt = ScalableBloomFilter::Load(base_in);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  for (int time = 0; time < 2; ++time) {
    std::istringstream in(delta);
    ASSERT_TRUE(rebuilt->ApplyDelta(in).ok());
  }
  EXPECT_EQ(Saved(*rebuilt), Saved(live));
}

TEST(ScalableDelta, ForeignTruncatedAndShrunkDeltasAreRefused) {
  ScalableBloomFilter live = Fresh(1000);
  live.EnableDirtyTracking();
  AddRange(live, 0, 3000);
  const std::string delta = TakeDelta(live);

  ScalableBloomFilter other = Fresh(2000);  // other options
  std::istringstream foreign(delta);
  EXPECT_EQ(other.ApplyDelta(foreign).code(), absl::StatusCode::kInvalidArgument);

  for (size_t cut : {size_t{10}, size_t{60}, delta.size() / 2, delta.size() - 1}) {
    ScalableBloomFilter target = Fresh(1000);
    std::istringstream in(delta.substr(0, cut));
    EXPECT_FALSE(target.ApplyDelta(in).ok()) << "cut at " << cut;
  }
  std::string flipped = delta;
  flipped[70] ^= 0x10;  // the stage table: the header checksum no longer matches
  ScalableBloomFilter target = Fresh(1000);
  std::istringstream bad(flipped);
  EXPECT_EQ(target.ApplyDelta(bad).code(), absl::StatusCode::kDataLoss);

  // A delta of fewer stages than the filter has is not of its chain.
  ScalableBloomFilter young = Fresh(1000);
  young.EnableDirtyTracking();
  AddRange(young, 0, 10);
  const std::string one_stage = TakeDelta(young);
  std::istringstream older(one_stage);
  EXPECT_EQ(live.ApplyDelta(older).code(), absl::StatusCode::kInvalidArgument);
  std::istringstream image(Saved(live));  // an image is not a delta
  EXPECT_FALSE(live.ApplyDelta(image).ok());
}

TEST(ScalableDelta, WithoutTrackingIsFailedPrecondition) {
  ScalableBloomFilter live = Fresh(1000);
  std::ostringstream out;
  EXPECT_EQ(live.SaveDirtyBlocks(out).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(ScalableDelta, GoldenBytesOfVersionOne) {
  // Frozen: a change here is a format change and needs a new version.
  ScalableBloomFilter live = Fresh(10);
  live.EnableDirtyTracking();
  for (const char* key : {"a", "b", "https://example.com/"}) live.Add(key);
  const std::string bytes = TakeDelta(live);
  EXPECT_EQ(bytes.substr(0, 12), std::string("CRAWLSBD\x01\0\0\0", 12));
  EXPECT_EQ(XXH3_64bits(bytes.data(), bytes.size()), 0x4e849e189c8258ecULL)
      << std::hex << XXH3_64bits(bytes.data(), bytes.size());
  std::istringstream in(bytes);
  absl::StatusOr<ScalableBloomFilter> rebuilt = ScalableBloomFilter::LoadDelta(in);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  EXPECT_EQ(Saved(*rebuilt), Saved(live));
}

}  // namespace
}  // namespace bloom
