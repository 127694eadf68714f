// PageLog: whole lines, valid JSON, null for absent fields, concurrent appends
// never interleave, and records survive without Close (flushed as it goes).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "crawler/output.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace crawler {
namespace {

std::string TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             absl::StrCat("crawl-output-test-", name, "-", ::getpid());
  std::filesystem::remove_all(dir);
  return dir.string();
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

PageRecord SampleRecord() {
  PageRecord r;
  r.url = "http://127.0.0.1:8080/a";
  r.status = 200;
  r.content_type = "text/html; charset=utf-8";
  r.bytes = 1234;
  r.depth = 2;
  r.parent = "http://127.0.0.1:8080/";
  r.fetched_at = absl::FromUnixMillis(1700000000123);
  r.fetch_ms = 12.5;
  r.links_found = 7;
  r.links_new = 3;
  return r;
}

TEST(PageRecordToJson, HasEveryFieldTheIssueNames) {
  const auto j = nlohmann::json::parse(PageRecordToJson(SampleRecord()));
  for (const char* key : {"url", "final_url", "status", "content_type", "bytes", "depth", "parent",
                          "fetched_at", "fetch_ms", "links_found", "links_new", "error"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["url"], "http://127.0.0.1:8080/a");
  EXPECT_EQ(j["final_url"], "http://127.0.0.1:8080/a");  // defaults to url
  EXPECT_EQ(j["status"], 200);
  EXPECT_EQ(j["bytes"], 1234);
  EXPECT_EQ(j["depth"], 2);
  EXPECT_EQ(j["fetched_at"], "2023-11-14T22:13:20.123Z");
  EXPECT_DOUBLE_EQ(j["fetch_ms"].get<double>(), 12.5);
  EXPECT_EQ(j["links_new"], 3);
  EXPECT_TRUE(j["error"].is_null());
  EXPECT_FALSE(j.contains("redirect_to"));
  EXPECT_FALSE(j.contains("warc_file"));  // no --warc: no WARC fields
  EXPECT_FALSE(j.contains("warc_offset"));
}

TEST(PageRecordToJson, WarcFileAndOffsetWhenArchived) {
  PageRecord r = SampleRecord();
  r.warc_file = "out/crawl-00002.warc.gz";
  r.warc_offset = 5'000'000'000;  // past 4 GiB: no 32-bit truncation
  const auto j = nlohmann::json::parse(PageRecordToJson(r));
  EXPECT_EQ(j["warc_file"], "out/crawl-00002.warc.gz");
  EXPECT_EQ(j["warc_offset"].get<uint64_t>(), 5'000'000'000u);
}

TEST(PageRecordToJson, NullsForSeedAndMissingContentTypeAndErrorText) {
  PageRecord r;
  r.url = "http://x/";
  r.error = "timeout: operation timed out";
  const auto j = nlohmann::json::parse(PageRecordToJson(r));
  EXPECT_TRUE(j["parent"].is_null());
  EXPECT_TRUE(j["content_type"].is_null());
  EXPECT_EQ(j["error"], "timeout: operation timed out");
}

TEST(PageRecordToJson, InvalidUtf8AndNewlinesStayOnOneParsableLine) {
  PageRecord r;
  r.url = "http://x/\xff\xfe";
  r.error = "bad\nthing";
  const std::string line = PageRecordToJson(r);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_NO_THROW(nlohmann::json::parse(line));
}

TEST(ErrorKind, TextBeforeTheFirstColon) {
  EXPECT_EQ(ErrorKind("timeout: after 5 s"), "timeout");
  EXPECT_EQ(ErrorKind("body-too-large"), "body-too-large");
  EXPECT_EQ(ErrorKind(""), "");
}

TEST(PageLog, RejectsZeroFlushEvery) {
  PageLogOptions options;
  options.dir = TempDir("bad");
  options.flush_every = 0;
  EXPECT_FALSE(PageLog::Open(options).ok());
}

TEST(PageLog, RecordsAreOnDiskBeforeClose) {
  PageLogOptions options;
  options.dir = TempDir("flush");
  options.flush_every = 2;
  auto log = PageLog::Open(options);
  ASSERT_TRUE(log.ok()) << log.status();
  for (int i = 0; i < 4; ++i) ASSERT_TRUE((*log)->Append(SampleRecord()).ok());
  // No Close: a killed crawl keeps what was flushed (every 2 records here).
  EXPECT_EQ(ReadLines((*log)->path()).size(), 4u);
  EXPECT_EQ((*log)->Written(), 4);
  ASSERT_TRUE((*log)->Close().ok());
  EXPECT_FALSE((*log)->Append(SampleRecord()).ok());
}

TEST(PageLog, ConcurrentAppendsGiveWholeLines) {
  PageLogOptions options;
  options.dir = TempDir("concurrent");
  auto log = PageLog::Open(options);
  ASSERT_TRUE(log.ok()) << log.status();
  constexpr int kThreads = 4;
  constexpr int kPerThread = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        PageRecord r = SampleRecord();
        r.url = absl::StrCat("http://127.0.0.1/", t, "/", i, "/", std::string(i % 300, 'x'));
        ASSERT_TRUE((*log)->Append(r).ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_TRUE((*log)->Close().ok());
  const auto lines = ReadLines((*log)->path());
  ASSERT_EQ(lines.size(), static_cast<size_t>(kThreads * kPerThread));
  std::set<std::string> urls;
  for (const auto& line : lines) urls.insert(nlohmann::json::parse(line)["url"].get<std::string>());
  EXPECT_EQ(urls.size(), lines.size());
}

TEST(WriteSummary, WritesParsableSummaryWithRate) {
  CrawlSummary s;
  s.pages = 100;
  s.duration_s = 4;
  s.errors_by_kind["timeout"] = 2;
  s.status_counts[200] = 98;
  s.status_counts[0] = 2;
  s.filter_fp_rate = 0.001;
  s.stop_reason = "drained";
  const std::string dir = TempDir("summary");
  ASSERT_TRUE(WriteSummary(dir, s).ok());
  std::ifstream in(std::filesystem::path(dir) / "summary.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["pages"], 100);
  EXPECT_DOUBLE_EQ(j["pages_per_s"].get<double>(), 25.0);
  EXPECT_EQ(j["errors_by_kind"]["timeout"], 2);
  EXPECT_EQ(j["status_counts"]["200"], 98);
  EXPECT_EQ(j["stop_reason"], "drained");
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(dir) / "summary.json.tmp"));
}

TEST(WriteSummary, ASaturatedFilterIsNullWithItsReasonNeverANegativeNumber) {
  CrawlSummary s;
  s.seen_estimate = std::nullopt;
  s.filter_saturated = true;
  s.filter_fp_rate = 1;
  s.null_reasons["seen_estimate"] = "the filter is saturated";
  s.null_reasons["fp_measured"] = "not measured";
  const auto j = nlohmann::json::parse(CrawlSummaryToJson(s));
  EXPECT_TRUE(j["seen_estimate"].is_null());
  EXPECT_EQ(j["filter_saturated"], true);
  EXPECT_TRUE(j["fp_measured"].is_null());
  EXPECT_EQ(j["null_reasons"]["seen_estimate"], "the filter is saturated");
  EXPECT_EQ(j["null_reasons"]["fp_measured"], "not measured");
}

// The grouping by server: its counts and the busiest servers by address.
TEST(WriteSummary, ServersHaveTheirWaitsAndTheBusiest) {
  CrawlSummary s;
  s.servers_counted = 3;
  s.server_slot_waits = 5;
  s.server_delay_waits = 8;
  s.busiest_servers = {{"127.0.0.1:8080", 40, 5, 7}, {"[::1]:443", 2, 0, 1}};
  const auto j = nlohmann::json::parse(CrawlSummaryToJson(s));
  EXPECT_EQ(j["servers"]["counted"], 3);
  EXPECT_EQ(j["servers"]["slot_waits"], 5);
  EXPECT_EQ(j["servers"]["delay_waits"], 8);
  ASSERT_EQ(j["servers"]["busiest"].size(), 2u);
  EXPECT_EQ(j["servers"]["busiest"]["127.0.0.1:8080"]["starts"], 40);
  EXPECT_EQ(j["servers"]["busiest"]["127.0.0.1:8080"]["delay_waits"], 7);
  EXPECT_EQ(j["servers"]["busiest"]["[::1]:443"]["delay_waits"], 1);
  EXPECT_TRUE(
      nlohmann::json::parse(CrawlSummaryToJson(CrawlSummary{}))["servers"]["busiest"].empty());
}

TEST(WriteSummary, MeasuredLossHasItsIntervals) {
  CrawlSummary s;
  MeasuredLoss m;
  m.sample_one_in = 8;
  m.sampled_urls = 1000;
  m.sampled_false_positives = 20;
  m.rate = 0.02;
  m.rate_low = 0.013;
  m.rate_high = 0.0307;
  m.wrongly_dropped = 160.4;
  m.wrongly_dropped_low = 104.2;
  m.wrongly_dropped_high = 246.1;
  s.fp_measured = m;
  const auto j = nlohmann::json::parse(CrawlSummaryToJson(s));
  EXPECT_EQ(j["fp_measured"]["sample_one_in"], 8);
  EXPECT_DOUBLE_EQ(j["fp_measured"]["rate"].get<double>(), 0.02);
  EXPECT_DOUBLE_EQ(j["fp_measured"]["wrongly_dropped"].get<double>(), 160);
  EXPECT_DOUBLE_EQ(j["fp_measured"]["wrongly_dropped_95"][0].get<double>(), 104);
  EXPECT_DOUBLE_EQ(j["fp_measured"]["wrongly_dropped_95"][1].get<double>(), 247);
  EXPECT_TRUE(j["null_reasons"].is_object());
  EXPECT_TRUE(j["null_reasons"].empty());
}

}  // namespace
}  // namespace crawler
