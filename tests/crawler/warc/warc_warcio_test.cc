// Validation by a reader we did not write: warcio (the npm package pinned in
// tools/warcio, installed by scripts/setup) parses a WARC of varied exchanges
// and checks every digest, link and body (tests/crawler/warc/validate_warc.mjs).
// Missing node or warcio is a FAILURE, not a skip.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "crawler/warc.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test_exchanges.h"
#include "warc_reader.h"

namespace crawler {
namespace {

const std::string kValidator =
    std::string(CRAWL_SOURCE_DIR) + "/tests/crawler/warc/validate_warc.mjs";

struct RunResult {
  int exit_code = -1;
  std::string output;
};

RunResult RunCommand(const std::string& command) {
  RunResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// The kinds of response a crawl archives, each with what the server "sent".
std::vector<WarcExchange> VariedExchanges() {
  std::vector<WarcExchange> out;
  WarcExchange html = crawler_test::NumberedExchange(1, 0);
  html.response_headers = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n";
  html.body = "<html><body><a href=\"/page/2\">two</a></body></html>";
  out.push_back(html);
  WarcExchange gzip = crawler_test::NumberedExchange(2, 5000);  // decoded by the fetcher
  gzip.response_headers =
      "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 1234\r\n"
      "Content-Type: application/octet-stream\r\n";
  out.push_back(gzip);
  WarcExchange chunked = crawler_test::NumberedExchange(3, 20000);
  chunked.response_headers = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  out.push_back(chunked);
  WarcExchange h2 = crawler_test::NumberedExchange(4, 300);
  h2.response_headers = "HTTP/2 200\r\ncontent-type: text/plain\r\n\r\n";
  out.push_back(h2);
  WarcExchange redirect = crawler_test::NumberedExchange(5, 0);
  redirect.response_headers = "HTTP/1.1 301 Moved Permanently\r\nLocation: /page/1\r\n\r\n";
  out.push_back(redirect);
  WarcExchange cut = crawler_test::NumberedExchange(6, 4096);
  cut.response_headers = "HTTP/1.1 200 OK\r\nContent-Length: 99999\r\n\r\n";
  cut.truncated = true;
  out.push_back(cut);
  WarcExchange robots = crawler_test::NumberedExchange(7, 0);
  robots.target_uri = "http://127.0.0.1:9/robots.txt";
  robots.response_headers = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n";
  robots.body = "User-agent: *\nDisallow: /private\n";
  out.push_back(robots);
  WarcExchange mirror = html;  // same payload: a revisit
  mirror.target_uri = "http://127.0.0.1:9/mirror-of-1";
  out.push_back(mirror);
  for (int i = 10; i < 60; ++i) out.push_back(crawler_test::NumberedExchange(i, 100 + i * 97));
  return out;
}

class WarcioValidation : public ::testing::Test {
 protected:
  void SetUp() override {
    const RunResult node = RunCommand("node --version");
    ASSERT_EQ(node.exit_code, 0) << "node is not on PATH; run scripts/setup";
    ASSERT_TRUE(std::filesystem::exists(std::string(CRAWL_SOURCE_DIR) +
                                        "/tools/warcio/node_modules/warcio"))
        << "warcio is not installed in tools/warcio; run scripts/setup";
  }

  // Writes `exchanges` rotating at `max_size`, returns the files and the
  // expectations the validator checks.
  std::vector<std::string> WriteWarc(const std::vector<WarcExchange>& exchanges, uint64_t max_size,
                                     nlohmann::json* expect) {
    WarcOptions options = crawler_test::OptionsWithPrefix(dir_ + "/site");
    options.max_file_size = max_size;
    options.warcinfo_fields = "seeds: http://127.0.0.1:9/\nmax-pages: 100";
    auto writer = WarcWriter::Create(options);
    EXPECT_TRUE(writer.ok()) << writer.status();
    for (const WarcExchange& e : exchanges) {
      auto at = (*writer)->Write(e);
      EXPECT_TRUE(at.ok()) << at.status();
      (*expect)["pages"][e.target_uri] = {{"sha1", crawler_test::TestSha1Base32(e.body)},
                                          {"truncated", e.truncated}};
      (*expect)["locations"].push_back(
          {{"file", at->file}, {"offset", at->offset}, {"uri", e.target_uri}});
    }
    EXPECT_TRUE((*writer)->Close().ok());
    std::vector<std::string> files;
    for (uint64_t f = 0; f < (*writer)->Stats().files; ++f) {
      char name[32];
      std::snprintf(name, sizeof name, "-%05d.warc.gz", static_cast<int>(f));
      files.push_back(options.prefix + name);
    }
    return files;
  }

  RunResult Validate(const std::vector<std::string>& files, const nlohmann::json& expect) {
    const std::string expect_path = dir_ + "/expect.json";
    std::ofstream(expect_path) << expect.dump();
    std::string command = "node " + kValidator + " --expect " + expect_path;
    for (const std::string& f : files) command += " " + f;
    return RunCommand(command);
  }

  std::string dir_ = crawler_test::MakeTempDir("warcio");
};

TEST_F(WarcioValidation, EveryRecordParsesDigestsVerifyBodiesAreWhatWasSent) {
  const std::vector<WarcExchange> exchanges = VariedExchanges();
  nlohmann::json expect;
  const std::vector<std::string> files = WriteWarc(exchanges, 60000, &expect);
  EXPECT_GT(files.size(), 2u);  // rotation is validated too
  const RunResult run = Validate(files, expect);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto summary = nlohmann::json::parse(run.output);
  EXPECT_EQ(summary["errors"].size(), 0u);
  EXPECT_EQ(summary["warcinfo"], files.size());
  EXPECT_EQ(summary["requests"], exchanges.size());
  EXPECT_EQ(summary["revisits"], 1);
  EXPECT_EQ(summary["responses"], exchanges.size() - 1);
}

TEST_F(WarcioValidation, TheValidatorRejectsABodyThatWasNotSent) {
  std::vector<WarcExchange> exchanges = {crawler_test::NumberedExchange(1, 100)};
  nlohmann::json expect;
  const std::vector<std::string> files = WriteWarc(exchanges, 1 << 20, &expect);
  expect["pages"][exchanges[0].target_uri]["sha1"] = crawler_test::TestSha1Base32("other");
  expect["pages"]["http://127.0.0.1:9/never-written"] = {{"sha1", "sha1:X"}, {"truncated", false}};
  const RunResult run = Validate(files, expect);
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("payload is not the body sent"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("never-written: 0 response records"), std::string::npos) << run.output;
}

TEST_F(WarcioValidation, TheValidatorRejectsATornFile) {
  std::vector<WarcExchange> exchanges = {crawler_test::NumberedExchange(1, 3000)};
  nlohmann::json expect;
  const std::vector<std::string> files = WriteWarc(exchanges, 1 << 20, &expect);
  std::filesystem::resize_file(files[0], std::filesystem::file_size(files[0]) - 100);
  EXPECT_NE(Validate(files, expect).exit_code, 0);
  ASSERT_TRUE(TruncateTornWarc(files[0]).ok());  // what --resume does
  expect = {};
  const RunResult run = Validate(files, expect);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  // The request (written last) went with the tear; the response stands alone.
  EXPECT_EQ(nlohmann::json::parse(run.output)["responses"], 1);
  EXPECT_EQ(nlohmann::json::parse(run.output)["requests"], 0);
}

}  // namespace
}  // namespace crawler
