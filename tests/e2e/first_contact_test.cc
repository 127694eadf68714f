// What a new user met on a first crawl, through the binary as they run it.
// Each crawl that used to hang is bounded (killed after kTimeLimitS: exit 142).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "e2e/binary_crawl.h"
#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace {

constexpr int kTimeLimitS = 60;

std::unique_ptr<testsite::TestSite> StartSite(int pages = 1) {
  testsite::SiteOptions options;
  options.pages = pages;
  options.links_per_page = 1;
  auto site = testsite::TestSite::Start(options);
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

void ServeText(testsite::TestSite* site, const std::string& path, const std::string& body,
               const char* type) {
  site->Handle(path, [body, type](const httplib::Request&, httplib::Response& res) {
    res.set_content(body, type);
  });
}

// Https:// to a port that speaks plain HTTP sat 180 s in silence
// (robots.txt "tls", tried 3 times a minute apart). A handshake failing on a
// host's first contact is now given up like a refused connection.
TEST(FirstContact, TlsFailingSeedEndsAtOnceAndSaysWhy) {
  auto site = StartSite();
  ASSERT_NE(site, nullptr);
  const std::string https = absl::StrReplaceAll(site->BaseUrl(), {{"http://", "https://"}});
  const e2e::BinaryCrawl crawl =
      e2e::RunCrawlBinary("first-tls", {https + "/"}, {"--robots", "on"}, kTimeLimitS);
  EXPECT_EQ(crawl.run.exit_code, 3) << crawl.run.err;  // nothing could be fetched
  EXPECT_NE(crawl.run.err.find("robots.txt of " + https), std::string::npos) << crawl.run.err;
  ASSERT_EQ(crawl.pages.size(), 1u);
  EXPECT_EQ(crawl.pages[0]["error"], "robots_unreachable: robots.txt tls (1 tries)");
}

// The first robots.txt failure is said at once, with when the next
// try is (it used to be said only when the host was given up).
TEST(FirstContact, FirstRobotsFailureIsWarnedWithTheRetryTime) {
  auto site = StartSite();
  ASSERT_NE(site, nullptr);
  auto asked = std::make_shared<std::atomic<int>>(0);
  site->Handle("/robots.txt", [asked](const httplib::Request&, httplib::Response& res) {
    if (asked->fetch_add(1) == 0) {
      res.status = 500;
      res.set_content("down", "text/plain");
      return;
    }
    res.set_content("User-agent: *\nAllow: /\n", "text/plain");
  });
  const e2e::BinaryCrawl crawl =
      e2e::RunCrawlBinary("first-robots-500", {site->RootUrl()},
                          {"--robots", "on", "--robots-retry", "1s"}, kTimeLimitS);
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  const std::string said = absl::StrCat("robots.txt of ", site->BaseUrl(),
                                        ": answered 500 (try 1 of 3); its URLs wait, next try in ");
  EXPECT_NE(crawl.run.err.find(said), std::string::npos) << crawl.run.err;
  EXPECT_EQ(crawl.by_path.at(e2e::PathOf(site->RootUrl()))["status"], 200);
}

// A seeds file of a million lines took seconds to normalize and queue
// before the first log line. From 100,000 seeds on, the crawl says how many
// it read and what it does with them before it starts.
TEST(FirstContact, ManySeedsAreAnnouncedBeforeTheyAreQueued) {
  auto site = StartSite(30);
  ASSERT_NE(site, nullptr);
  std::vector<std::string> seeds;
  seeds.reserve(100'000);
  for (int i = 0; i < 100'000; ++i) {
    seeds.push_back(absl::StrCat(site->BaseUrl(), "/p/", i % 30, ".html?seed=", i));
  }
  const e2e::BinaryCrawl crawl = e2e::RunCrawlBinaryWithLogs(
      "first-many-seeds", seeds, {"--max-pages", "5", "--expected", "2e5"}, kTimeLimitS);
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err.substr(0, 2000);
  const size_t announced = crawl.run.err.find("100000 seeds read from ");
  ASSERT_NE(announced, std::string::npos) << crawl.run.err.substr(0, 2000);
  EXPECT_NE(crawl.run.err.find("; normalizing and queueing them", announced), std::string::npos);
  EXPECT_LT(announced, crawl.run.err.find("crawling 100000 seeds"));  // before the crawl starts
  EXPECT_EQ(crawl.pages.size(), 5u);
}

// With Crawl-delay: 2, five links robots.txt forbids and one it
// allows took 14 s: none was requested, each waited its turn. A blocked URL
// is recorded at once, and is not one of the crawl's errors.
TEST(FirstContact, BlockedUrlsCostNoPolitenessSlot) {
  auto site = StartSite();
  ASSERT_NE(site, nullptr);
  ServeText(site.get(), "/robots.txt", "User-agent: *\nCrawl-delay: 2\nDisallow: /no/\n",
            "text/plain");
  std::string html = "<html><body>";
  for (int i = 0; i < 5; ++i) absl::StrAppend(&html, "<a href=\"/no/", i, "\">no</a>");
  html += "<a href=\"/yes\">yes</a></body></html>";
  ServeText(site.get(), "/index/", html, "text/html");
  ServeText(site.get(), "/yes", "<html><body>yes</body></html>", "text/html");
  const e2e::BinaryCrawl crawl =
      e2e::RunCrawlBinaryWithLogs("first-blocked", {site->BaseUrl() + "/index/"},
                                  {"--robots", "on", "--per-host", "1"}, kTimeLimitS);
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  EXPECT_EQ(crawl.CountWithPrefix("/no/"), 5);
  for (const auto& page : crawl.pages) {
    if (e2e::PathOf(page["url"].get<std::string>()).rfind("/no/", 0) == 0) {
      EXPECT_EQ(page["error"], "robots") << page.dump();
    }
  }
  EXPECT_EQ(site->RequestCountWithPrefix("/no/"), 0u);
  // /yes is one Crawl-delay after the index, not six.
  std::chrono::steady_clock::time_point index_at, yes_at;
  for (const testsite::RequestRecord& r : site->RequestLog()) {
    if (r.path == "/index/") index_at = r.start_time;
    if (r.path == "/yes") yes_at = r.start_time;
  }
  ASSERT_EQ(site->RequestCount("/yes"), 1u);
  EXPECT_LT(yes_at - index_at, std::chrono::milliseconds(5000));
  EXPECT_NE(crawl.run.err.find("(2 2xx, 0 redirects, 0 errors)"), std::string::npos)
      << crawl.run.err;
}

// An --out with an earlier crawl's pages.jsonl and no checkpoint
// was overwritten in silence. Refused (exit 2, naming the file) unless --fresh.
TEST(FirstContact, EarlierRecordsAreNotOverwrittenWithoutFresh) {
  auto site = StartSite();
  ASSERT_NE(site, nullptr);
  const std::string dir = e2e::FreshDir("first-overwrite");
  const std::string out = dir + "/out";
  std::vector<std::string> args = e2e::LoopbackCrawlFlags(dir, {site->RootUrl()});
  args.insert(args.end(), {"--state", dir + "/state"});
  ASSERT_EQ(e2e::RunProgram("crawl", args).exit_code, 0);
  std::filesystem::remove_all(dir + "/state");  // records, no checkpoint
  const e2e::CommandResult again = e2e::RunProgram("crawl", args);
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_NE(again.err.find(out + "/pages.jsonl holds an earlier crawl's records"),
            std::string::npos)
      << again.err;
  EXPECT_EQ(e2e::ReadPages(out).size(), 1u);  // kept
  args.push_back("--fresh");
  EXPECT_EQ(e2e::RunProgram("crawl", args).exit_code, 0);
}

// `crawl --resume --out DIR URL` ignored URL and exited 0. Refused.
TEST(FirstContact, AUrlGivenWithResumeIsRefused) {
  auto site = StartSite();
  ASSERT_NE(site, nullptr);
  const std::string dir = e2e::FreshDir("first-resume-url");
  ASSERT_EQ(e2e::RunProgram("crawl", e2e::LoopbackCrawlFlags(dir, {site->RootUrl()})).exit_code, 0);
  const std::string other = site->BaseUrl() + "/other";
  const e2e::CommandResult resumed =
      e2e::RunProgram("crawl", {"--resume", "--out", dir + "/out", "--quiet", other});
  EXPECT_EQ(resumed.exit_code, 2) << resumed.err;
  EXPECT_NE(resumed.err.find(other), std::string::npos) << resumed.err;
  EXPECT_NE(resumed.err.find("--resume"), std::string::npos) << resumed.err;
}

// An --out that cannot be created said "cannot open directory
// .../state: No such file or directory". Now it names the directory that
// refused and why (/sys refuses mkdir even to root).
TEST(FirstContact, AnUnwritableOutNamesTheDirectoryThatRefused) {
  const e2e::CommandResult run = e2e::RunProgram(
      "crawl",
      {"--out", "/sys/crawl-e2e-out/run", "--quiet", "--robots", "off", "http://127.0.0.1:9/"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("cannot create directory /sys/crawl-e2e-out/run: "), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find(" in /sys"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("No such file"), std::string::npos) << run.err;
}

// One start line (seeds, --out, delay, expected), and a crawl
// stopped by --max-pages says how to go on; the resumed crawl does go on.
TEST(FirstContact, AStartLineAndHowToGoOnAfterMaxPages) {
  auto site = StartSite(40);
  ASSERT_NE(site, nullptr);
  const std::string dir = e2e::FreshDir("first-start-line");
  std::vector<std::string> flags = e2e::LoopbackCrawlFlags(dir, {site->RootUrl()});
  flags.erase(std::remove(flags.begin(), flags.end(), "--quiet"), flags.end());
  flags.insert(flags.end(), {"--max-pages", "5"});
  const e2e::CommandResult run = e2e::RunProgram("crawl", flags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string out = dir + "/out";
  EXPECT_NE(run.err.find("crawling 1 seed"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(" into " + out + ": --delay "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("--expected "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("--max-pages 5 reached; to go on: crawl --resume --out " + out +
                         " --max-pages N (N > 5)"),
            std::string::npos)
      << run.err;
  const e2e::CommandResult resumed =
      e2e::RunProgram("crawl", {"--resume", "--out", out, "--max-pages", "40", "--quiet"});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_GT(e2e::ReadPages(out).size(), 5u);
}

// A page cut at --max-body is a page (status 200, `truncated`), and
// the end line counted it among the errors.
TEST(FirstContact, ATruncatedPageIsNotAnError) {
  auto site = StartSite();
  ASSERT_NE(site, nullptr);
  // As is: a set_content() body would go compressed, far under --max-body.
  auto big = std::make_shared<const std::string>("<html><body>" + std::string(64 * 1024, 'x') +
                                                 "</body></html>");
  site->Handle("/big/", [big](const httplib::Request&, httplib::Response& res) {
    res.set_content_provider(big->size(), "text/html",
                             [big](size_t offset, size_t length, httplib::DataSink& sink) {
                               return sink.write(big->data() + offset, length);
                             });
  });
  const e2e::BinaryCrawl crawl = e2e::RunCrawlBinaryWithLogs(
      "first-truncated", {site->BaseUrl() + "/big/"}, {"--max-body", "4KiB"}, kTimeLimitS);
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  ASSERT_EQ(crawl.pages.size(), 1u);
  EXPECT_EQ(crawl.pages[0]["status"], 200);
  EXPECT_EQ(crawl.pages[0]["truncated"], true);
  EXPECT_NE(crawl.run.err.find("(1 2xx, 0 redirects, 0 errors)"), std::string::npos)
      << crawl.run.err;
}

// `crawl links FILE` with relative hrefs and no --base printed
// nothing and exited 0: now it says why on stderr.
TEST(FirstContact, LinksSaysWhyRelativeLinksAreNotPrinted) {
  const std::string dir = e2e::FreshDir("first-links");
  const std::string file =
      e2e::WriteFile(dir, "page.html", "<a href='a.html'>a</a><a href='/b'>b</a>");
  const e2e::CommandResult run = e2e::RunProgram("crawl", {"links", file});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("2 links not printed: relative ones resolve only against --base URL"),
            std::string::npos)
      << run.err;
  const e2e::CommandResult based =
      e2e::RunProgram("crawl", {"links", "--base", "http://site.test/", file});
  EXPECT_EQ(based.out, "http://site.test/a.html\nhttp://site.test/b\n");
  EXPECT_EQ(based.err, "");
}

// --resolve HOST:PORT:ADDR as curl's: the seed's name is crawled
// at the address given (robots.txt included), the records keep the name; a
// malformed entry is a usage error naming it. --no-check-certificate warns.
TEST(FirstContact, ResolveAndNoCheckCertificate) {
  auto site = StartSite(3);
  ASSERT_NE(site, nullptr);
  const std::string host = "crawl-e2e.invalid";
  const std::string authority = absl::StrCat(host, ":", site->port());
  const e2e::BinaryCrawl crawl =
      e2e::RunCrawlBinary("first-resolve", {absl::StrCat("http://", authority, "/")},
                          {"--resolve", authority + ":127.0.0.1", "--block-private", "off",
                           "--robots", "on", "--no-check-certificate"},
                          kTimeLimitS);
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  EXPECT_EQ(site->RequestCount("/robots.txt"), 1u);
  EXPECT_GE(site->TotalRequests(), 4u);  // robots.txt and the 3 pages
  for (const auto& page : crawl.pages) {
    EXPECT_EQ(page["url"].get<std::string>().rfind("http://" + authority + "/", 0), 0u)
        << page.dump();
    EXPECT_EQ(page["status"], 200) << page.dump();
  }
  EXPECT_NE(crawl.run.err.find("--no-check-certificate: server certificates are NOT verified"),
            std::string::npos)
      << crawl.run.err;
  const e2e::BinaryCrawl bad = e2e::RunCrawlBinary("first-resolve-bad", {site->RootUrl()},
                                                   {"--resolve", "crawl.test:80"}, kTimeLimitS);
  EXPECT_EQ(bad.run.exit_code, 2) << bad.run.err;
  EXPECT_NE(bad.run.err.find("--resolve 'crawl.test:80'"), std::string::npos) << bad.run.err;
}

}  // namespace
