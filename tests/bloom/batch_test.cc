// The batched calls give exactly the single calls' answers, key by key and in
// order (filter.h promises it), for batch sizes around the prefetch pipeline's
// depth (src/filter_batch.cc: 4 keys classic, 32 blocked), where the ring's
// warm-up and drain run, and for keys repeated inside one batch.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bloom/filter.h"
#include "gtest/gtest.h"
#include "keys.h"

namespace bloom {
namespace {

// Around both depths, and much larger than both.
const size_t kSizes[] = {0, 1, 2, 3, 4, 5, 31, 32, 33, 64, 65, 1000};

BloomFilter MakeFilter(Layout layout) {
  FilterOptions options;
  options.expected_count = 2000;
  options.fp_rate = 0.05;  // small and loaded: many positives among absent keys
  options.layout = layout;
  absl::StatusOr<BloomFilter> filter = BloomFilter::Create(options);
  EXPECT_TRUE(filter.ok()) << filter.status();
  return *std::move(filter);
}

std::vector<Hash128> Hashes(const std::vector<std::string_view>& views) {
  std::vector<Hash128> hashes;
  for (std::string_view v : views) hashes.push_back(HashKey(v));
  return hashes;
}

class BatchTest : public testing::TestWithParam<Layout> {};

TEST_P(BatchTest, InsertIfNewBatchMatchesSingleCallsInOrder) {
  for (size_t size : kSizes) {
    BloomFilter single = MakeFilter(GetParam());
    BloomFilter batched = MakeFilter(GetParam());
    BloomFilter hashed = MakeFilter(GetParam());
    // Every third key repeats an earlier one, at distances from 1 to 40 keys:
    // the repeat must see its first occurrence's bits although its line was
    // prefetched before they were set.
    std::vector<std::string> keys;
    for (size_t i = 0; i < size; ++i) {
      std::string key =
          i % 3 == 2 ? keys[i - 1 - (i * 7) % std::min<size_t>(i, 40)] : bloom_test::Key("k", i);
      keys.push_back(std::move(key));
    }
    const std::vector<std::string_view> views = bloom_test::Views(keys);
    std::unique_ptr<bool[]> out(new bool[size + 1]);
    std::unique_ptr<bool[]> out_hashed(new bool[size + 1]);
    batched.InsertIfNewBatch(views, absl::MakeSpan(out.get(), size));
    hashed.InsertIfNewBatch(Hashes(views), absl::MakeSpan(out_hashed.get(), size));
    for (size_t i = 0; i < size; ++i) {
      const bool expected = single.InsertIfNew(views[i]);
      ASSERT_EQ(out[i], expected) << "size " << size << " key " << i;
      ASSERT_EQ(out_hashed[i], expected) << "size " << size << " key " << i;
      if (i % 3 == 2) {
        EXPECT_FALSE(out[i]) << "a repeated key reported new, key " << i;
      }
    }
    EXPECT_EQ(batched.BitsSet(), single.BitsSet());
    EXPECT_EQ(hashed.BitsSet(), single.BitsSet());
  }
}

TEST_P(BatchTest, MayContainBatchMatchesSingleCalls) {
  BloomFilter filter = MakeFilter(GetParam());
  const std::vector<std::string> present = bloom_test::Keys("present", 0, 2000);
  filter.AddBatch(bloom_test::Views(present));
  // Half present, half absent, interleaved; the absent ones include false
  // positives at ~5%, which must come out the same way too.
  std::vector<std::string> keys;
  for (size_t i = 0; i < 1000; ++i) {
    keys.push_back(present[i * 2]);
    keys.push_back(bloom_test::Key("absent", i));
  }
  const std::vector<std::string_view> all = bloom_test::Views(keys);
  uint64_t absent = 0;
  uint64_t absent_positives = 0;
  for (size_t size : kSizes) {
    const std::vector<std::string_view> views(all.begin(), all.begin() + size);
    std::unique_ptr<bool[]> out(new bool[size + 1]);
    std::unique_ptr<bool[]> out_hashed(new bool[size + 1]);
    filter.MayContainBatch(views, absl::MakeSpan(out.get(), size));
    filter.MayContainBatch(Hashes(views), absl::MakeSpan(out_hashed.get(), size));
    for (size_t i = 0; i < size; ++i) {
      ASSERT_EQ(out[i], filter.MayContain(views[i])) << "size " << size << " key " << i;
      ASSERT_EQ(out_hashed[i], out[i]) << "size " << size << " key " << i;
      if (i % 2 == 0) {
        EXPECT_TRUE(out[i]) << "false negative, key " << i;
      }
      if (i % 2 == 1) {
        ++absent;
        absent_positives += out[i];
      }
    }
  }
  // The absent keys are mostly answered "no" (rate ~5%): the checks above
  // compared real answers, not a filter that says yes to everything.
  EXPECT_LT(absent_positives, absent / 4);
}

TEST_P(BatchTest, AddBatchSetsTheSameBitsAsAdd) {
  BloomFilter single = MakeFilter(GetParam());
  BloomFilter batched = MakeFilter(GetParam());
  const std::vector<std::string> keys = bloom_test::Keys("k", 0, 1500);
  const std::vector<std::string_view> views = bloom_test::Views(keys);
  for (std::string_view v : views) single.Add(v);
  batched.AddBatch(std::vector<std::string_view>(views.begin(), views.begin() + 700));
  batched.AddBatch(Hashes(std::vector<std::string_view>(views.begin() + 700, views.end())));
  EXPECT_EQ(batched.BitsSet(), single.BitsSet());
  absl::StatusOr<double> both = EstimateUnionCount(single, batched);
  ASSERT_TRUE(both.ok());
  // Same bits: the union holds no more keys than either filter.
  EXPECT_DOUBLE_EQ(*both, single.EstimatedCount());
}

INSTANTIATE_TEST_SUITE_P(Layouts, BatchTest, testing::Values(Layout::kBlocked, Layout::kClassic),
                         [](const testing::TestParamInfo<Layout>& info) {
                           return std::string(LayoutName(info.param));
                         });

}  // namespace
}  // namespace bloom
