// WarcSink::ArchiveBorrowing, the parser threads' zero-copy way to archive a
// page: it must hand the FetchResult back unchanged (the page is parsed after
// it) and archive the same bytes Archive would.
#include "../../../crawler/src/app/warc_sink.h"

#include <zlib.h>

#include <filesystem>
#include <string>

#include "gtest/gtest.h"

namespace crawler {
namespace {

std::string FreshDir(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      (name + "-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
       std::to_string(reinterpret_cast<uintptr_t>(&name)));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// The file's gzip members inflated back to back (gzread reads on across
// member boundaries).
std::string Gunzip(const std::string& path) {
  std::string text;
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return text;
  char buffer[1 << 14];
  int n = 0;
  while ((n = gzread(file, buffer, sizeof buffer)) > 0) text.append(buffer, n);
  gzclose(file);
  return text;
}

FetchResult PageResult() {
  FetchResult result;
  result.url = "http://127.0.0.1:9/p/1.html";
  result.status = 200;
  result.request_headers = "GET /p/1.html HTTP/1.1\r\nHost: 127.0.0.1:9\r\nAccept: */*\r\n\r\n";
  for (int i = 0; result.body.size() < 5000; ++i) result.body += "word " + std::to_string(i) + " ";
  result.headers = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " +
                   std::to_string(result.body.size()) + "\r\n\r\n";
  result.remote_ip = "127.0.0.1";
  return result;
}

TEST(WarcSink, ArchiveBorrowingGivesTheResultBackAndArchivesItsBytes) {
  const std::string dir = FreshDir("warc-sink-borrow");
  CrawlOptions options;
  options.warc_prefix = dir + "/crawl";
  absl::StatusOr<std::unique_ptr<WarcSink>> sink = WarcSink::Create(options);
  ASSERT_TRUE(sink.ok()) << sink.status();
  FetchResult result = PageResult();
  const FetchResult before = result;
  absl::StatusOr<std::optional<WarcLocation>> at = (*sink)->ArchiveBorrowing(&result);
  ASSERT_TRUE(at.ok()) << at.status();
  ASSERT_TRUE(at->has_value());
  EXPECT_GT((*at)->offset, 0u);  // after the warcinfo
  EXPECT_EQ(result.body, before.body);
  EXPECT_EQ(result.headers, before.headers);
  EXPECT_EQ(result.request_headers, before.request_headers);
  EXPECT_EQ(result.url, before.url);
  ASSERT_TRUE((*sink)->Close().ok());
  const std::string text = Gunzip((*at)->file);
  EXPECT_NE(text.find(before.headers + before.body), std::string::npos);
  EXPECT_NE(text.find(before.request_headers), std::string::npos);
  EXPECT_NE(text.find("WARC-Target-URI: " + before.url), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(WarcSink, ArchiveBorrowingLeavesAResultWithoutResponseAlone) {
  const std::string dir = FreshDir("warc-sink-none");
  CrawlOptions options;
  options.warc_prefix = dir + "/crawl";
  absl::StatusOr<std::unique_ptr<WarcSink>> sink = WarcSink::Create(options);
  ASSERT_TRUE(sink.ok()) << sink.status();
  FetchResult refused = PageResult();
  refused.status = 0;  // no response: nothing to archive
  absl::StatusOr<std::optional<WarcLocation>> at = (*sink)->ArchiveBorrowing(&refused);
  ASSERT_TRUE(at.ok());
  EXPECT_FALSE(at->has_value());
  EXPECT_EQ(refused.body, PageResult().body);
  EXPECT_EQ((*sink)->Stats().responses, 0u);
  // The disk thread may still be writing the warcinfo file into `dir`.
  ASSERT_TRUE((*sink)->Close().ok());
  std::filesystem::remove_all(dir);
}

// A response refused by --accept-type/--reject-type is archived
// with its headers, no body, and WARC-Truncated, like one cut by --max-body.
TEST(WarcSink, RefusedTypeIsArchivedAsTruncated) {
  FetchResult refused = PageResult();
  refused.body.clear();
  refused.error = std::string(kFetchTypeRejected);
  EXPECT_TRUE(ExchangeOf(refused).truncated);
  refused.error = std::string(kFetchBodyTooLarge);
  EXPECT_TRUE(ExchangeOf(refused).truncated);
  refused.error.clear();
  EXPECT_FALSE(ExchangeOf(refused).truncated);

  const std::string dir = FreshDir("warc-sink-type-rejected");
  CrawlOptions options;
  options.warc_prefix = dir + "/crawl";
  absl::StatusOr<std::unique_ptr<WarcSink>> sink = WarcSink::Create(options);
  ASSERT_TRUE(sink.ok()) << sink.status();
  refused.error = std::string(kFetchTypeRejected);
  absl::StatusOr<std::optional<WarcLocation>> at = (*sink)->ArchiveBorrowing(&refused);
  ASSERT_TRUE(at.ok()) << at.status();
  ASSERT_TRUE(at->has_value());
  ASSERT_TRUE((*sink)->Close().ok());
  EXPECT_NE(Gunzip((*at)->file).find("WARC-Truncated: length"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace crawler
