// The segment file: records round-trip through zstd; the header's bytes are
// frozen; any damage (a flipped body byte, a header that disagrees with the
// queue's record, a truncation) is DataLoss naming the file.
#include "../../sieve/src/segment_file.h"

#include <fstream>
#include <string>

#include "../../sieve/src/file_io.h"
#include "absl/strings/escaping.h"
#include "gtest/gtest.h"
#include "sieve/test_urls.h"

namespace sieve::internal {
namespace {

using sieve_test::ScratchDir;
using sieve_test::TestUrl;

// Writes a segment of `count` test URLs (payload "p<i>") to `path`.
SegmentFileInfo WriteTestSegment(const std::filesystem::path& path, int count) {
  Segment segment;
  for (int i = 0; i < count; ++i) segment.Append(TestUrl(i), "p" + std::to_string(i));
  SegmentCompressor compressor;
  SegmentFileInfo info;
  absl::StatusOr<std::string> bytes = compressor.Encode(segment.Bytes(), count, info);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_TRUE(WriteWholeFile(path, *bytes).ok());
  return info;
}

TEST(SegmentFileTest, RoundTripsAndCompresses) {
  ScratchDir dir;
  const auto path = dir.path() / "s";
  const SegmentFileInfo info = WriteTestSegment(path, 5000);
  EXPECT_EQ(info.records, 5000u);
  EXPECT_LT(info.stored_bytes * 3, info.raw_bytes);  // URLs compress well
  EXPECT_EQ(std::filesystem::file_size(path), info.FileBytes());
  absl::StatusOr<SegmentFileInfo> header = ReadSegmentFileHeader(path);
  ASSERT_TRUE(header.ok()) << header.status();
  EXPECT_EQ(*header, info);
  absl::StatusOr<Segment> back = LoadSegmentFile(path, info);
  ASSERT_TRUE(back.ok()) << back.status();
  for (int i = 0; i < 5000; ++i) {
    SieveEntry entry = back->PopFront();
    ASSERT_EQ(entry.url, TestUrl(i));
    ASSERT_EQ(entry.payload, "p" + std::to_string(i));
  }
}

// If this fails, the segment format changed: bump kSegmentFileVersion and
// keep reading (or clearly refuse) the old one.
TEST(SegmentFileTest, GoldenHeaderBytes) {
  ScratchDir dir;
  Segment segment;
  segment.Append("https://a.example/", "");
  SegmentCompressor compressor;
  SegmentFileInfo info;
  absl::StatusOr<std::string> bytes = compressor.Encode(segment.Bytes(), 1, info);
  ASSERT_TRUE(bytes.ok());
  std::string stored(8, '\0');  // zstd's output size may change with its version
  for (int i = 0; i < 8; ++i) stored[i] = static_cast<char>((info.stored_bytes >> (8 * i)) & 0xff);
  EXPECT_EQ(absl::BytesToHexString(bytes->substr(0, 48)),
            absl::BytesToHexString("SIEVESGZ") +    // magic
                "03000000"                          // version 3
                "01000000"                          // codec zstd
                "0100000000000000"                  // records
                "1400000000000000"                  // raw bytes (20)
                + absl::BytesToHexString(stored) +  // stored bytes
                "76b6c216941729e1");                // XXH3-64 of the raw bytes
  EXPECT_EQ(bytes->size(), 48 + info.stored_bytes);
}

TEST(SegmentFileTest, DamageIsDataLossNamingTheFile) {
  ScratchDir dir;
  const auto path = dir.path() / "victim";
  const SegmentFileInfo info = WriteTestSegment(path, 2000);
  std::string whole;
  ASSERT_TRUE(ReadWholeFile(path, whole).ok());
  auto expect_data_loss = [&](const std::string& bytes, const SegmentFileInfo& expected,
                              const char* what) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    absl::StatusOr<Segment> loaded = LoadSegmentFile(path, expected);
    ASSERT_FALSE(loaded.ok()) << what;
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << what;
    EXPECT_NE(loaded.status().message().find("victim"), std::string::npos) << loaded.status();
  };
  for (size_t at : {size_t{0}, size_t{9}, size_t{20}, size_t{44}, size_t{60}, whole.size() / 2,
                    whole.size() - 1}) {
    std::string bad = whole;
    bad[at] ^= 0x04;
    expect_data_loss(bad, info, "flipped byte");
  }
  for (size_t cut : {size_t{0}, size_t{47}, whole.size() - 1}) {
    expect_data_loss(whole.substr(0, cut), info, "truncated");
    EXPECT_FALSE(ReadSegmentFileHeader(path).ok()) << cut;
  }
  SegmentFileInfo other = info;
  other.records += 1;
  expect_data_loss(whole, other, "header differs from the queue's record");
}

}  // namespace
}  // namespace sieve::internal
