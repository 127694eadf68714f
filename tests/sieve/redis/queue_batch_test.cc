// The host queues' element format v4 (sieve/redis_module/src/queue_batch.h):
// golden bytes, written alike by the C++ encoder, the Lua push script and
// the crawlsieve module; a pop leaves the head batch's remaining entries
// under the same base; batches stay within kMaxBatchBytes; an element of
// another format is refused by name, never misread. Our own format (built to a
// memory target); a change of these bytes is a change of format and
// takes a new version.
#include "../../../sieve/redis_module/src/queue_batch.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../../../sieve/redis_module/src/batch_codec.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "redis_fixture/redis_server.h"
#include "sieve/redis/queued_urls.h"
#include "sieve/redis_sieve.h"
#include "url_origin.h"

namespace sieve {
namespace {

using crawlsieve_wire::BatchEntry;

// Three URLs of one host, the second with a two-byte payload.
const std::vector<BatchEntry> kEntries = {{"https://a.example/x/1", ""},
                                          {"https://a.example/x/2", std::string("\x01\x02", 2)},
                                          {"https://a.example/y", ""}};

// Version 4; the base "https://a.example/x/" (20 bytes: up to the first URL's
// last '/'); per entry: bytes shared with the base, the rest, the payload.
std::string GoldenHeader() { return std::string("\x04\x14") + "https://a.example/x/"; }
std::string GoldenEntry(int i) {
  switch (i) {
    case 0:
      return std::string("\x14\x01", 2) + "1" + std::string(1, '\0');
    case 1:
      return std::string("\x14\x01", 2) + "2" + std::string("\x02\x01\x02", 3);
    default:
      return std::string("\x12\x01", 2) + "y" +
             std::string(1, '\0');  // shares "https://a.example/"
  }
}
std::string GoldenBatch() {
  return GoldenHeader() + GoldenEntry(0) + GoldenEntry(1) + GoldenEntry(2);
}

TEST(QueueBatchFormat, TheEncoderWritesTheGoldenBytes) {
  std::string batch = crawlsieve_wire::NewBatch(kEntries[0].url, kEntries[0].payload);
  for (size_t i = 1; i < kEntries.size(); ++i) {
    ASSERT_TRUE(crawlsieve_wire::AppendToBatch(batch, kEntries[i].url, kEntries[i].payload));
  }
  EXPECT_EQ(batch, GoldenBatch());
  std::vector<BatchEntry> decoded;
  ASSERT_TRUE(crawlsieve_wire::DecodeBatch(batch, decoded));
  EXPECT_EQ(decoded, kEntries);
}

TEST(QueueBatchFormat, ABatchStopsGrowingAtItsByteCap) {
  std::string batch = crawlsieve_wire::NewBatch("https://a.example/p/0", "");
  size_t entries = 1;
  while (crawlsieve_wire::AppendToBatch(batch, absl::StrCat("https://a.example/p/", entries), "")) {
    ++entries;
  }
  EXPECT_LE(batch.size(), crawlsieve_wire::kMaxBatchBytes);
  EXPECT_GT(batch.size() + 8, crawlsieve_wire::kMaxBatchBytes);  // the next entry did not fit
  std::vector<BatchEntry> decoded;
  ASSERT_TRUE(crawlsieve_wire::DecodeBatch(batch, decoded));
  ASSERT_EQ(decoded.size(), entries);
  EXPECT_EQ(decoded.back().url, absl::StrCat("https://a.example/p/", entries - 1));
}

TEST(QueueBatchFormat, AnElementOfAnotherFormatIsNotDecoded) {
  std::vector<BatchEntry> decoded;
  EXPECT_FALSE(crawlsieve_wire::DecodeBatch("https://a.example/", decoded));  // a v3 element
  EXPECT_FALSE(crawlsieve_wire::DecodeBatch("", decoded));
  std::string truncated = GoldenBatch();
  truncated.pop_back();  // the last entry's payload length is missing
  EXPECT_FALSE(crawlsieve_wire::DecodeBatch(truncated, decoded));
  std::string batch = "https://a.example/";
  EXPECT_FALSE(crawlsieve_wire::AppendToBatch(batch, "https://a.example/b", ""));
}

// The packed form (batch_codec.h): 5, the v4 batch's length, its raw
// DEFLATE. Forty URLs of one host, every fifth with a one-byte payload.
std::string PackedGoldenSource() {
  std::string batch = crawlsieve_wire::NewBatch("https://a.example/docs/page-0.html", "");
  for (int i = 1; i < 40; ++i) {
    const std::string payload = i % 5 == 0 ? std::string(1, static_cast<char>(i)) : "";
    EXPECT_TRUE(crawlsieve_wire::AppendToBatch(
        batch, absl::StrCat("https://a.example/docs/page-", i, ".html"), payload));
  }
  return batch;
}

// The bytes zlib 1.2.13 (Debian 12) writes at level 6, 8 KiB window. The
// format is the inflate of these bytes, which every zlib reads; a zlib
// whose deflate writes other bytes fails the second check only: re-freeze
// them knowingly (both push paths still agree: the tests below).
constexpr char kPackedGoldenHex[] =
    "05ee0455ceb10ac24010455103daa86023041b1b6bb3662626d1bf5974498a0403d9c2cf17cc6c71cbcb2bde59"
    "e77d8cd3fc74ce17e1ebc76908eefd79cd2edf4dbe0bd75bd1c771585995284129aa42ddff956d2c6b8c0daa45"
    "3dacf6cbfda2c9b6a94bcec25466c534d32175cdb961b64cbac45cc7d474095d4297d025e63aa5a64be812ba84"
    "2e35d739355d4a97d2a574a9b92ea9e952ba942e35d70f";

TEST(QueueBatchFormat, APackedBatchIsItsV4BatchDeflatedBehindAHeader) {
  const std::string batch = PackedGoldenSource();
  const std::string packed = absl::HexStringToBytes(kPackedGoldenHex);
  std::string unpacked;
  ASSERT_TRUE(crawlsieve_wire::UnpackElement(packed, unpacked));
  EXPECT_EQ(unpacked, batch);
  EXPECT_EQ(absl::BytesToHexString(crawlsieve_wire::PackBatch(batch)), kPackedGoldenHex);
  ASSERT_GE(packed.size(), 3u);
  EXPECT_EQ(packed[0], 5);
  size_t pos = 1;
  uint64_t length = 0;
  ASSERT_TRUE(crawlsieve_wire::ReadVarint(packed, pos, length));
  EXPECT_EQ(length, batch.size());
  EXPECT_LT(packed.size() * 2, batch.size());  // deflate halves it at least
}

TEST(QueueBatchFormat, ABatchDeflateWouldNotShortenIsStoredAsItIs) {
  EXPECT_EQ(crawlsieve_wire::PackBatch(GoldenBatch()), GoldenBatch());
  std::string element;
  EXPECT_TRUE(crawlsieve_wire::BatchOfElement(GoldenBatch(), element));
  EXPECT_EQ(element, GoldenBatch());
}

TEST(QueueBatchFormat, ADamagedPackedElementIsNotUnpacked) {
  const std::string packed = crawlsieve_wire::PackBatch(PackedGoldenSource());
  std::string batch;
  EXPECT_FALSE(crawlsieve_wire::UnpackElement(GoldenBatch(), batch));  // v4, not packed
  EXPECT_FALSE(crawlsieve_wire::UnpackElement(packed.substr(0, packed.size() - 1), batch));
  std::string longer = packed;
  longer[1] = static_cast<char>(longer[1] - 1);  // one byte less than the stream holds
  EXPECT_FALSE(crawlsieve_wire::UnpackElement(longer, batch));
  std::string flipped = packed;
  flipped[packed.size() / 2] ^= 0x55;
  std::string out;
  EXPECT_FALSE(crawlsieve_wire::UnpackElement(flipped, out) && out == PackedGoldenSource());
}

// Through Redis, on both push paths (false: Lua, true: the module), on a
// frontier of plain v4 batches (pack_queue_batches false; the server has
// the module).
class QueueBatchTest : public testing::TestWithParam<bool> {
 protected:
  void SetUp() override { ASSERT_TRUE(redis_.Start().ok()); }

  std::unique_ptr<RedisSieve> Connect(const std::string& name, bool packed = false) {
    RedisSieveOptions options = redis_.Options(name);
    options.pack_queue_batches = packed;
    options.use_push_module = GetParam();
    options.host_key = sieve_test::HostOf;
    options.pop_batch_size = 1;
    absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
    EXPECT_TRUE(sieve.ok()) << sieve.status();
    if (!sieve.ok()) return nullptr;
    EXPECT_EQ((*sieve)->uses_push_module(), GetParam());
    EXPECT_EQ((*sieve)->packs_queue_batches(), packed);
    return *std::move(sieve);
  }

  sieve_test::RedisServer redis_{/*with_module=*/true};
};

TEST_P(QueueBatchTest, PushesWriteTheGoldenBatchAndPopsTakeFromItsHead) {
  auto sieve = Connect("golden");
  ASSERT_TRUE(sieve);
  // Two push calls: the second appends to the batch the first wrote.
  ASSERT_TRUE(sieve->Push(kEntries[0].url, kEntries[0].payload));
  std::vector<std::string_view> urls = {kEntries[1].url, kEntries[2].url};
  std::vector<std::string_view> payloads = {kEntries[1].payload, kEntries[2].payload};
  ASSERT_EQ(sieve->PushBatch(urls, payloads, {}), 2u);
  const std::string key = "golden:q:https://a.example";
  EXPECT_EQ(redis_.ListElements(key), std::vector<std::string>{GoldenBatch()});
  EXPECT_EQ(redis_.Command({"GET", "golden:queued"}), "3");

  std::optional<SieveEntry> first = sieve->TryPopEntry();  // leases one URL
  ASSERT_TRUE(first);
  EXPECT_EQ(first->url, kEntries[0].url);
  // The rest keeps the base; the first entry is gone.
  EXPECT_EQ(redis_.ListElements(key),
            std::vector<std::string>{GoldenHeader() + GoldenEntry(1) + GoldenEntry(2)});
  EXPECT_EQ(redis_.Command({"GET", "golden:queued"}), "2");
  for (size_t i = 1; i < kEntries.size(); ++i) {
    std::optional<SieveEntry> entry = sieve->TryPopEntry();
    ASSERT_TRUE(entry) << i;
    EXPECT_EQ(entry->url, kEntries[i].url);
    EXPECT_EQ(entry->payload, kEntries[i].payload);
    EXPECT_TRUE(sieve->MarkDone(entry->url));
  }
  EXPECT_EQ(redis_.Command({"EXISTS", key}), "0");  // the last pop dropped the batch
  // Deferred: back at the tail as a batch of its own, payload and all.
  EXPECT_TRUE(sieve->Defer(first->url));
  EXPECT_EQ(redis_.ListElements(key),
            std::vector<std::string>{crawlsieve_wire::NewBatch(kEntries[0].url, "")});
  std::optional<SieveEntry> again = sieve->TryPopEntry();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->url, kEntries[0].url);
  EXPECT_TRUE(sieve->MarkDone(again->url));
  EXPECT_TRUE(sieve->IsFinished());
}

TEST_P(QueueBatchTest, OneHostsUrlsFillBatchesInOrderUpToTheCap) {
  auto sieve = Connect("cap");
  ASSERT_TRUE(sieve);
  std::vector<std::string> urls;
  for (int i = 0; i < 400; ++i) urls.push_back(absl::StrCat("https://b.example/dir/page-", i));
  for (size_t i = 0; i < urls.size(); i += 64) {  // several calls: appends across calls
    std::vector<std::string_view> part(urls.begin() + i,
                                       urls.begin() + std::min(urls.size(), i + 64));
    ASSERT_EQ(sieve->PushBatch(part), part.size());
  }
  const std::vector<std::string> batches = redis_.ListElements("cap:q:https://b.example");
  ASSERT_GE(batches.size(), 2u);
  for (const std::string& batch : batches) {
    EXPECT_LE(batch.size(), crawlsieve_wire::kMaxBatchBytes);
  }
  EXPECT_EQ(sieve_test::QueuedUrls(redis_, "cap:q:https://b.example"), urls);
  // Bytes per URL in the list: the host is said once per batch.
  size_t bytes = 0;
  for (const std::string& batch : batches) bytes += batch.size();
  EXPECT_LT(bytes, urls.size() * 12);  // "https://b.example/dir/page-N" is 28-30 bytes
}

TEST_P(QueueBatchTest, AQueueElementOfAnotherFormatIsRefusedNamingTheKey) {
  auto sieve = Connect("foreign");
  ASSERT_TRUE(sieve);
  // A v3 element (a bare URL) where a v4 batch is expected.
  redis_.Command({"RPUSH", "foreign:q:https://c.example", "https://c.example/old"});
  EXPECT_FALSE(sieve->Push("https://c.example/new"));
  const absl::Status health = sieve->Health();
  EXPECT_FALSE(health.ok());
  EXPECT_NE(health.message().find("not of format v4"), std::string::npos) << health;
  if (!GetParam()) {  // the script names the key; the module's reply says NAME:q:HOST
    EXPECT_NE(health.message().find("foreign:q:https://c.example"), std::string::npos) << health;
  }
  EXPECT_EQ(redis_.ListElements("foreign:q:https://c.example"),
            std::vector<std::string>{"https://c.example/old"});  // nothing written
}

// A packed frontier (the default where the server has the module): each
// batch is stored as PackBatch writes it, on both push paths alike; the
// tail is unpacked, grown and packed again on append; a pop writes the head
// batch's rest back unpacked; the cap is kMaxPackedBatchBytes before
// deflate.
TEST_P(QueueBatchTest, APackedFrontierStoresThePackedGoldenBatchAndPopsFromIt) {
  auto sieve = Connect("packed", /*packed=*/true);
  ASSERT_TRUE(sieve);
  EXPECT_EQ(redis_.Command({"GET", "packed:meta"}).substr(0, 3), "v4 ");
  std::vector<std::string> urls;
  std::vector<std::string> payloads;
  std::vector<BatchEntry> entries;
  ASSERT_TRUE(crawlsieve_wire::DecodeBatch(PackedGoldenSource(), entries));
  for (const BatchEntry& e : entries) {
    urls.push_back(e.url);
    payloads.push_back(e.payload);
  }
  // Three calls: the second and third unpack the tail, append, pack.
  for (auto [first, last] : {std::pair{0, 1}, std::pair{1, 25}, std::pair{25, 40}}) {
    std::vector<std::string_view> u(urls.begin() + first, urls.begin() + last);
    std::vector<std::string_view> p(payloads.begin() + first, payloads.begin() + last);
    ASSERT_EQ(sieve->PushBatch(u, p, {}), u.size());
  }
  const std::string key = "packed:q:https://a.example";
  EXPECT_EQ(redis_.ListElements(key),
            std::vector<std::string>{absl::HexStringToBytes(kPackedGoldenHex)});
  std::optional<SieveEntry> first = sieve->TryPopEntry();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->url, urls[0]);
  // The rest, unpacked: the base, then entries 1..39.
  std::string rest = crawlsieve_wire::NewBatch(urls[1], payloads[1]);
  for (size_t i = 2; i < urls.size(); ++i) {
    ASSERT_TRUE(crawlsieve_wire::AppendToBatch(rest, urls[i], payloads[i]));
  }
  EXPECT_EQ(redis_.ListElements(key), std::vector<std::string>{rest});
  // An append to that unpacked tail packs it again.
  ASSERT_TRUE(sieve->Push("https://a.example/docs/page-40.html"));
  ASSERT_TRUE(crawlsieve_wire::AppendToBatch(rest, "https://a.example/docs/page-40.html", ""));
  EXPECT_EQ(redis_.ListElements(key), std::vector<std::string>{crawlsieve_wire::PackBatch(rest)});
  for (size_t i = 1; i <= urls.size(); ++i) {
    std::optional<SieveEntry> entry = sieve->TryPopEntry();
    ASSERT_TRUE(entry) << i;
    EXPECT_EQ(entry->url, i < urls.size() ? urls[i] : "https://a.example/docs/page-40.html");
    if (i < urls.size()) {
      EXPECT_EQ(entry->payload, payloads[i]);
    }
    EXPECT_TRUE(sieve->MarkDone(entry->url));
  }
  EXPECT_EQ(redis_.Command({"EXISTS", key}), "0");
}

TEST_P(QueueBatchTest, APackedFrontiersBatchesGrowToThePackedCap) {
  auto sieve = Connect("packedcap", /*packed=*/true);
  ASSERT_TRUE(sieve);
  std::vector<std::string> urls;
  for (int i = 0; i < 600; ++i) urls.push_back(absl::StrCat("https://b.example/dir/page-", i));
  for (size_t i = 0; i < urls.size(); i += 64) {
    std::vector<std::string_view> part(urls.begin() + i,
                                       urls.begin() + std::min(urls.size(), i + 64));
    ASSERT_EQ(sieve->PushBatch(part), part.size());
  }
  const std::vector<std::string> elements = redis_.ListElements("packedcap:q:https://b.example");
  ASSERT_GE(elements.size(), 2u);
  size_t bytes = 0;
  for (size_t i = 0; i < elements.size(); ++i) {
    std::string batch;
    ASSERT_TRUE(crawlsieve_wire::UnpackElement(elements[i], batch)) << i;
    EXPECT_LE(batch.size(), crawlsieve_wire::kMaxPackedBatchBytes);
    if (i + 1 < elements.size()) {
      EXPECT_GT(batch.size() + 8, crawlsieve_wire::kMaxPackedBatchBytes);  // the next did not fit
    }
    bytes += elements[i].size();
  }
  EXPECT_EQ(sieve_test::QueuedUrls(redis_, "packedcap:q:https://b.example"), urls);
  EXPECT_LT(bytes, urls.size() * 6);  // v4 alone: ~11 bytes a URL (the test above)
}

INSTANTIATE_TEST_SUITE_P(BothPushPaths, QueueBatchTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return info.param ? "Module" : "Lua";
                         });

}  // namespace
}  // namespace sieve
