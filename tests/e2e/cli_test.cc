// End to end through the real binary (CRAWL_BIN_DIR/crawl): exit codes, the
// seeds file's bad lines, the `url`, `links` and `robots` subcommands, a whole crawl
// with its output files, and a graceful stop on SIGINT.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace {

using e2e::RunProgram;

TEST(Cli, HelpAndVersionExitZero) {
  auto help = RunProgram("crawl", {"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--seeds"), std::string::npos);
  auto version = RunProgram("crawl", {"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.out.find("crawl"), std::string::npos);
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(RunProgram("crawl", {"--no-such-flag"}).exit_code, 2);
  EXPECT_EQ(RunProgram("crawl", {"--seeds", "/nonexistent/seeds.txt"}).exit_code, 2);
  EXPECT_EQ(RunProgram("crawl", {"url", "only-one-arg"}).exit_code, 2);
}

TEST(Cli, UrlPrintsWhatWouldBeEnqueued) {
  auto r = RunProgram("crawl", {"url", "http://Example.COM/a/b/c.html", "../d/%7euser?q#frag"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "http://example.com/a/d/~user?q\n");
  auto rejected = RunProgram("crawl", {"url", "http://example.com/", "mailto:someone@example.com"});
  EXPECT_EQ(rejected.exit_code, 1);
  EXPECT_EQ(rejected.out, "");
  EXPECT_FALSE(rejected.err.empty());
}

TEST(Cli, UrlBatchAnswersEveryLine) {
  auto r = RunProgram("crawl", {"url", "--batch"},
                      "http://a.com/x/\ty\n"
                      "http://a.com/\tjavascript:void(0)\n"
                      "no tab here\n"
                      "https://b.org:443/\t//c.net:80/p#f\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::vector<std::string> got;
  for (std::string line; std::getline(lines, line);) got.push_back(line);
  ASSERT_EQ(got.size(), 4u) << r.out;
  EXPECT_EQ(got[0], "http://a.com/x/y");
  EXPECT_EQ(got[1].rfind("! ", 0), 0u);
  EXPECT_EQ(got[2].rfind("! ", 0), 0u);
  EXPECT_EQ(got[3], "https://c.net:80/p");  // 80 is not https's default port
}

TEST(Cli, LinksPrintsLinksInDocumentOrder) {
  const std::string html =
      "<html><head><base href='http://site.test/dir/'></head><body>"
      "<a href='a.html'>a</a><a href='/b#x'>b</a><a rel=nofollow href='c'>c</a>"
      "<iframe src='http://other.test/f'></iframe><a href='mailto:x@y'>m</a>"
      "</body></html>";
  const std::string dir = e2e::FreshDir("links");
  const std::string file = e2e::WriteFile(dir, "page.html", html);
  auto from_file = RunProgram("crawl", {"links", "--base", "http://ignored.test/", file});
  EXPECT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_EQ(from_file.out,
            "http://site.test/dir/a.html\nhttp://site.test/b\nhttp://other.test/f\n");
  auto from_stdin = RunProgram("crawl", {"links"}, html);
  EXPECT_EQ(from_stdin.out, from_file.out);
  EXPECT_EQ(RunProgram("crawl", {"links", "/nonexistent/page.html"}).exit_code, 1);
}

TEST(Cli, RobotsAnswersAllowOrDisallowPerUrl) {
  const std::string dir = e2e::FreshDir("robots");
  const std::string file = e2e::WriteFile(dir, "robots.txt",
                                          "User-agent: crawl\nDisallow: /private/\n"
                                          "Allow: /private/open\n");
  auto r = RunProgram("crawl",
                      {"robots", "--file", file, "--agent", "crawl", "http://site.test/private/x",
                       "http://site.test/private/open", "http://site.test/public"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "disallow\thttp://site.test/private/x\n"
            "allow\thttp://site.test/private/open\n"
            "allow\thttp://site.test/public\n");
  auto batch =
      RunProgram("crawl", {"robots", "--file", file, "--batch"}, "http://site.test/private/y\n");
  EXPECT_EQ(batch.out, "disallow\thttp://site.test/private/y\n");
  EXPECT_EQ(RunProgram("crawl", {"robots", "--agent", "crawl"}).exit_code, 2);
}

class CliCrawl : public ::testing::Test {
 protected:
  void SetUp() override {
    testsite::SiteOptions options;
    options.pages = 60;
    auto site = testsite::TestSite::Start(options);
    ASSERT_TRUE(site.ok()) << site.status();
    site_ = std::move(*site);
    dir_ = e2e::FreshDir("cli-crawl");
  }
  std::vector<std::string> Args(const std::string& seeds) {
    return {"--seeds",    seeds, "--expected", "1_000",       "--delay",     "0",
            "--per-host", "8",   "--out",      dir_ + "/out", "--spill-dir", dir_ + "/spill"};
  }
  std::unique_ptr<testsite::TestSite> site_;
  std::string dir_;
};

TEST_F(CliCrawl, BadSeedLineIsReportedAndSkipped) {
  const std::string seeds = e2e::WriteFile(
      dir_, "seeds.txt", "# start here\n" + site_->RootUrl() + "\nnot a url at all\n\n");
  auto r = RunProgram("crawl", Args(seeds));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("seeds.txt:3"), std::string::npos) << r.err;
  EXPECT_EQ(e2e::ReadPages(dir_ + "/out").size(), 60u);
  for (const std::string& url : site_->PageUrls()) {
    EXPECT_EQ(site_->RequestCount(e2e::PathOf(url)), 1u) << url;
  }
  const auto summary = e2e::ReadSummary(dir_ + "/out");
  EXPECT_EQ(summary["pages"], 60);
  EXPECT_EQ(summary["stop_reason"], "drained");
}

TEST_F(CliCrawl, StrictMakesABadSeedLineFatal) {
  const std::string seeds =
      e2e::WriteFile(dir_, "seeds.txt", site_->RootUrl() + "\nnot a url at all\n");
  auto args = Args(seeds);
  args.push_back("--strict");
  auto r = RunProgram("crawl", args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("seeds.txt:2"), std::string::npos) << r.err;
  EXPECT_EQ(site_->TotalRequests(), 0u);
}

TEST_F(CliCrawl, SigintStopsGracefullyWithASummary) {
  // A site that never ends: every /endless page links to two new ones.
  site_->Handle("/endless", [](const httplib::Request& req, httplib::Response& res) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const std::string n = req.has_param("n") ? req.get_param_value("n") : "0";
    res.set_content(
        "<a href='/endless?n=" + n + "1'>next</a><a href='/endless?n=" + n + "2'>next</a>",
        "text/html");
  });
  const std::string seeds = e2e::WriteFile(dir_, "seeds.txt", site_->BaseUrl() + "/endless\n");
  std::vector<std::string> args = Args(seeds);
  std::vector<std::string> argv_storage = {std::string(CRAWL_BIN_DIR) + "/crawl"};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  const auto pages = std::filesystem::path(dir_) / "out" / "pages.jsonl";
  // Wait (without a time bound that could flake) until the crawl is under way.
  while (site_->TotalRequests() < 5) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  const auto summary = e2e::ReadSummary(dir_ + "/out");
  EXPECT_EQ(summary["interrupted"], true);
  EXPECT_EQ(summary["stop_reason"], "signal");
  EXPECT_GE(summary["pages"].get<int>(), 1);
  EXPECT_EQ(e2e::ReadPages(dir_ + "/out").size(), summary["pages"].get<size_t>());
  EXPECT_TRUE(std::filesystem::exists(pages));
}

}  // namespace
