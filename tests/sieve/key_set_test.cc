// KeySet (sieve/src/key_set.h), the false-positive sample's exact set: it
// agrees with std::set on a random stream of inserts and erasures, keeps the
// key 0, and keeps its capacity when erasing.
#include "../../sieve/src/key_set.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace sieve::internal {
namespace {

std::vector<uint64_t> Sorted(std::vector<uint64_t> keys) {
  std::sort(keys.begin(), keys.end());
  return keys;
}

TEST(KeySet, AgreesWithAnOrderedSetThroughGrowthAndErasures) {
  std::mt19937_64 random(20261126);
  KeySet keys;
  std::set<uint64_t> truth;
  uint64_t max_key = ~uint64_t{0};
  for (int round = 0; round < 6; ++round) {
    std::vector<uint64_t> inserted;
    for (int i = 0; i < 40000; ++i) {
      // Every third key repeats an earlier one, as duplicates do in a crawl.
      const uint64_t key = (i % 3 == 2 && !inserted.empty()) ? inserted[random() % inserted.size()]
                                                             : random() & max_key;
      inserted.push_back(key);
      ASSERT_EQ(keys.Insert(key), truth.insert(key).second) << key;
    }
    ASSERT_EQ(keys.size(), truth.size());
    max_key >>= 1;
    keys.EraseAbove(max_key);
    truth.erase(truth.upper_bound(max_key), truth.end());
    ASSERT_EQ(keys.size(), truth.size());
    ASSERT_EQ(Sorted(keys.Keys()), std::vector<uint64_t>(truth.begin(), truth.end()));
  }
  for (uint64_t key : truth) EXPECT_TRUE(keys.Contains(key));
  EXPECT_FALSE(keys.Contains(max_key + 1));
}

TEST(KeySet, KeepsTheKeyZeroLikeAnyOther) {
  KeySet keys;
  EXPECT_FALSE(keys.Contains(0));
  EXPECT_TRUE(keys.Insert(0));
  EXPECT_FALSE(keys.Insert(0));
  EXPECT_TRUE(keys.Insert(7));
  EXPECT_EQ(keys.size(), 2u);
  EXPECT_EQ(Sorted(keys.Keys()), (std::vector<uint64_t>{0, 7}));
  keys.EraseAbove(3);
  EXPECT_EQ(keys.Keys(), std::vector<uint64_t>{0});
  keys.Clear();
  EXPECT_TRUE(keys.empty());
  EXPECT_FALSE(keys.Contains(0));
}

TEST(KeySet, ErasingKeepsTheCapacityAndFillingAgainDoesNotGrowIt) {
  KeySet keys;
  for (uint64_t k = 1; k <= 3000; ++k) keys.Insert(k * 0x9e3779b97f4a7c15ULL);
  const uint64_t bytes = keys.MemoryBytes();
  EXPECT_GE(bytes, 3000 * 8 * 4 / 3);  // at most 3/4 full
  EXPECT_LE(bytes, 3000 * 8 * 4);      // at least 1/4 full
  keys.EraseAbove(~uint64_t{0} >> 1);
  EXPECT_EQ(keys.MemoryBytes(), bytes);
  while (keys.size() < 3000) keys.Insert(keys.size() + 1);
  EXPECT_EQ(keys.MemoryBytes(), bytes);
}

}  // namespace
}  // namespace sieve::internal
