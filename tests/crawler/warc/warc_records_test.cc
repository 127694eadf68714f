// The structure of the records, read back with the test's own zlib reader:
// WARC 1.1 (ISO 28500) fields, digests recomputed, the payload rewrite rules
// documented in crawler/warc.h, truncation, and the offsets Write returns.
#include <chrono>
#include <set>

#include "crawler/warc.h"
#include "gtest/gtest.h"
#include "warc_reader.h"

namespace crawler {
namespace {

using crawler_test::ParsedRecord;
using crawler_test::ReadWarcFile;
using crawler_test::TestSha1Base32;

const std::chrono::system_clock::time_point kDate =
    std::chrono::system_clock::from_time_t(1700000000) + std::chrono::microseconds(123456);

WarcExchange PlainExchange() {
  WarcExchange e;
  e.target_uri = "http://127.0.0.1:8080/page";
  e.request_headers = "GET /page HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: crawl\r\n";
  e.response_headers = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 11\r\n\r\n";
  e.body = "hello world";
  e.remote_ip = "127.0.0.1";
  e.date = kDate;
  return e;
}

std::vector<ParsedRecord> WriteAndRead(const std::vector<WarcExchange>& exchanges,
                                       std::vector<WarcLocation>* locations = nullptr,
                                       WarcOptions options = {}) {
  options.prefix = crawler_test::MakeTempDir("records") + "/crawl";
  options.warcinfo_fields = "max-depth: 3\nseeds: seeds.txt\n";
  auto writer = WarcWriter::Create(options);
  EXPECT_TRUE(writer.ok()) << writer.status();
  for (const WarcExchange& e : exchanges) {
    auto at = (*writer)->Write(e);
    EXPECT_TRUE(at.ok()) << at.status();
    if (locations && at.ok()) locations->push_back(*at);
  }
  EXPECT_TRUE((*writer)->Close().ok());
  auto records = ReadWarcFile(options.prefix + "-00000.warc.gz");
  EXPECT_TRUE(records.ok()) << records.status();
  return records.ok() ? *records : std::vector<ParsedRecord>{};
}

TEST(WarcRecords, WarcinfoComesFirstWithSoftwareAndOptions) {
  const auto records = WriteAndRead({PlainExchange()});
  ASSERT_EQ(records.size(), 3u);
  const ParsedRecord& info = records[0];
  EXPECT_EQ(info.offset, 0u);
  EXPECT_EQ(info.version, "WARC/1.1");
  EXPECT_EQ(info.Field("WARC-Type"), "warcinfo");
  EXPECT_EQ(info.Field("WARC-Filename"), "crawl-00000.warc.gz");
  EXPECT_EQ(info.Field("Content-Type"), "application/warc-fields");
  EXPECT_NE(info.block.find("software: crawl/" CRAWL_VERSION "\r\n"), std::string::npos);
  EXPECT_NE(info.block.find("format: WARC File Format 1.1\r\n"), std::string::npos);
  EXPECT_NE(info.block.find("max-depth: 3\r\nseeds: seeds.txt\r\n"), std::string::npos);
  EXPECT_EQ(info.Field("WARC-Block-Digest"), TestSha1Base32(info.block));
}

TEST(WarcRecords, RequestAndResponseCarryTheRequiredFields) {
  std::vector<WarcLocation> at;
  const auto records = WriteAndRead({PlainExchange()}, &at);
  ASSERT_EQ(records.size(), 3u);
  const ParsedRecord& response = records[1];
  const ParsedRecord& request = records[2];
  EXPECT_EQ(request.Field("WARC-Type"), "request");
  EXPECT_EQ(response.Field("WARC-Type"), "response");
  // <urn:uuid:8-4-4-4-12 hex>, version 4, RFC 4122 variant.
  const auto is_uuid_v4 = [](const std::string& id) {
    const std::string hex = "0123456789abcdef";
    if (id.size() != 47 || id.rfind("<urn:uuid:", 0) != 0 || id.back() != '>') return false;
    for (size_t k = 10; k < 46; ++k) {
      const bool dash = k == 18 || k == 23 || k == 28 || k == 33;
      if (dash ? id[k] != '-' : hex.find(id[k]) == std::string::npos) return false;
    }
    return id[24] == '4' && std::string("89ab").find(id[29]) != std::string::npos;
  };
  EXPECT_TRUE(is_uuid_v4(request.Field("WARC-Record-ID"))) << request.Field("WARC-Record-ID");
  EXPECT_TRUE(is_uuid_v4(response.Field("WARC-Record-ID")));
  EXPECT_NE(request.Field("WARC-Record-ID"), response.Field("WARC-Record-ID"));
  EXPECT_EQ(request.Field("WARC-Concurrent-To"), response.Field("WARC-Record-ID"));
  for (const ParsedRecord* r : {&request, &response}) {
    EXPECT_EQ(r->version, "WARC/1.1");
    EXPECT_EQ(r->Field("WARC-Date"), "2023-11-14T22:13:20.123456Z");
    EXPECT_EQ(r->Field("WARC-Target-URI"), "http://127.0.0.1:8080/page");
    EXPECT_EQ(r->Field("WARC-IP-Address"), "127.0.0.1");
    EXPECT_EQ(r->Field("WARC-Block-Digest"), TestSha1Base32(r->block));
  }
  EXPECT_EQ(request.Field("Content-Type"), "application/http;msgtype=request");
  EXPECT_EQ(request.block,
            "GET /page HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: crawl\r\n\r\n");
  EXPECT_EQ(response.Field("Content-Type"), "application/http;msgtype=response");
  EXPECT_EQ(response.HttpPayload(), "hello world");
  EXPECT_EQ(response.Field("WARC-Payload-Digest"), TestSha1Base32("hello world"));
  EXPECT_EQ(response.HttpHeaders(),
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 11\r\n\r\n");
  EXPECT_FALSE(response.Has("WARC-Truncated"));
  ASSERT_EQ(at.size(), 1u);
  EXPECT_EQ(at[0].offset, response.offset);
}

TEST(WarcRecords, DecodedBodyGetsHeadersTrueOfIt) {
  WarcExchange e = PlainExchange();
  e.response_headers =
      "HTTP/1.1 200 OK\nContent-Encoding: gzip\nTransfer-Encoding: chunked\n"
      "Content-Length: 4\nContent-Type: text/html\n";
  const auto records = WriteAndRead({e});
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1].HttpHeaders(),
            "HTTP/1.1 200 OK\r\nX-Crawl-Original-Content-Encoding: gzip\r\n"
            "X-Crawl-Original-Transfer-Encoding: chunked\r\n"
            "X-Crawl-Original-Content-Length: 4\r\nContent-Type: text/html\r\n"
            "Content-Length: 11\r\n\r\n");
}

TEST(WarcRecords, RawBodyKeepsItsContentEncoding) {
  WarcExchange e = PlainExchange();
  e.content_decoded = false;
  e.response_headers = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 11\r\n\r\n";
  const auto records = WriteAndRead({e});
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1].HttpHeaders(),
            "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 11\r\n\r\n");
}

TEST(WarcRecords, TruncatedBodyIsFlagged) {
  WarcExchange e = PlainExchange();
  e.truncated = true;
  e.response_headers = "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n";
  const auto records = WriteAndRead({e});
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1].Field("WARC-Truncated"), "length");
  EXPECT_EQ(records[1].HttpPayload(), "hello world");
  EXPECT_EQ(records[1].HttpHeaders(),
            "HTTP/1.1 200 OK\r\nX-Crawl-Original-Content-Length: 5000\r\nContent-Length: "
            "11\r\n\r\n");
  EXPECT_FALSE(records[2].Has("WARC-Truncated"));
}

TEST(WarcRecords, BinaryBodiesAndManyExchangesRoundTrip) {
  std::vector<WarcExchange> exchanges;
  for (int i = 0; i < 50; ++i) {
    WarcExchange e = PlainExchange();
    e.target_uri = "http://127.0.0.1:8080/p" + std::to_string(i);
    e.body.clear();
    for (int j = 0; j < 1000 + i * 37; ++j)
      e.body.push_back(static_cast<char>((i * 131 + j * 7) & 0xff));
    e.remote_ip.clear();
    exchanges.push_back(e);
  }
  std::vector<WarcLocation> at;
  const auto records = WriteAndRead(exchanges, &at);
  ASSERT_EQ(records.size(), 101u);
  std::set<std::string> ids;
  for (const ParsedRecord& r : records) ids.insert(r.Field("WARC-Record-ID"));
  EXPECT_EQ(ids.size(), records.size());
  for (int i = 0; i < 50; ++i) {
    const ParsedRecord& response = records[1 + 2 * i];
    EXPECT_EQ(response.offset, at[i].offset);
    EXPECT_EQ(response.HttpPayload(), exchanges[i].body);
    EXPECT_EQ(response.Field("WARC-Payload-Digest"), TestSha1Base32(exchanges[i].body));
    EXPECT_EQ(response.Field("WARC-Block-Digest"), TestSha1Base32(response.block));
    EXPECT_FALSE(response.Has("WARC-IP-Address"));
  }
}

WarcOptions OptionsAt(const std::string& prefix) {
  WarcOptions options;
  options.prefix = prefix;
  return options;
}

TEST(WarcRecords, CreateRejectsBadOptions) {
  EXPECT_FALSE(WarcWriter::Create(OptionsAt("")).ok());
  EXPECT_FALSE(WarcWriter::Create(OptionsAt("/nonexistent-folder-xyz/crawl")).ok());
  const std::string prefix = crawler_test::MakeTempDir("bad") + "/c";
  WarcOptions options = OptionsAt(prefix);
  options.max_file_size = 10;
  EXPECT_FALSE(WarcWriter::Create(options).ok());
  options = OptionsAt(prefix);
  options.queue_limit_bytes = 0;
  EXPECT_FALSE(WarcWriter::Create(options).ok());
  options = OptionsAt(prefix);
  options.compression_level = 0;
  EXPECT_FALSE(WarcWriter::Create(options).ok());
  EXPECT_TRUE(WarcWriter::Create(OptionsAt(prefix)).ok());
}

TEST(WarcRecords, NeverOverwritesAnExistingFileAndRefusesWritesAfterClose) {
  const std::string prefix = crawler_test::MakeTempDir("nooverwrite") + "/c";
  for (int run = 0; run < 2; ++run) {
    auto writer = WarcWriter::Create(OptionsAt(prefix));
    ASSERT_TRUE(writer.ok());
    auto at = (*writer)->Write(PlainExchange());
    ASSERT_TRUE(at.ok());
    EXPECT_EQ(at->file, prefix + (run == 0 ? "-00000.warc.gz" : "-00001.warc.gz"));
    ASSERT_TRUE((*writer)->Close().ok());
    EXPECT_FALSE((*writer)->Write(PlainExchange()).ok());
  }
  EXPECT_EQ(ReadWarcFile(prefix + "-00000.warc.gz")->size(), 3u);
  EXPECT_EQ(ReadWarcFile(prefix + "-00001.warc.gz")->size(), 3u);
}

}  // namespace
}  // namespace crawler
