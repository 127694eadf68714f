// The key hash is frozen: saved filters depend on it. These golden values were
// produced once by XXH3-128 with kHashSeed; a change here is a format change.
#include "bloom/hash.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace bloom {
namespace {

TEST(HashKey, GoldenValues) {
  const Hash128 h = HashKey("https://example.com/");
  const Hash128 empty = HashKey("");
  EXPECT_EQ(h, (Hash128{0xac6a0f22268a4a39ULL, 0xbcf187de7b940dafULL}));
  EXPECT_EQ(empty, (Hash128{0xc70ead7ac837bce1ULL, 0xb7afb18e5a560057ULL}));
}

TEST(HashKey, SameAsHashBytes) {
  const std::string key = "https://example.com/a?b=c";
  EXPECT_EQ(HashKey(key), HashBytes(key.data(), key.size()));
}

TEST(HashKey, DistinctKeysDistinctHashes) {
  std::set<std::pair<uint64_t, uint64_t>> seen;
  for (int i = 0; i < 100000; ++i) {
    const Hash128 h = HashKey("k" + std::to_string(i));
    EXPECT_TRUE(seen.insert({h.low, h.high}).second) << i;
  }
}

}  // namespace
}  // namespace bloom
