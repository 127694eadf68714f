// The packed segment: records round-trip in order, and FromBytes rejects
// malformed bytes instead of reading past them.
#include "../../sieve/src/segment.h"

#include <string>

#include "gtest/gtest.h"

namespace sieve::internal {
namespace {

TEST(SegmentTest, PopsInAppendOrderIncludingEmptyAndLongRecords) {
  Segment segment;
  const std::string long_url(300, 'x');  // needs a two-byte varint length
  const std::string binary_payload("\0\x01\xff", 3);
  segment.Append("https://a.example/", "");
  segment.Append("", "p");
  segment.Append(long_url, binary_payload);
  EXPECT_EQ(segment.Remaining(), 3u);
  SieveEntry first = segment.PopFront();
  EXPECT_EQ(first.url, "https://a.example/");
  EXPECT_EQ(first.payload, "");
  SieveEntry second = segment.PopFront();
  EXPECT_EQ(second.url, "");
  EXPECT_EQ(second.payload, "p");
  SieveEntry third = segment.PopFront();
  EXPECT_EQ(third.url, long_url);
  EXPECT_EQ(third.payload, binary_payload);
  EXPECT_TRUE(segment.Empty());
}

TEST(SegmentTest, FromBytesRoundTripsAndSkipsNothing) {
  Segment written;
  for (int i = 0; i < 100; ++i) {
    written.Append(std::string(i, 'a' + i % 26), std::string(i % 7, 'p'));
  }
  absl::StatusOr<Segment> read = Segment::FromBytes(written.Bytes(), 100);
  ASSERT_TRUE(read.ok()) << read.status();
  for (int i = 0; i < 100; ++i) {
    SieveEntry entry = read->PopFront();
    EXPECT_EQ(entry.url, std::string(i, 'a' + i % 26));
    EXPECT_EQ(entry.payload, std::string(i % 7, 'p'));
  }
}

TEST(SegmentTest, FromBytesRejectsTruncationAndWrongCounts) {
  Segment written;
  written.Append("https://a.example/one", "depth=1");
  written.Append("https://a.example/two", "");
  const std::string bytes = written.Bytes();
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(Segment::FromBytes(bytes.substr(0, cut), 2).ok()) << "cut at " << cut;
  }
  EXPECT_FALSE(Segment::FromBytes(bytes, 1).ok());  // trailing bytes
  EXPECT_FALSE(Segment::FromBytes(bytes, 3).ok());  // missing record
}

TEST(SegmentTest, ForEachRemainingSeesOnlyUnpoppedRecords) {
  Segment segment;
  segment.Append("a", "1");
  segment.Append("b", "2");
  segment.Append("c", "3");
  segment.PopFront();
  std::string seen;
  ASSERT_TRUE(segment
                  .ForEachRemaining([&](std::string_view url, std::string_view payload) {
                    seen.append(url);
                    seen.append(payload);
                    return absl::OkStatus();
                  })
                  .ok());
  EXPECT_EQ(seen, "b2c3");
}

TEST(VarintTest, RoundTripsBoundaryValuesAndRejectsOverlong) {
  for (uint64_t value :
       {uint64_t{0}, uint64_t{127}, uint64_t{128}, uint64_t{1} << 35, ~uint64_t{0}}) {
    std::string bytes;
    AppendVarint(bytes, value);
    size_t pos = 0;
    uint64_t decoded = 0;
    ASSERT_TRUE(ParseVarint(bytes, pos, decoded));
    EXPECT_EQ(decoded, value);
    EXPECT_EQ(pos, bytes.size());
  }
  const std::string overlong(11, '\x80');
  size_t pos = 0;
  uint64_t decoded = 0;
  EXPECT_FALSE(ParseVarint(overlong, pos, decoded));
}

}  // namespace
}  // namespace sieve::internal
