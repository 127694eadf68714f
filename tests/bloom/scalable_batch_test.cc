// ScalableBloomFilter's batched insert gives exactly the single calls'
// answers, key by key and in order (scalable_filter.h promises it): across
// the prefetch distance (8 keys), with keys repeated inside a batch, and with
// stages opening in the middle of a batch, where the batch drops its lock to
// grow and goes on at the same key.
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "bloom/scalable_filter.h"
#include "gtest/gtest.h"
#include "keys.h"

namespace bloom {
namespace {

ScalableBloomFilter MakeFilter(Layout layout, uint64_t expected, uint32_t max_stages) {
  FilterOptions options;
  options.expected_count = expected;
  options.fp_rate = 0.05;  // loaded: positives among absent keys too
  options.layout = layout;
  GrowthOptions growth;
  growth.max_stages = max_stages;
  absl::StatusOr<ScalableBloomFilter> filter = ScalableBloomFilter::Create(options, growth);
  EXPECT_TRUE(filter.ok()) << filter.status();
  return *std::move(filter);
}

// Every third key repeats one of the 40 before it, so some repeats were
// prefetched before their first occurrence set its bits.
std::vector<std::string> KeysWithRepeats(size_t size) {
  std::vector<std::string> keys;
  for (size_t i = 0; i < size; ++i) {
    keys.push_back(i % 3 == 2 ? keys[i - 1 - (i * 7) % std::min<size_t>(i, 40)]
                              : bloom_test::Key("s", i));
  }
  return keys;
}

struct Case {
  Layout layout;
  uint64_t expected;    // the first stage's capacity
  uint32_t max_stages;  // growth stops here; the last stage then fills on
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << LayoutName(c.layout) << ", first stage " << c.expected << ", max stages " << c.max_stages;
}

class ScalableBatchTest : public testing::TestWithParam<Case> {};

TEST_P(ScalableBatchTest, InsertIfNewBatchMatchesSingleCallsInOrder) {
  const Case c = GetParam();
  for (const size_t size : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{3000}}) {
    ScalableBloomFilter single = MakeFilter(c.layout, c.expected, c.max_stages);
    ScalableBloomFilter by_key = MakeFilter(c.layout, c.expected, c.max_stages);
    ScalableBloomFilter by_hash = MakeFilter(c.layout, c.expected, c.max_stages);
    const std::vector<std::string> keys = KeysWithRepeats(size);
    const std::vector<std::string_view> views = bloom_test::Views(keys);
    std::vector<Hash128> hashes;
    for (const std::string_view v : views) hashes.push_back(HashKey(v));
    // One past the batch: a batch must not write beyond its keys.
    std::unique_ptr<bool[]> out_key(new bool[size + 1]);
    std::unique_ptr<bool[]> out_hash(new bool[size + 1]);
    out_key[size] = true;
    out_hash[size] = true;
    by_key.InsertIfNewBatch(views, absl::MakeSpan(out_key.get(), size));
    by_hash.InsertIfNewBatch(hashes, absl::MakeSpan(out_hash.get(), size));
    EXPECT_TRUE(out_key[size]);
    EXPECT_TRUE(out_hash[size]);
    for (size_t i = 0; i < size; ++i) {
      const bool expected = single.InsertIfNew(views[i]);
      ASSERT_EQ(out_key[i], expected) << "size " << size << " key " << i;
      ASSERT_EQ(out_hash[i], expected) << "size " << size << " key " << i;
      if (i % 3 == 2) {
        EXPECT_FALSE(out_hash[i]) << "a repeated key reported new, key " << i;
      }
    }
    EXPECT_EQ(by_key.StageCount(), single.StageCount());
    EXPECT_EQ(by_hash.StageCount(), single.StageCount());
    EXPECT_EQ(by_hash.InsertedCount(), single.InsertedCount());
    EXPECT_EQ(by_hash.BitsSet(), single.BitsSet());
    EXPECT_EQ(by_key.BitsSet(), single.BitsSet());
  }
}

// The 3000-key batch opens stages mid-batch where the first stage holds 100
// (capacities 100, 200, 400, 800, 1600), and fills a capped last stage.
INSTANTIATE_TEST_SUITE_P(Shapes, ScalableBatchTest,
                         testing::Values(Case{Layout::kBlocked, 100, 32},
                                         Case{Layout::kClassic, 100, 32},
                                         Case{Layout::kBlocked, 100, 2},
                                         Case{Layout::kBlocked, 100'000, 32}),
                         [](const testing::TestParamInfo<Case>& info) {
                           return std::string(LayoutName(info.param.layout)) + "First" +
                                  std::to_string(info.param.expected) + "Max" +
                                  std::to_string(info.param.max_stages);
                         });

TEST(ScalableBatch, StagesOpenInsideOneBatch) {
  ScalableBloomFilter filter = MakeFilter(Layout::kBlocked, 100, 32);
  const std::vector<std::string> keys = bloom_test::Keys("g", 0, 3000);
  std::unique_ptr<bool[]> out(new bool[keys.size()]);
  filter.InsertIfNewBatch(bloom_test::Views(keys), absl::MakeSpan(out.get(), keys.size()));
  EXPECT_GE(filter.StageCount(), 5u);  // 100 + 200 + 400 + 800 < 3000
  for (const std::string& key : keys) ASSERT_TRUE(filter.MayContain(key));
}

}  // namespace
}  // namespace bloom
