// Rotation at max_file_size and revisit records for repeated payloads (WARC
// 1.1 section 6.7.2, profile identical-payload-digest).
#include <chrono>
#include <filesystem>
#include <map>

#include "crawler/warc.h"
#include "gtest/gtest.h"
#include "test_exchanges.h"
#include "warc_reader.h"

namespace crawler {
namespace {

using crawler_test::NumberedExchange;
using crawler_test::ParsedRecord;
using crawler_test::ReadWarcFile;

TEST(WarcRotation, FilesStayUnderTheLimitAndEachStartsWithWarcinfo) {
  WarcOptions options = crawler_test::OptionsWithPrefix(crawler_test::MakeTempDir("rot") + "/r");
  options.max_file_size = 20000;
  auto writer = WarcWriter::Create(options);
  ASSERT_TRUE(writer.ok());
  std::vector<WarcLocation> at;
  // 3000 random (incompressible) bytes per page: ~5 pages per file.
  for (int i = 0; i < 40; ++i) {
    auto location = (*writer)->Write(NumberedExchange(i, 3000));
    ASSERT_TRUE(location.ok());
    at.push_back(*location);
  }
  ASSERT_TRUE((*writer)->Close().ok());
  const WarcStats stats = (*writer)->Stats();
  EXPECT_GT(stats.files, 5u);
  std::map<std::string, std::vector<ParsedRecord>> files;
  for (uint64_t f = 0; f < stats.files; ++f) {
    char name[32];
    std::snprintf(name, sizeof name, "-%05d.warc.gz", static_cast<int>(f));
    const std::string path = options.prefix + name;
    EXPECT_LE(std::filesystem::file_size(path), options.max_file_size);
    auto records = ReadWarcFile(path);
    ASSERT_TRUE(records.ok()) << records.status();
    ASSERT_GE(records->size(), 3u);
    EXPECT_EQ((*records)[0].Field("WARC-Type"), "warcinfo");
    EXPECT_EQ((*records)[0].Field("WARC-Filename"), std::filesystem::path(path).filename());
    files[path] = *records;
  }
  EXPECT_FALSE(std::filesystem::exists(
      options.prefix + "-" + std::to_string(100000 + stats.files).substr(1) + ".warc.gz"));
  for (int i = 0; i < 40; ++i) {
    const auto& records = files[at[i].file];
    bool found = false;
    for (const ParsedRecord& r : records) {
      if (r.offset != at[i].offset) continue;
      found = true;
      EXPECT_EQ(r.Field("WARC-Type"), "response");
      EXPECT_EQ(r.Field("WARC-Target-URI"), NumberedExchange(i, 0).target_uri);
    }
    EXPECT_TRUE(found) << "page " << i;
  }
}

TEST(WarcRotation, ARecordLargerThanTheLimitGetsAFileOfItsOwn) {
  WarcOptions options = crawler_test::OptionsWithPrefix(crawler_test::MakeTempDir("big") + "/b");
  options.max_file_size = 4096;
  auto writer = WarcWriter::Create(options);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Write(NumberedExchange(1, 100)).ok());
  auto big = (*writer)->Write(NumberedExchange(2, 10000));
  ASSERT_TRUE(big.ok());
  auto after = (*writer)->Write(NumberedExchange(3, 100));
  ASSERT_TRUE(after.ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ(big->file, options.prefix + "-00001.warc.gz");
  EXPECT_EQ(after->file, options.prefix + "-00002.warc.gz");
  EXPECT_EQ(ReadWarcFile(big->file)->size(), 3u);
}

TEST(WarcRevisit, RepeatedPayloadBecomesARevisitReferringToTheFirst) {
  WarcOptions options = crawler_test::OptionsWithPrefix(crawler_test::MakeTempDir("rev") + "/v");
  auto writer = WarcWriter::Create(options);
  ASSERT_TRUE(writer.ok());
  WarcExchange first = NumberedExchange(7, 500);
  WarcExchange copy = first;
  copy.target_uri = "http://127.0.0.1:9/mirror";
  ASSERT_TRUE((*writer)->Write(first).ok());
  auto at = (*writer)->Write(copy);
  ASSERT_TRUE(at.ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ((*writer)->Stats().revisits, 1u);
  auto records = ReadWarcFile(options.prefix + "-00000.warc.gz");
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 5u);
  const ParsedRecord& original = (*records)[1];
  const ParsedRecord& revisit = (*records)[3];
  EXPECT_EQ(revisit.offset, at->offset);
  EXPECT_EQ(revisit.Field("WARC-Type"), "revisit");
  EXPECT_EQ(revisit.Field("WARC-Profile"),
            "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest");
  EXPECT_EQ(revisit.Field("WARC-Refers-To-Target-URI"), first.target_uri);
  EXPECT_EQ(revisit.Field("WARC-Refers-To-Date"), original.Field("WARC-Date"));
  EXPECT_EQ(revisit.Field("WARC-Payload-Digest"), original.Field("WARC-Payload-Digest"));
  EXPECT_EQ(revisit.Field("WARC-Target-URI"), copy.target_uri);
  EXPECT_EQ(revisit.HttpPayload(), "");  // headers only
  EXPECT_EQ(revisit.Field("WARC-Block-Digest"), crawler_test::TestSha1Base32(revisit.block));
  EXPECT_EQ((*records)[4].Field("WARC-Concurrent-To"), revisit.Field("WARC-Record-ID"));
}

// A recrawl names the previous crawl's record itself (WARC 1.1
// section 6.7.3 for the 304: profile server-not-modified).
TEST(WarcRevisit, ARecrawlsRevisitNamesThePreviousCrawlsRecordWithItsProfile) {
  WarcOptions options = crawler_test::OptionsWithPrefix(crawler_test::MakeTempDir("prev") + "/v");
  auto writer = WarcWriter::Create(options);
  ASSERT_TRUE(writer.ok());
  const auto then = std::chrono::system_clock::time_point(std::chrono::milliseconds(1700000000123));
  WarcExchange not_modified = NumberedExchange(3, 0);
  not_modified.response_headers = "HTTP/1.1 304 Not Modified\r\nETag: \"3-0\"\r\n\r\n";
  not_modified.refers_to = WarcRefersTo{WarcRevisitProfile::kServerNotModified,
                                        not_modified.target_uri, then, "sha1:PREVIOUS"};
  WarcExchange unchanged = NumberedExchange(4, 500);
  unchanged.refers_to = WarcRefersTo{WarcRevisitProfile::kIdenticalPayloadDigest,
                                     unchanged.target_uri, then, "sha1:IGNORED"};
  ASSERT_TRUE((*writer)->Write(not_modified).ok());
  ASSERT_TRUE((*writer)->Write(unchanged).ok());
  ASSERT_TRUE((*writer)->Write(NumberedExchange(4, 500)).ok());  // not an original: a response
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ((*writer)->Stats().revisits, 2u);
  auto records = ReadWarcFile(options.prefix + "-00000.warc.gz");
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 7u);
  const ParsedRecord& r304 = (*records)[1];
  EXPECT_EQ(r304.Field("WARC-Type"), "revisit");
  EXPECT_EQ(r304.Field("WARC-Profile"),
            "http://netpreserve.org/warc/1.1/revisit/server-not-modified");
  EXPECT_EQ(r304.Field("WARC-Refers-To-Target-URI"), not_modified.target_uri);
  EXPECT_EQ(r304.Field("WARC-Refers-To-Date"), "2023-11-14T22:13:20.123000Z");
  EXPECT_EQ(r304.Field("WARC-Payload-Digest"), "sha1:PREVIOUS");  // the payload still held
  const ParsedRecord& same = (*records)[3];
  EXPECT_EQ(same.Field("WARC-Type"), "revisit");
  EXPECT_EQ(same.Field("WARC-Profile"),
            "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest");
  EXPECT_EQ(same.Field("WARC-Refers-To-Date"), "2023-11-14T22:13:20.123000Z");
  EXPECT_EQ(same.Field("WARC-Payload-Digest"),
            DigestText(PayloadSha1(NumberedExchange(4, 500).body)));  // its own body's
  EXPECT_EQ(same.HttpPayload(), "");
  EXPECT_EQ((*records)[5].Field("WARC-Type"), "response");
}

TEST(WarcRevisit, EmptyAndTruncatedPayloadsAreNeverRevisits) {
  WarcOptions options = crawler_test::OptionsWithPrefix(crawler_test::MakeTempDir("rev0") + "/v");
  auto writer = WarcWriter::Create(options);
  ASSERT_TRUE(writer.ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*writer)->Write(NumberedExchange(i, 0)).ok());
  WarcExchange cut = NumberedExchange(9, 300);
  cut.truncated = true;
  for (int i = 0; i < 2; ++i) ASSERT_TRUE((*writer)->Write(cut).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ((*writer)->Stats().revisits, 0u);
  EXPECT_EQ((*writer)->Stats().responses, 5u);
}

TEST(WarcRevisit, TheTableForgetsTheOldestDigestPastItsCapacity) {
  WarcOptions options = crawler_test::OptionsWithPrefix(crawler_test::MakeTempDir("cap") + "/v");
  options.revisit_table_entries = 2;
  auto writer = WarcWriter::Create(options);
  ASSERT_TRUE(writer.ok());
  for (int i : {1, 2, 3}) ASSERT_TRUE((*writer)->Write(NumberedExchange(i, 100)).ok());
  ASSERT_TRUE((*writer)->Write(NumberedExchange(3, 100)).ok());  // remembered: revisit
  ASSERT_TRUE((*writer)->Write(NumberedExchange(1, 100)).ok());  // forgotten: response
  ASSERT_TRUE((*writer)->Close().ok());
  auto records = ReadWarcFile(options.prefix + "-00000.warc.gz");
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 11u);
  EXPECT_EQ((*records)[7].Field("WARC-Type"), "revisit");
  EXPECT_EQ((*records)[9].Field("WARC-Type"), "response");
}

TEST(WarcRevisit, ZeroCapacityTurnsRevisitsOff) {
  WarcOptions options = crawler_test::OptionsWithPrefix(crawler_test::MakeTempDir("off") + "/v");
  options.revisit_table_entries = 0;
  auto writer = WarcWriter::Create(options);
  ASSERT_TRUE(writer.ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*writer)->Write(NumberedExchange(5, 100)).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ((*writer)->Stats().revisits, 0u);
}

}  // namespace
}  // namespace crawler
