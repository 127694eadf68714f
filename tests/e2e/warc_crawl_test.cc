// --warc end to end: a crawl of the generated site (redirects, non-HTML
// files, gzip/brotli on the wire, one page cut by --max-body) is archived, and
// warcio, a reader we did not write (tests/crawler/warc/validate_warc.mjs),
// checks it: every record parses, every digest verifies, every page is there
// exactly once (a revisit only for an identical payload) with the body the
// server sends, and every pages.jsonl warc_offset holds that page's record.
// Missing node or warcio is a FAILURE, not a skip.
#include <openssl/evp.h>
#include <sys/wait.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "testsite/test_site.h"

namespace {

const std::string kValidator =
    std::string(CRAWL_SOURCE_DIR) + "/tests/crawler/warc/validate_warc.mjs";
constexpr uint64_t kMaxBody = 64 << 10;
constexpr size_t kBigBody = 200 << 10;  // the page --max-body cuts

struct ShellRun {
  int exit_code = -1;
  std::string output;
};

ShellRun Shell(const std::string& command) {
  ShellRun run;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    run.output.append(buffer, n);
  const int status = ::pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// "sha1:" + base32 (RFC 4648), the form of WARC-Payload-Digest.
std::string Sha1Base32(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha1(), nullptr);
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out = "sha1:";
  uint32_t buffer = 0;
  int bits = 0;
  for (unsigned int i = 0; i < length; ++i) {
    buffer = (buffer << 8) | digest[i];
    for (bits += 8; bits >= 5; bits -= 5) out += kAlphabet[(buffer >> (bits - 5)) & 31];
  }
  if (bits > 0) out += kAlphabet[(buffer << (5 - bits)) & 31];
  return out;  // 160 bits = 32 characters exactly: no padding
}

// Inflates the one gzip member at `offset` of `file`: a WARC record.
std::string RecordAt(const std::string& file, uint64_t offset) {
  std::ifstream in(file, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::string compressed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return "";
  z.next_in = reinterpret_cast<Bytef*>(compressed.data());
  z.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  char chunk[1 << 16];
  int code = Z_OK;
  while (code == Z_OK) {  // Z_STREAM_END at the end of this member only
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    code = inflate(&z, Z_NO_FLUSH);
    out.append(chunk, sizeof chunk - z.avail_out);
  }
  inflateEnd(&z);
  return code == Z_STREAM_END ? out : "";
}

std::vector<std::string> WarcFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().string().ends_with(".warc.gz")) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class WarcCrawl : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(Shell("node --version").exit_code, 0) << "node is not on PATH; run scripts/setup";
    ASSERT_TRUE(std::filesystem::exists(std::string(CRAWL_SOURCE_DIR) +
                                        "/tools/warcio/node_modules/warcio"))
        << "warcio is not installed in tools/warcio; run scripts/setup";
    testsite::SiteOptions site_options;
    site_options.pages = 50;
    site_options.links_per_page = 6;
    site_options.redirects = true;
    site_options.non_html = true;
    site_options.compress = true;  // Content-Encoding on the wire, decoded by curl
    auto site = testsite::TestSite::Start(site_options);
    ASSERT_TRUE(site.ok()) << site.status();
    site_ = std::move(*site);
    site_->Handle("/big.html", [](const httplib::Request&, httplib::Response& res) {
      std::string body = "<html><body>";
      while (body.size() < kBigBody) body += "<p>" + std::to_string(body.size()) + "</p>";
      res.set_content(body, "text/html");
    });
    options_ = e2e::FastOptions("warc");
    options_.max_body = kMaxBody;
    options_.warc_prefix = options_.out_dir + "/archive/crawl";
  }

  // What the server sends for `url` now, decoded: the site is a pure
  // function of its options, so it is what the crawl received.
  std::string BodyServed(const std::string& url) {
    httplib::Client client("127.0.0.1", site_->port());
    auto response = client.Get(e2e::PathOf(url));
    EXPECT_TRUE(response) << url;
    return response ? response->body : "";
  }

  ShellRun Validate(const std::vector<std::string>& files, const nlohmann::json& expect) {
    const std::string path = e2e::WriteFile(options_.out_dir, "expect.json", expect.dump());
    std::string command = "node " + kValidator + " --expect " + path;
    for (const std::string& file : files) command += " " + file;
    return Shell(command);
  }

  std::unique_ptr<testsite::TestSite> site_;
  crawler::CrawlOptions options_;
};

TEST_F(WarcCrawl, EveryPageOnceWithTheBodySentAndItsOffsetInPagesJsonl) {
  const std::string big = site_->BaseUrl() + "/big.html";
  auto summary = e2e::Crawl(options_, {site_->RootUrl(), big});
  ASSERT_TRUE(summary.ok()) << summary.status();
  const std::vector<nlohmann::json> pages = e2e::ReadPages(options_.out_dir);

  nlohmann::json expect;
  std::set<std::string> archived;
  for (const nlohmann::json& page : pages) {
    const std::string url = page["url"];
    ASSERT_NE(page["status"], 0) << url << " (every fetch of the site gets a response)";
    ASSERT_TRUE(page.contains("warc_file")) << url;
    std::string body = BodyServed(url);
    const bool cut = url == big;
    if (cut) body.resize(kMaxBody);
    expect["pages"][url] = {{"sha1", Sha1Base32(body)}, {"truncated", cut}};
    // The record's digest is the archive's payload digest, computed
    // once; bodies cut at --max-body and non-2xx answers have none.
    const int status = page["status"];
    if (status >= 200 && status < 300 && !cut) {
      EXPECT_EQ(page.value("digest", ""), Sha1Base32(body)) << url;
    } else {
      EXPECT_FALSE(page.contains("digest")) << url;
    }
    expect["locations"].push_back(
        {{"file", page["warc_file"]}, {"offset", page["warc_offset"]}, {"uri", url}});
    archived.insert(url);
  }
  for (const std::string& url : site_->PageUrls()) EXPECT_TRUE(archived.contains(url)) << url;
  for (const std::string& url : site_->NonHtmlUrls()) EXPECT_TRUE(archived.contains(url)) << url;
  EXPECT_TRUE(archived.contains(big));
  EXPECT_GT(site_->RequestCountWithPrefix("/r/"), 0u);  // redirects were archived too

  const std::vector<std::string> files = WarcFiles(options_.out_dir + "/archive");
  ASSERT_EQ(files.size(), 1u);
  const ShellRun run = Validate(files, expect);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json report = nlohmann::json::parse(run.output);
  EXPECT_EQ(report["errors"].size(), 0u) << run.output;
  EXPECT_EQ(report["warcinfo"], 1);
  EXPECT_EQ(report["requests"], pages.size());
  EXPECT_EQ(report["responses"].get<size_t>() + report["revisits"].get<size_t>(), pages.size());

  // The root went over the wire compressed: its record says so, and says
  // which options the crawl ran with in the file's warcinfo.
  const auto root = *std::find_if(pages.begin(), pages.end(), [&](const nlohmann::json& page) {
    return page["url"] == site_->RootUrl();
  });
  const std::string record = RecordAt(root["warc_file"], root["warc_offset"]);
  EXPECT_NE(record.find("WARC-Target-URI: " + site_->RootUrl() + "\r\n"), std::string::npos);
  EXPECT_NE(record.find("X-Crawl-Original-Content-Encoding: "), std::string::npos) << record;
  const std::string warcinfo = RecordAt(files[0], 0);
  EXPECT_NE(warcinfo.find("WARC-Type: warcinfo"), std::string::npos);
  EXPECT_NE(warcinfo.find("max-body: 64KiB\r\n"), std::string::npos) << warcinfo;
}

TEST_F(WarcCrawl, ATinyMaxSizeRotatesIntoFilesThatEachStartWithWarcinfo) {
  // Through the real program, so the flags are exercised too.
  const std::string seeds = e2e::WriteFile(options_.out_dir, "seeds.txt", site_->RootUrl() + "\n");
  const std::string prefix = options_.out_dir + "/rot/site";
  const e2e::CommandResult crawl = e2e::RunProgram(
      "crawl", {"--seeds", seeds, "--out", options_.out_dir, "--quiet", "--robots", "off",
                "--delay", "0", "--warc", prefix, "--warc-max-size", "8KiB"});
  ASSERT_EQ(crawl.exit_code, 0) << crawl.err;
  const std::vector<nlohmann::json> pages = e2e::ReadPages(options_.out_dir);
  std::set<std::string> files_named;
  for (const nlohmann::json& page : pages) files_named.insert(page["warc_file"].get<std::string>());

  const std::vector<std::string> files = WarcFiles(options_.out_dir + "/rot");
  ASSERT_GT(files.size(), 3u);
  EXPECT_EQ(files.front(), prefix + "-00000.warc.gz");
  for (const std::string& file : files) EXPECT_LE(std::filesystem::file_size(file), 8u << 10);
  EXPECT_GT(files_named.size(), 3u);
  const ShellRun run = Validate(files, nlohmann::json::object());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json report = nlohmann::json::parse(run.output);
  EXPECT_EQ(report["warcinfo"], files.size());  // the validator checks it comes first
  EXPECT_EQ(report["requests"], pages.size());
}

TEST(WarcCrawlRobots, RobotsTxtIsArchivedOnceAndDisallowedPagesAreNot) {
  testsite::SiteOptions site_options;
  site_options.pages = 20;
  site_options.robots_txt = "User-agent: *\nDisallow: /p/1.html\n";
  auto site = testsite::TestSite::Start(site_options);
  ASSERT_TRUE(site.ok()) << site.status();
  crawler::CrawlOptions options = e2e::FastOptions("warc-robots");
  options.robots = true;
  options.warc_prefix = options.out_dir + "/crawl";
  ASSERT_TRUE(e2e::Crawl(options, {(*site)->RootUrl()}).ok());
  EXPECT_EQ((*site)->RequestCount("/robots.txt"), 1u);
  EXPECT_EQ((*site)->RequestCount("/p/1.html"), 0u);

  nlohmann::json expect;
  const std::string robots = (*site)->BaseUrl() + "/robots.txt";
  expect["pages"][robots] = {{"sha1", Sha1Base32(site_options.robots_txt)}, {"truncated", false}};
  const std::string path = e2e::WriteFile(options.out_dir, "expect.json", expect.dump());
  const ShellRun run = Shell("node " + kValidator + " --expect " + path + " " +
                             options.warc_prefix + "-00000.warc.gz");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json report = nlohmann::json::parse(run.output);
  // Every fetched page and the robots.txt, each with its request.
  const size_t fetched = e2e::ReadPages(options.out_dir).size() - 1;  // minus the blocked one
  EXPECT_EQ(report["requests"], fetched + 1);
  EXPECT_NE(run.output.find("\"errors\":[]"), std::string::npos) << run.output;
}

TEST_F(WarcCrawl, AnUncreatableFolderFailsAtStartNamingTheFlag) {
  e2e::WriteFile(options_.out_dir, "a-file", "x");
  options_.warc_prefix = options_.out_dir + "/a-file/crawl";  // under a regular file
  auto summary = e2e::Crawl(options_, {site_->RootUrl()});
  ASSERT_FALSE(summary.ok());
  EXPECT_NE(summary.status().message().find("--warc"), std::string::npos) << summary.status();
  EXPECT_EQ(site_->TotalRequests(), 0u);
}

}  // namespace
