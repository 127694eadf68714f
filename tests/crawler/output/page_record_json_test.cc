// PageRecordToJson writes plain records directly, others through nlohmann's
// tree: both must give the same bytes, and a record the direct writer cannot
// take must still come out as valid JSON.
#include "../../../crawler/src/output/page_record_json.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "absl/time/time.h"
#include "crawler/output.h"
#include "nlohmann/json.hpp"

namespace crawler {
namespace {

// Strings from an alphabet with every kind of byte the direct writer must
// either copy or refuse: plain ASCII, '"', '\', controls, DEL, UTF-8 and a
// stray continuation byte.
std::string RandomString(std::mt19937_64& rng, bool plain) {
  static const char* const kPlain[] = {"a", "Z", "9", "/", ":", "?", "=", "&", "%20", " ", "~"};
  static const char* const kOdd[] = {"\"", "\\", "\n", "\t", "\x01", "\x7f", "\xc3\xa9", "\x80"};
  std::string s;
  const int length = static_cast<int>(rng() % 12);
  for (int i = 0; i < length; ++i) {
    if (!plain && rng() % 4 == 0) {
      s += kOdd[rng() % std::size(kOdd)];
    } else {
      s += kPlain[rng() % std::size(kPlain)];
    }
  }
  return s;
}

PageRecord RandomRecord(std::mt19937_64& rng) {
  const bool plain = rng() % 3 != 0;
  PageRecord r;
  r.url = "http://a.test/" + RandomString(rng, plain);
  if (rng() % 2) r.final_url = "http://b.test/" + RandomString(rng, plain);
  r.status = static_cast<int>(rng() % 600);
  r.content_type = RandomString(rng, plain);
  r.bytes = static_cast<int64_t>(rng() % 100'000'000);
  r.depth = static_cast<int>(rng() % 50);
  r.parent = RandomString(rng, plain);
  r.fetched_at = absl::FromUnixMicros(static_cast<int64_t>(rng() % 4'000'000'000'000'000));
  static const double kMs[] = {0, 0.0004, 0.001, 0.591, 4.2, 12, 999.999, 1000, 65535.5, 1e9};
  r.fetch_ms =
      rng() % 2 ? kMs[rng() % std::size(kMs)] : static_cast<double>(rng() % 100'000'000) / 997.0;
  r.links_found = static_cast<int>(rng() % 5000);
  r.links_new = static_cast<int>(rng() % 5000);
  if (rng() % 4 == 0) r.redirect_to = RandomString(rng, plain);
  if (rng() % 3 == 0) r.error = "timeout: " + RandomString(rng, plain);
  r.attempts = static_cast<int>(1 + rng() % 5);
  r.truncated = rng() % 5 == 0;
  r.parsed_bytes = static_cast<int64_t>(rng() % 10'000'000);
  r.truncated_reason = rng() % 2 ? "max_body" : "";
  if (rng() % 3 == 0) {
    r.etag = rng() % 2 ? "\"v" + RandomString(rng, plain) + "\"" : "W/\"x\"";
    r.last_modified = "Sat, 01 Feb 2020 00:00:00 GMT";
    r.digest = "sha1:" + RandomString(rng, plain);
  }
  if (rng() % 5 == 0) {
    r.warc_file = "crawl-00001.warc.gz";
    r.warc_offset = rng();
  }
  return r;
}

TEST(PageRecordJson, TheDirectWriterGivesTheTreesBytesOrDeclines) {
  std::mt19937_64 rng(21);
  int direct = 0;
  for (int i = 0; i < 20000; ++i) {
    const PageRecord r = RandomRecord(rng);
    const std::string tree = output_internal::PageRecordToJsonViaTree(r);
    const std::optional<std::string> fast = output_internal::PageRecordToJsonDirect(r);
    if (fast) {
      ++direct;
      ASSERT_EQ(*fast, tree) << "record " << i;
    }
    EXPECT_EQ(PageRecordToJson(r), fast ? *fast : tree);
  }
  EXPECT_GT(direct, 5000);   // the plain records took the direct path
  EXPECT_LT(direct, 19000);  // and the odd ones did not
}

// The README says `status` is null when no response
// arrived; it was 0, which is no HTTP status.
TEST(PageRecordJson, NoResponseWritesStatusNull) {
  PageRecord r;
  r.url = "http://a.test/";
  r.error = "connect";
  for (const std::string& line :
       {output_internal::PageRecordToJsonViaTree(r), *output_internal::PageRecordToJsonDirect(r)}) {
    EXPECT_TRUE(nlohmann::json::parse(line)["status"].is_null()) << line;
  }
  r.status = 503;
  EXPECT_EQ(nlohmann::json::parse(PageRecordToJson(r))["status"], 503);
}

TEST(PageRecordJson, RecordsWithOddBytesStayValidJson) {
  PageRecord r;
  r.url = "http://a.test/\"quoted\"\\\n\x01\xc3\xa9\x80";
  r.fetch_ms = -1;
  EXPECT_FALSE(output_internal::PageRecordToJsonDirect(r).has_value());
  const nlohmann::json parsed = nlohmann::json::parse(PageRecordToJson(r));
  EXPECT_EQ(parsed["url"], "http://a.test/\"quoted\"\\\n\x01\xc3\xa9\xef\xbf\xbd");
}

// The validators a recrawl sends back. An ETag's quotes are
// escaped by the direct writer, not a reason to take the tree's path.
TEST(PageRecordJson, ValidatorsAreWrittenWhenPresent) {
  PageRecord r;
  r.url = "http://a.test/";
  r.status = 200;
  r.etag = "W/\"7-2\"";
  r.last_modified = "Wed, 01 Jan 2020 00:00:00 GMT";
  r.digest = "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ";
  const std::optional<std::string> direct = output_internal::PageRecordToJsonDirect(r);
  ASSERT_TRUE(direct.has_value());
  const nlohmann::json parsed = nlohmann::json::parse(*direct);
  EXPECT_EQ(parsed["etag"], "W/\"7-2\"");
  EXPECT_EQ(parsed["last_modified"], "Wed, 01 Jan 2020 00:00:00 GMT");
  EXPECT_EQ(parsed["digest"], "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
  r.etag.clear();
  r.last_modified.clear();
  r.digest.clear();
  const nlohmann::json bare = nlohmann::json::parse(PageRecordToJson(r));
  EXPECT_FALSE(bare.contains("etag"));
  EXPECT_FALSE(bare.contains("digest"));
}

}  // namespace
}  // namespace crawler
