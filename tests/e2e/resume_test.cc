// Checkpoint and resume through the real `crawl` binary: killed with SIGKILL
// at several moments, stopped with SIGINT, resumed with conflicting flags,
// from a damaged state, and with a state directory that vanishes mid-crawl.
// What the server saw is the truth: every page requested at least once, the
// extra requests within the bound the README states.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e/e2e_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr int kResumePages = 300;
constexpr int kSmallPages = 60;    // the error paths: enough for --max-pages 20 to stop early
constexpr int kMediumPages = 150;  // ~1.5 s: the state can vanish mid-crawl
constexpr int kConnections = 2;
constexpr int kLatencyMs = 20;
constexpr double kCheckpointEvery = 0.2;

std::unique_ptr<testsite::TestSite> StartResumeSite(int pages = kResumePages) {
  testsite::SiteOptions options;
  options.pages = static_cast<uint64_t>(pages);
  options.links_per_page = 8;
  options.latency_ms = kLatencyMs;
  options.page_bytes = 1024;
  auto site = testsite::TestSite::Start(options);
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

// The crawl's flags: slow enough (2 connections, 20 ms a page: ~3 s for the
// site) that the kills land mid-crawl.
std::vector<std::string> CrawlArgs(const std::string& out, const std::string& seeds) {
  return {"--seeds",    seeds,        "--out",     out,       "--connections",
          "2",          "--per-host", "2",         "--delay", "0",
          "--expected", "100000",     "--fp-rate", "0.0001",  "--checkpoint-every",
          "0.2",        "--quiet"};
}

// A running `crawl` child; stderr goes to a file.
class Child {
 public:
  Child(const std::vector<std::string>& args, const std::string& err_path) {
    std::vector<std::string> storage = {std::string(CRAWL_BIN_DIR) + "/crawl"};
    storage.insert(storage.end(), args.begin(), args.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      std::FILE* err = std::fopen(err_path.c_str(), "w");
      if (err != nullptr) ::dup2(::fileno(err), STDERR_FILENO);
      std::vector<char*> argv;
      for (std::string& arg : storage) argv.push_back(arg.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  // A failed assertion must not leave a crawler running.
  ~Child() {
    if (!waited_) {
      ::kill(pid_, SIGKILL);
      Wait();
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  void Signal(int signal) { ::kill(pid_, signal); }
  // Exit code, or 128 + signal.
  int Wait() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    waited_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
  bool waited_ = false;
};

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Waits until the crawl wrote its first checkpoint (slow to start under the
// sanitizers); false after 30 s.
bool WaitForCheckpoint(const fs::path& state) {
  for (int i = 0; i < 3000; ++i) {
    if (fs::exists(state / "CURRENT")) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

struct RunResult {
  int exit_code;
  std::string err;
};

RunResult RunCrawl(const std::vector<std::string>& args, const std::string& dir) {
  const std::string err_path = dir + "/stderr.txt";
  Child child(args, err_path);
  const int code = child.Wait();
  return {code, ReadAll(err_path)};
}

std::vector<std::string> With(std::vector<std::string> args, std::vector<std::string> more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// Requests the server saw for the site's pages, and how many beyond one each.
int64_t DuplicatePageRequests(const testsite::TestSite& site) {
  int64_t extra = 0;
  for (const std::string& url : site.PageUrls()) {
    const uint64_t n = site.RequestCount(e2e::PathOf(url));
    EXPECT_GE(n, 1u) << url << " never fetched";
    if (n > 1) extra += static_cast<int64_t>(n - 1);
  }
  return extra;
}

// pages.jsonl: ends with a newline, each line parses, every page is there.
std::multiset<std::string> CheckPageLog(const std::string& out, const testsite::TestSite& site) {
  const std::string text = ReadAll(fs::path(out) / "pages.jsonl");
  EXPECT_FALSE(text.empty());
  if (!text.empty()) {
    EXPECT_EQ(text.back(), '\n') << "torn last line";
  }
  std::multiset<std::string> urls;
  for (const nlohmann::json& page : e2e::ReadPages(out))
    urls.insert(page["url"].get<std::string>());
  for (const std::string& url : site.PageUrls()) EXPECT_GE(urls.count(url), 1u) << url;
  return urls;
}

TEST(Resume, SurvivesKillNineAtSeveralMoments) {
  auto site = StartResumeSite();
  ASSERT_NE(site, nullptr);
  const std::string dir = e2e::FreshDir("resume-kill");
  const std::string out = dir + "/out";
  const std::string seeds = e2e::WriteFile(dir, "seeds.txt", site->RootUrl() + "\n");
  const std::vector<std::string> args = CrawlArgs(out, seeds);

  // Five kills, each after a different time; the first run starts the crawl,
  // the others resume it.
  const int kill_after_ms[] = {450, 150, 350, 250, 550};
  int kills = 0;
  for (int i = 0; i < 5; ++i) {
    Child child(
        i == 0 ? args : std::vector<std::string>{"--resume", "--state", out + "/state", "--quiet"},
        dir + "/stderr.txt");
    if (i == 0) {  // the others resume it
      ASSERT_TRUE(WaitForCheckpoint(out + "/state"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(kill_after_ms[i]));
    child.Signal(SIGKILL);
    const int code = child.Wait();
    if (code == 128 + SIGKILL) ++kills;
    ASSERT_TRUE(code == 128 + SIGKILL || code == 0) << code << ReadAll(dir + "/stderr.txt");
  }
  EXPECT_GE(kills, 4) << "the crawl ended before the kills: make the site slower";
  const RunResult last = RunCrawl({"--resume", "--state", out + "/state", "--quiet"}, dir);
  ASSERT_EQ(last.exit_code, 0) << last.err;

  const int64_t extra = DuplicatePageRequests(*site);
  const std::multiset<std::string> logged = CheckPageLog(out, *site);
  // The bound (README): per kill, the URLs in flight (<= connections being
  // fetched + 2 x connections waiting for a parser) plus the pages fetched
  // since the last checkpoint (<= connections x interval / latency; the
  // interval stretched to 0.4 s for scheduling and the save itself).
  const int64_t per_kill = 3 * kConnections + kConnections * 400 / kLatencyMs;
  EXPECT_LE(extra, kills * per_kill);
  EXPECT_LE(static_cast<int64_t>(logged.size()) - kResumePages, kills * per_kill);
  // The counters are those of the checkpoints: each page counted once.
  const nlohmann::json summary = e2e::ReadSummary(out);
  EXPECT_EQ(summary["pages"], kResumePages);
  EXPECT_EQ(summary["stop_reason"], "drained");
  std::printf("kills %d, extra page requests %lld (bound %lld), pages.jsonl lines %zu\n", kills,
              static_cast<long long>(extra), static_cast<long long>(kills * per_kill),
              logged.size());
}

TEST(Resume, SigintThenResumeFetchesNothingTwiceBeyondInFlight) {
  auto site = StartResumeSite();
  ASSERT_NE(site, nullptr);
  const std::string dir = e2e::FreshDir("resume-sigint");
  const std::string out = dir + "/out";
  const std::string seeds = e2e::WriteFile(dir, "seeds.txt", site->RootUrl() + "\n");
  {
    Child child(CrawlArgs(out, seeds), dir + "/stderr.txt");
    ASSERT_TRUE(WaitForCheckpoint(out + "/state"));
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    child.Signal(SIGINT);
    ASSERT_EQ(child.Wait(), 0) << ReadAll(dir + "/stderr.txt");
  }
  const nlohmann::json stopped = e2e::ReadSummary(out);
  ASSERT_EQ(stopped["stop_reason"], "signal");
  const int64_t before = stopped["pages"].get<int64_t>();
  EXPECT_GT(before, 0);
  EXPECT_LT(before, kResumePages);

  const RunResult resumed = RunCrawl({"--resume", "--state", out + "/state", "--quiet"}, dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_LE(DuplicatePageRequests(*site), kConnections);  // only what was in flight at the stop
  const std::multiset<std::string> logged = CheckPageLog(out, *site);
  EXPECT_EQ(logged.size(), static_cast<size_t>(kResumePages));  // a clean stop logs each page once
  EXPECT_EQ(std::set<std::string>(logged.begin(), logged.end()).size(), logged.size());
  const nlohmann::json summary = e2e::ReadSummary(out);
  EXPECT_EQ(summary["pages"], kResumePages);
  EXPECT_EQ(summary["stop_reason"], "drained");
  // The per-host counters continue across the resume like the crawl's.
  ASSERT_EQ(summary["hosts"].size(), 1u) << summary["hosts"].dump();
  EXPECT_EQ(summary["hosts"].begin().value()["pages"], kResumePages);
}

// A small crawl stopped by --max-pages, whose state the next tests resume.
std::string StoppedCrawl(const testsite::TestSite& site, const std::string& name) {
  const std::string dir = e2e::FreshDir(name);
  const std::string seeds = e2e::WriteFile(dir, "seeds.txt", site.RootUrl() + "\n");
  const RunResult run = RunCrawl(With(CrawlArgs(dir + "/out", seeds), {"--max-pages", "20"}), dir);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return dir;
}

TEST(Resume, ConflictingFlagIsAnErrorNamingItAndBothValues) {
  auto site = StartResumeSite(kSmallPages);
  ASSERT_NE(site, nullptr);
  const std::string dir = StoppedCrawl(*site, "resume-conflict");
  const std::string state = dir + "/out/state";
  const std::string pages_before = ReadAll(dir + "/out/pages.jsonl");

  RunResult run = RunCrawl({"--resume", "--state", state, "--delay", "2s", "--quiet"}, dir);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("--delay"));
  EXPECT_THAT(run.err, HasSubstr("'2s'"));
  EXPECT_THAT(run.err, HasSubstr("'0s'"));
  EXPECT_EQ(ReadAll(dir + "/out/pages.jsonl"), pages_before);

  // --max-pages may change: the crawl goes on to 40 pages in total.
  run = RunCrawl({"--resume", "--state", state, "--max-pages", "40", "--quiet"}, dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(e2e::ReadSummary(dir + "/out")["pages"], 40);
}

// A crawl directory moved elsewhere resumes there (the
// stored paths named where it was): pages.jsonl and summary.json are written
// in the moved directory, and the old place is not recreated.
TEST(Resume, AMovedCrawlDirectoryResumes) {
  auto site = StartResumeSite(kSmallPages);
  ASSERT_NE(site, nullptr);
  const std::string dir = StoppedCrawl(*site, "resume-moved");
  fs::rename(dir + "/out", dir + "/moved");
  const RunResult run =
      RunCrawl({"--resume", "--state", dir + "/moved/state", "--max-pages", "40", "--quiet"}, dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(e2e::ReadSummary(dir + "/moved")["pages"], 40);
  EXPECT_EQ(e2e::ReadPages(dir + "/moved").size(), 40u);
  EXPECT_FALSE(fs::exists(dir + "/out"));
}

TEST(Resume, ExistingStateNeedsResumeOrFresh) {
  auto site = StartResumeSite(kSmallPages);
  ASSERT_NE(site, nullptr);
  const std::string dir = StoppedCrawl(*site, "resume-fresh");
  const std::vector<std::string> args = CrawlArgs(dir + "/out", dir + "/seeds.txt");
  RunResult run = RunCrawl(args, dir);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("--resume"));
  EXPECT_THAT(run.err, HasSubstr("--fresh"));

  run = RunCrawl(With(args, {"--fresh"}), dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(e2e::ReadSummary(dir + "/out")["pages"], kSmallPages);
}

TEST(Resume, DamagedStateIsRefusedNamingTheFile) {
  auto site = StartResumeSite(kSmallPages);
  ASSERT_NE(site, nullptr);
  const std::string dir = StoppedCrawl(*site, "resume-damaged");
  const fs::path state = dir + "/out/state";
  const std::string current = [&] {
    std::string name;
    std::ifstream(state / "CURRENT") >> name;
    return name;
  }();
  const std::string pages_before = ReadAll(dir + "/out/pages.jsonl");
  for (const std::string name : {"frontier.json", "counters.json", "sieve.checkpoint"}) {
    for (const bool truncate : {false, true}) {
      SCOPED_TRACE(name + (truncate ? " truncated" : " byte flipped"));
      const fs::path path = state / current / name;
      const std::string good = ReadAll(path);
      std::string bad = good;
      if (truncate) {
        bad.resize(bad.size() / 2);
      } else {
        bad[bad.size() / 2] ^= 0x01;
      }
      std::ofstream(path, std::ios::binary | std::ios::trunc) << bad;
      const RunResult run = RunCrawl({"--resume", "--state", state.string(), "--quiet"}, dir);
      EXPECT_EQ(run.exit_code, 2) << run.err;
      EXPECT_THAT(run.err, HasSubstr(path.string()));
      EXPECT_EQ(ReadAll(path), bad);  // nothing modified
      EXPECT_EQ(ReadAll(dir + "/out/pages.jsonl"), pages_before);
      std::ofstream(path, std::ios::binary | std::ios::trunc) << good;
    }
  }
  const RunResult run =
      RunCrawl({"--resume", "--state", state.string(), "--max-pages", "0", "--quiet"}, dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(e2e::ReadSummary(dir + "/out")["pages"], kSmallPages);
}

TEST(Resume, LostStateDirectoryStopsTheCrawlWithItsLastCheckpointWhole) {
  auto site = StartResumeSite(kMediumPages);
  ASSERT_NE(site, nullptr);
  const std::string dir = e2e::FreshDir("resume-unwritable");
  const std::string out = dir + "/out";
  const std::string seeds = e2e::WriteFile(dir, "seeds.txt", site->RootUrl() + "\n");
  const fs::path state = out + "/state";
  Child child(CrawlArgs(out, seeds), dir + "/stderr.txt");
  ASSERT_TRUE(WaitForCheckpoint(state));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // The state folder moves away and a FILE takes its place: the next
  // checkpoint cannot be written (chmod would not stop root).
  fs::rename(state, dir + "/state-moved");
  std::ofstream(state) << "not a folder";
  const int code = child.Wait();
  const std::string err = ReadAll(dir + "/stderr.txt");
  EXPECT_EQ(code, 1) << err;
  EXPECT_THAT(err, HasSubstr("checkpoint"));
  EXPECT_THAT(err, HasSubstr(state.string()));

  fs::remove(state);
  fs::rename(dir + "/state-moved", state);
  const RunResult run = RunCrawl({"--resume", "--state", state.string(), "--quiet"}, dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  DuplicatePageRequests(*site);  // every page requested
  CheckPageLog(out, *site);
  EXPECT_EQ(e2e::ReadSummary(out)["pages"], kMediumPages);
}

// The cookie jar is part of the checkpoint. A cookie set before a
// SIGKILL is sent back by the resumed crawl, which never refetches the page
// that set it: the cookie can only have come from the state directory.
TEST(Resume, CookiesSetBeforeAKillAreSentBackAfterResume) {
  auto site = testsite::TestSite::Start({});
  ASSERT_TRUE(site.ok()) << site.status();
  std::atomic<int> set_calls{0};
  std::atomic<int> check_calls{0};
  std::mutex mu;
  std::vector<std::string> cookies_seen;  // guarded by mu
  (*site)->Handle("/set", [&](const httplib::Request&, httplib::Response& response) {
    ++set_calls;
    response.set_header("Set-Cookie", "session=abc123; Path=/");
    response.set_content("<html><a href=\"/check\">next</a></html>", "text/html");
  });
  (*site)->Handle("/check", [&](const httplib::Request& request, httplib::Response& response) {
    {
      std::lock_guard<std::mutex> lock(mu);
      cookies_seen.push_back(request.has_header("Cookie") ? request.get_header_value("Cookie")
                                                          : "<none>");
    }
    // The first request is held past the kill, so /check is unfinished in
    // every checkpoint and fetched again by the resumed crawl.
    if (++check_calls == 1) std::this_thread::sleep_for(std::chrono::seconds(3));
    response.set_content("<html>ok</html>", "text/html");
  });
  const std::string dir = e2e::FreshDir("resume-cookies");
  const std::string out = dir + "/out";
  const std::string seeds = e2e::WriteFile(dir, "seeds.txt", (*site)->BaseUrl() + "/set\n");
  const std::vector<std::string> args = {"--seeds",
                                         seeds,
                                         "--out",
                                         out,
                                         "--delay",
                                         "0",
                                         "--robots",
                                         "off",
                                         "--timeout",
                                         "10s",
                                         "--checkpoint-every",
                                         "0.1",
                                         "--quiet"};
  {
    Child child(args, dir + "/stderr.txt");
    for (int i = 0; i < 3000 && check_calls.load() == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(check_calls.load(), 1) << ReadAll(dir + "/stderr.txt");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // checkpoints after /set's Done
    child.Signal(SIGKILL);
    ASSERT_EQ(child.Wait(), 128 + SIGKILL);
  }
  const RunResult resumed = RunCrawl({"--resume", "--state", out + "/state", "--quiet"}, dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(set_calls.load(), 1);  // not refetched: the cookie came from the checkpoint
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_GE(cookies_seen.size(), 2u);
  EXPECT_EQ(cookies_seen.back(), "session=abc123");
}

}  // namespace
