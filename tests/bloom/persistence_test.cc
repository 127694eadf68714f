// Save/load: round trips, the frozen bytes of format version 1, and every
// corruption case (truncated, flipped, foreign, newer version, forged sizes)
// giving a clear error without crashing or allocating absurd memory.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <streambuf>
#include <string>

#include "bloom/filter.h"
#include "bloom/scalable_filter.h"
#include "gtest/gtest.h"
#include "keys.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloom {
namespace {

BloomFilter Make(Layout layout, uint64_t n, uint64_t keys) {
  FilterOptions options;
  options.expected_count = n;
  options.fp_rate = 0.01;
  options.layout = layout;
  absl::StatusOr<BloomFilter> filter = BloomFilter::Create(options);
  EXPECT_TRUE(filter.ok());
  for (uint64_t i = 0; i < keys; ++i) filter->Add(bloom_test::Key("p", i));
  return *std::move(filter);
}

std::string Saved(const BloomFilter& filter) {
  std::ostringstream out;
  EXPECT_TRUE(filter.Save(out).ok());
  return out.str();
}

absl::StatusOr<BloomFilter> LoadBytes(const std::string& bytes) {
  std::istringstream in(bytes);
  return BloomFilter::Load(in);
}

// A stream that cannot seek, like a pipe: Load cannot check sizes up front.
class PipeBuffer : public std::streambuf {
 public:
  explicit PipeBuffer(std::string data) : data_(std::move(data)) {
    setg(data_.data(), data_.data(), data_.data() + data_.size());
  }

 private:
  std::string data_;
};

void PutU64(std::string& bytes, size_t offset, uint64_t value) {
  std::memcpy(bytes.data() + offset, &value, 8);
}
void PutU32(std::string& bytes, size_t offset, uint32_t value) {
  std::memcpy(bytes.data() + offset, &value, 4);
}
// Rewrites the header checksum so that a forged header passes it.
void Reseal(std::string& bytes) { PutU64(bytes, 56, XXH3_64bits(bytes.data(), 56)); }

class PersistenceTest : public testing::TestWithParam<Layout> {};

TEST_P(PersistenceTest, RoundTripThroughStreamAndFile) {
  const BloomFilter original = Make(GetParam(), 100'000, 60'000);
  const std::string bytes = Saved(original);
  EXPECT_EQ(bytes.size(), 64 + original.MemoryBytes() + 8);
  absl::StatusOr<BloomFilter> loaded = LoadBytes(bytes);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->layout(), original.layout());
  EXPECT_EQ(loaded->BitCount(), original.BitCount());
  EXPECT_EQ(loaded->HashCount(), original.HashCount());
  EXPECT_EQ(loaded->Capacity(), original.Capacity());
  EXPECT_EQ(loaded->TargetFpRate(), original.TargetFpRate());
  EXPECT_EQ(loaded->BitsSet(), original.BitsSet());
  for (uint64_t i = 0; i < 60'000; ++i) ASSERT_TRUE(loaded->MayContain(bloom_test::Key("p", i)));
  EXPECT_EQ(Saved(*loaded), bytes);

  const std::string path = (std::filesystem::temp_directory_path() /
                            ("bloom_persistence_" + std::string(LayoutName(GetParam())) + ".bin"))
                               .string();
  ASSERT_TRUE(original.SaveFile(path).ok());
  absl::StatusOr<BloomFilter> from_file = BloomFilter::LoadFile(path);
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  EXPECT_EQ(Saved(*from_file), bytes);
  std::filesystem::remove(path);
}

TEST_P(PersistenceTest, TruncationAtEveryRegionIsDataLoss) {
  const std::string bytes = Saved(Make(GetParam(), 1000, 500));
  for (size_t cut : {size_t{0}, size_t{5}, size_t{12}, size_t{40}, size_t{63}, size_t{64},
                     size_t{64 + 100}, bytes.size() - 9, bytes.size() - 1}) {
    absl::StatusOr<BloomFilter> loaded = LoadBytes(bytes.substr(0, cut));
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << "cut at " << cut;
    // Same through a stream that cannot report its size.
    PipeBuffer pipe(bytes.substr(0, cut));
    std::istream in(&pipe);
    EXPECT_EQ(BloomFilter::Load(in).status().code(), absl::StatusCode::kDataLoss)
        << "pipe cut at " << cut;
  }
}

TEST_P(PersistenceTest, FlippedBitAnywhereIsDetected) {
  const std::string bytes = Saved(Make(GetParam(), 1000, 500));
  // Every header byte after the magic and version, payload bytes, the trailer.
  for (size_t offset = 12; offset < bytes.size(); offset += offset < 64 ? 1 : 37) {
    std::string corrupt = bytes;
    corrupt[offset] ^= 0x10;
    absl::StatusOr<BloomFilter> loaded = LoadBytes(corrupt);
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << "offset " << offset;
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, PersistenceTest,
                         testing::Values(Layout::kBlocked, Layout::kClassic),
                         [](const testing::TestParamInfo<Layout>& info) {
                           return std::string(LayoutName(info.param));
                         });

TEST(Persistence, GoldenBytesOfVersionOne) {
  // Frozen: a change here is a format change and needs a new version.
  FilterOptions options;
  options.expected_count = 100;
  options.fp_rate = 0.01;
  absl::StatusOr<BloomFilter> filter = BloomFilter::Create(options);
  ASSERT_TRUE(filter.ok());
  for (const char* key : {"a", "b", "https://example.com/"}) filter->Add(key);
  const std::string bytes = Saved(*filter);
  ASSERT_EQ(bytes.size(), 64u + 128u + 8u);
  EXPECT_EQ(bytes.substr(0, 12), std::string("CRAWLBLM\x01\0\0\0", 12));
  EXPECT_EQ(XXH3_64bits(bytes.data(), bytes.size()), 0xcf6e028bd6987b80ULL)
      << std::hex << XXH3_64bits(bytes.data(), bytes.size());
}

TEST(Persistence, ForeignInputIsInvalidArgument) {
  EXPECT_EQ(LoadBytes("GIF89a this is not a filter at all, not even close......").status().code(),
            absl::StatusCode::kInvalidArgument);
  std::string other_hash = Saved(Make(Layout::kBlocked, 1000, 10));
  PutU32(other_hash, 16, 99);  // hash id
  Reseal(other_hash);
  EXPECT_EQ(LoadBytes(other_hash).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Persistence, NewerVersionIsUnimplemented) {
  std::string bytes = Saved(Make(Layout::kBlocked, 1000, 10));
  PutU32(bytes, 8, 2);
  absl::StatusOr<BloomFilter> loaded = LoadBytes(bytes);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(loaded.status().message().find("newer"), absl::string_view::npos);
}

TEST(Persistence, ForgedSizesNeverAllocateAbsurdMemory) {
  std::string bytes = Saved(Make(Layout::kClassic, 1000, 10));
  // A consistent header declaring a 128 GiB filter, followed by a few bytes.
  std::string huge = bytes;
  PutU64(huge, 24, kMaxBits);
  PutU64(huge, 48, kMaxBits / 8);
  Reseal(huge);
  absl::StatusOr<BloomFilter> loaded = LoadBytes(huge);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(loaded.status().message().find("truncated"), absl::string_view::npos);
  // Beyond the maximum, or internally inconsistent: refused from the header.
  for (auto forge :
       {+[](std::string& b) { PutU64(b, 24, kMaxBits * 2); },
        +[](std::string& b) { PutU64(b, 48, 8); }, +[](std::string& b) { PutU32(b, 20, 0); },
        +[](std::string& b) { PutU32(b, 20, 1000); }, +[](std::string& b) { PutU32(b, 12, 9); }}) {
    std::string forged = bytes;
    forge(forged);
    Reseal(forged);
    EXPECT_EQ(LoadBytes(forged).status().code(), absl::StatusCode::kDataLoss);
  }
}

TEST(Persistence, MissingFileIsNotFound) {
  EXPECT_EQ(BloomFilter::LoadFile("/nonexistent/dir/filter.bin").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(Persistence, ScalableRoundTripAndCorruption) {
  FilterOptions options;
  options.expected_count = 1000;
  absl::StatusOr<ScalableBloomFilter> filter = ScalableBloomFilter::Create(options);
  ASSERT_TRUE(filter.ok());
  for (uint64_t i = 0; i < 5000; ++i) filter->Add(bloom_test::Key("s", i));
  ASSERT_GE(filter->StageCount(), 3u);
  std::ostringstream out;
  ASSERT_TRUE(filter->Save(out).ok());
  const std::string bytes = out.str();
  std::istringstream in(bytes);
  absl::StatusOr<ScalableBloomFilter> loaded = ScalableBloomFilter::Load(in);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->StageCount(), filter->StageCount());
  EXPECT_EQ(loaded->InsertedCount(), filter->InsertedCount());
  EXPECT_EQ(loaded->BitsSet(), filter->BitsSet());
  for (uint64_t i = 0; i < 5000; ++i) ASSERT_TRUE(loaded->MayContain(bloom_test::Key("s", i)));
  // It keeps growing from where it stopped.
  for (uint64_t i = 5000; i < 20000; ++i) loaded->Add(bloom_test::Key("s", i));
  EXPECT_GT(loaded->StageCount(), filter->StageCount());

  for (size_t offset :
       {size_t{0}, size_t{9}, size_t{20}, size_t{60}, bytes.size() / 2, bytes.size() - 3}) {
    std::string corrupt = bytes;
    corrupt[offset] ^= 0x01;
    std::istringstream corrupt_in(corrupt);
    EXPECT_FALSE(ScalableBloomFilter::Load(corrupt_in).ok()) << offset;
  }
  for (size_t cut : {size_t{0}, size_t{30}, size_t{100}, bytes.size() / 2, bytes.size() - 1}) {
    std::istringstream cut_in(bytes.substr(0, cut));
    EXPECT_FALSE(ScalableBloomFilter::Load(cut_in).ok()) << cut;
  }
  std::istringstream plain(Saved(Make(Layout::kBlocked, 100, 1)));
  EXPECT_EQ(ScalableBloomFilter::Load(plain).status().code(), absl::StatusCode::kInvalidArgument);
}

// Found by the bloom fuzzer (tests/fuzz/crashes/bloom/): a header whose
// initial capacity disagrees with its stages, with a valid checksum, loaded,
// and the first Add then opened a stage sized from the forged capacity.
TEST(Persistence, ScalableStageTableMustMatchItsHeader) {
  FilterOptions options;
  options.expected_count = 20;
  absl::StatusOr<ScalableBloomFilter> filter = ScalableBloomFilter::Create(options);
  ASSERT_TRUE(filter.ok());
  std::ostringstream out;
  ASSERT_TRUE(filter->Save(out).ok());
  std::string bytes = out.str();
  // Header: magic 8, version 4, layout 4, initial capacity u64 at 16; 56
  // fixed bytes, 16 per stage (one here), then XXH3-64 of all of them.
  const uint64_t forged = 4'200'000'000;
  std::memcpy(&bytes[16], &forged, sizeof(forged));
  const uint64_t sum = XXH3_64bits(bytes.data(), 56 + 16);
  std::memcpy(&bytes[56 + 16], &sum, sizeof(sum));
  std::istringstream in(bytes);
  absl::StatusOr<ScalableBloomFilter> loaded = ScalableBloomFilter::Load(in);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << loaded.status();
}

}  // namespace
}  // namespace bloom
