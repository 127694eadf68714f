// UrlPayload: the Frontier's per-URL bytes in the Sieve. Round trips, the
// frozen bytes of version 1, and every kind of malformed input refused (a
// payload read back from a damaged spill file must not crash the crawl).
#include "../../../crawler/src/frontier/url_payload.h"

#include <optional>
#include <string>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "sieve/sieve.h"

namespace crawler {
namespace {

TEST(UrlPayload, RoundTrips) {
  for (const int depth : {0, 1, 127, 128, 300, 1 << 20, 2147483647}) {
    for (const int hops : {0, 5, 200}) {
      for (const std::string& parent :
           {std::string(), std::string("http://a/"), std::string(5000, 'p')}) {
        const std::string bytes = EncodeUrlPayload(depth, hops, parent);
        absl::StatusOr<UrlPayload> back = DecodeUrlPayload(bytes);
        ASSERT_TRUE(back.ok()) << back.status();
        EXPECT_EQ(back->depth, depth);
        EXPECT_EQ(back->redirect_hops, hops);
        EXPECT_EQ(back->parent, parent);
      }
    }
  }
}

// Golden: a change of these bytes is a change of format (new version byte).
TEST(UrlPayload, VersionOneBytesAreFrozen) {
  EXPECT_EQ(EncodeUrlPayload(3, 1, "http://a/"), std::string("\x01\x03\x01\x09http://a/", 13));
  EXPECT_EQ(EncodeUrlPayload(300, 0, ""), std::string("\x01\xac\x02\x00\x00", 5));
  EXPECT_EQ(EncodeUrlPayload(-4, -1, ""), std::string("\x01\x00\x00\x00", 4));  // clamped
}

TEST(UrlPayload, EmptyBytesAreDepthZeroWithoutParent) {
  absl::StatusOr<UrlPayload> empty = DecodeUrlPayload("");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->depth, 0);
  EXPECT_EQ(empty->redirect_hops, 0);
  EXPECT_EQ(empty->parent, "");
}

TEST(UrlPayload, MalformedBytesAreRefused) {
  const std::string cases[] = {
      std::string("\x03\x00\x00\x00", 4),                      // unknown version
      std::string("\x02\x00\x00\x00", 4),                      // version 2 without its fields
      std::string("\x01", 1),                                  // no depth
      std::string("\x01\x80", 2),                              // truncated varint
      std::string("\x01\x80\x80\x80\x80\x80\x01\x00\x00", 9),  // varint over 5 bytes
      std::string("\x01\xff\xff\xff\xff\x0f\x00\x00", 8),      // depth 2^32-1 > INT_MAX
      std::string("\x01\x00\x00", 3),                          // no parent length
      std::string("\x01\x00\x00\x05http", 8),                  // parent shorter than its length
      std::string("\x01\x00\x00\x02httpx", 9),                 // trailing bytes
      std::string("\x01\x00\x00\x81\x80\x01", 6),              // parent length over the Sieve's max
  };
  for (const std::string& bytes : cases) {
    absl::StatusOr<UrlPayload> got = DecodeUrlPayload(bytes);
    EXPECT_FALSE(got.ok()) << testing::PrintToString(bytes);
    if (!got.ok()) {
      EXPECT_TRUE(absl::IsInvalidArgument(got.status()));
    }
  }
}

PreviousFetch SomePrevious() {
  PreviousFetch previous;
  previous.fetched_at = absl::FromUnixMillis(1'600'000'000'123);
  previous.revisit_s = 7200;
  previous.status = 200;
  previous.bytes = 5343;
  previous.etag = "\"0-1\"";
  previous.last_modified = "Wed, 01 Jan 2020 00:00:00 GMT";
  previous.digest = "sha1:BUGTOIO46UAVQIJNMC76QLOLJBPFRGBW";
  return previous;
}

TEST(UrlPayload, VersionTwoRoundTripsThePreviousFetch) {
  const UrlPayload payload{2, 1, "http://a/", SomePrevious()};
  absl::StatusOr<UrlPayload> back = DecodeUrlPayload(EncodeUrlPayload(payload));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->depth, 2);
  EXPECT_EQ(back->redirect_hops, 1);
  EXPECT_EQ(back->parent, "http://a/");
  ASSERT_TRUE(back->previous.has_value());
  EXPECT_EQ(back->previous->fetched_at, SomePrevious().fetched_at);
  EXPECT_EQ(back->previous->revisit_s, 7200);
  EXPECT_EQ(back->previous->status, 200);
  EXPECT_EQ(back->previous->bytes, 5343);
  EXPECT_EQ(back->previous->etag, "\"0-1\"");
  EXPECT_EQ(back->previous->last_modified, "Wed, 01 Jan 2020 00:00:00 GMT");
  EXPECT_EQ(back->previous->digest, SomePrevious().digest);
  // Without a previous fetch the payload stays version 1, byte for byte.
  EXPECT_EQ(EncodeUrlPayload(UrlPayload{3, 1, "http://a/", std::nullopt}),
            EncodeUrlPayload(3, 1, "http://a/"));
  EXPECT_FALSE(DecodeUrlPayload(EncodeUrlPayload(3, 1, "http://a/"))->previous.has_value());
}

// Golden: version 2's bytes. A change of them is a change of format.
TEST(UrlPayload, VersionTwoBytesAreFrozen) {
  PreviousFetch previous;
  previous.fetched_at = absl::FromUnixMillis(1000);  // varint e8 07
  previous.revisit_s = 3600;                         // varint 90 1c
  previous.status = 200;                             // varint c8 01
  previous.bytes = 5;
  previous.etag = "\"e\"";
  previous.last_modified = "";
  previous.digest = "sha1:X";
  EXPECT_EQ(EncodeUrlPayload(UrlPayload{1, 0, "http://a/", previous}),
            std::string("\x02\x01\x00\x09http://a/"
                        "\xe8\x07\x90\x1c\xc8\x01\x05"
                        "\x03\"e\"\x00\x06sha1:X",
                        32));
}

TEST(UrlPayload, EveryPrefixOfAVersionTwoPayloadIsRefused) {
  const std::string bytes = EncodeUrlPayload(UrlPayload{1, 0, "http://a/", SomePrevious()});
  for (size_t n = 1; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeUrlPayload(bytes.substr(0, n)).ok()) << n;
  }
  EXPECT_FALSE(DecodeUrlPayload(bytes + "x").ok());  // trailing bytes
}

TEST(UrlPayload, EveryPrefixOfAValidPayloadIsRefused) {
  const std::string bytes = EncodeUrlPayload(1000, 2, "http://example.com/page");
  for (size_t n = 1; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeUrlPayload(bytes.substr(0, n)).ok()) << n;
  }
}

}  // namespace
}  // namespace crawler
