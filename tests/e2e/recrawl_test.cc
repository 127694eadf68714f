// --recrawl end to end: the real `crawl` binary crawls the test
// site, the site moves to its next epoch (testsite/change_set.h: pages
// edited, removed, added), and a recrawl of the first crawl's output must
// count every kind exactly, send the validators it recorded, skip parsing
// what did not change, adapt each URL's interval and carry pages not due.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "testsite/test_site.h"

namespace {

testsite::SiteOptions ChangingSite(bool validators) {
  testsite::SiteOptions options;
  options.pages = 300;
  options.links_per_page = 8;
  options.changed_fraction = 0.1;
  options.removed_fraction = 0.02;
  options.added_fraction = 0.02;
  options.validators = validators;
  return options;
}

// `crawl` with the flags every run here shares, plus `extra`.
e2e::CommandResult RunCrawl(const std::string& out, std::vector<std::string> extra) {
  std::vector<std::string> args = {
      "--out",      out, "--quiet",       "--robots", "off",        "--delay", "0",
      "--per-host", "8", "--connections", "8",        "--expected", "100000"};
  args.insert(args.end(), extra.begin(), extra.end());
  return e2e::RunProgram("crawl", args, "", 120);
}

// pages.jsonl by URL (the last record of a URL wins; there is one each).
std::map<std::string, nlohmann::json> ByUrl(const std::string& out) {
  std::map<std::string, nlohmann::json> pages;
  for (nlohmann::json& page : e2e::ReadPages(out)) {
    const std::string url = page["url"];
    pages[url] = std::move(page);
  }
  return pages;
}

// The kind a record says it is: one of the recrawl flags, or "new"/"other".
std::string KindOf(const nlohmann::json& page) {
  for (const char* kind : {"not_modified", "unchanged", "changed", "gone", "carried"}) {
    if (page.value(kind, false)) return kind;
  }
  return page["status"] == 200 ? "new" : "other";
}

class Recrawl : public ::testing::Test {
 protected:
  void StartSite(bool validators) {
    auto site = testsite::TestSite::Start(ChangingSite(validators));
    ASSERT_TRUE(site.ok()) << site.status();
    site_ = std::move(*site);
    base_ = e2e::FreshDir("recrawl");
  }

  // The first crawl, at epoch 0, with intervals starting at 1 s.
  void CrawlEpochZero() {
    const e2e::CommandResult first =
        RunCrawl(Out(0), {"--revisit-min", "1s", "--revisit-max", "100s", site_->RootUrl()});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    ASSERT_EQ(ByUrl(Out(0)).size(), site_->PageUrls().size());
  }

  std::string Out(int run) const { return base_ + "/run" + std::to_string(run); }
  std::string Page(uint64_t page) const { return site_->PageUrl(page); }

  std::unique_ptr<testsite::TestSite> site_;
  std::string base_;
};

TEST_F(Recrawl, CountsMatchTheChangeSetAndTheValidatorsAreSentBack) {
  StartSite(/*validators=*/true);
  CrawlEpochZero();
  const std::map<std::string, nlohmann::json> before = ByUrl(Out(0));
  for (const auto& [url, page] : before) {
    EXPECT_TRUE(page.contains("etag") && page.contains("last_modified")) << url;
    EXPECT_EQ(page["revisit_s"], 1) << url;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // every interval (1 s) is due
  site_->SetEpoch(1);
  site_->ResetCounts();
  const e2e::CommandResult second =
      RunCrawl(Out(1), {"--recrawl", Out(0), "--revisit-min", "1s", "--revisit-max", "100s"});
  ASSERT_EQ(second.exit_code, 0) << second.err;

  const testsite::EpochChanges truth = site_->changes().Between(1);
  const size_t total = before.size();
  const nlohmann::json counts = e2e::ReadSummary(Out(1))["recrawl"];
  EXPECT_EQ(counts["changed"], truth.edited.size());
  EXPECT_EQ(counts["gone"], truth.removed.size());
  EXPECT_EQ(counts["new"], truth.added.size());
  EXPECT_EQ(counts["not_modified"], total - truth.edited.size() - truth.removed.size());
  EXPECT_EQ(counts["unchanged"], 0);
  EXPECT_EQ(counts["carried"], 0);
  EXPECT_GT(counts["bytes_saved"].get<int64_t>(), 0);

  const std::map<std::string, nlohmann::json> after = ByUrl(Out(1));
  for (const uint64_t page : truth.edited) EXPECT_EQ(KindOf(after.at(Page(page))), "changed");
  for (const uint64_t page : truth.removed) EXPECT_EQ(KindOf(after.at(Page(page))), "gone");
  for (const uint64_t page : truth.added) {
    EXPECT_EQ(KindOf(after.at(Page(page))), "new");
    EXPECT_EQ(after.at(Page(page))["revisit_s"], 1);  // starts at --revisit-min
  }
  for (const auto& [url, page] : after) {
    if (KindOf(page) == "not_modified") {
      EXPECT_EQ(page["revisit_s"], 2) << url;                      // doubled
      EXPECT_EQ(page["digest"], before.at(url)["digest"]) << url;  // carried over the 304
      EXPECT_EQ(page["links_found"], 0) << url;                    // nothing to parse
    }
    if (KindOf(page) == "changed") {
      EXPECT_EQ(page["revisit_s"], 1) << url;  // halved, at the min
    }
  }
  // Every previous page was asked for with the validators recorded for it;
  // the new pages without any; nothing was asked twice.
  for (const testsite::RequestRecord& request : site_->RequestLog()) {
    const std::string url = site_->BaseUrl() + request.path;
    if (before.contains(url)) {
      EXPECT_EQ(request.if_none_match, before.at(url)["etag"]) << url;
      EXPECT_EQ(request.if_modified_since, before.at(url)["last_modified"]) << url;
    } else {
      EXPECT_EQ(request.if_none_match, "") << url;
    }
  }
  EXPECT_EQ(site_->TotalRequests(), total + truth.added.size());
}

TEST_F(Recrawl, WithoutValidatorsUnchangedPagesAreKnownByTheirDigestAndNotParsed) {
  StartSite(/*validators=*/false);
  CrawlEpochZero();
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  site_->SetEpoch(1);
  const e2e::CommandResult second =
      RunCrawl(Out(1), {"--recrawl", Out(0), "--revisit-min", "1s", "--revisit-max", "100s"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const testsite::EpochChanges truth = site_->changes().Between(1);
  const nlohmann::json counts = e2e::ReadSummary(Out(1))["recrawl"];
  const size_t total = site_->PageUrls().size();
  EXPECT_EQ(counts["unchanged"], total - truth.edited.size() - truth.removed.size());
  EXPECT_EQ(counts["not_modified"], 0);
  EXPECT_EQ(counts["changed"], truth.edited.size());
  EXPECT_EQ(counts["new"], truth.added.size());
  for (const auto& [url, page] : ByUrl(Out(1))) {
    if (KindOf(page) == "unchanged") {
      EXPECT_EQ(page["links_found"], 0) << url;
      EXPECT_EQ(page["revisit_s"], 2) << url;
    }
  }
}

TEST_F(Recrawl, IntervalsHalveAndDoubleAcrossRecrawlsAndPagesNotDueAreCarried) {
  StartSite(/*validators=*/true);
  CrawlEpochZero();
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  site_->SetEpoch(1);
  ASSERT_EQ(RunCrawl(Out(1), {"--recrawl", Out(0), "--revisit-min", "1s", "--revisit-max", "100s"})
                .exit_code,
            0);
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));  // intervals of 2 s are due
  site_->SetEpoch(2);
  const e2e::CommandResult third =
      RunCrawl(Out(2), {"--recrawl", Out(1), "--revisit-min", "1s", "--revisit-max", "100s"});
  ASSERT_EQ(third.exit_code, 0) << third.err;
  const std::map<std::string, nlohmann::json> second = ByUrl(Out(1));
  const std::map<std::string, nlohmann::json> recrawl2 = ByUrl(Out(2));
  const testsite::EpochChanges truth = site_->changes().Between(2);
  std::set<std::string> edited;
  for (const uint64_t page : truth.edited) edited.insert(Page(page));
  for (const auto& [url, page] : recrawl2) {
    if (!second.contains(url) || KindOf(second.at(url)) == "gone") continue;
    const int64_t was = second.at(url)["revisit_s"];
    if (edited.contains(url)) {
      EXPECT_EQ(KindOf(page), "changed") << url;
      EXPECT_EQ(page["revisit_s"], std::max<int64_t>(1, was / 2)) << url;
    } else if (KindOf(page) != "gone") {
      EXPECT_EQ(KindOf(page), "not_modified") << url;
      EXPECT_EQ(page["revisit_s"], std::min<int64_t>(100, was * 2)) << url;
    }
  }
  EXPECT_EQ(e2e::ReadSummary(Out(2))["recrawl"]["changed"], truth.edited.size());

  // Right away, with intervals of at least 1 h: nothing is due. Every page is
  // carried, with no request, keeping its validators and last fetch; and a
  // recrawl of that carries them again, unchanged.
  site_->ResetCounts();
  ASSERT_EQ(RunCrawl(Out(3), {"--recrawl", Out(2), "--revisit-min", "1h"}).exit_code, 0);
  ASSERT_EQ(RunCrawl(Out(4), {"--recrawl", Out(3), "--revisit-min", "1h"}).exit_code, 0);
  EXPECT_EQ(site_->TotalRequests(), 0u);
  const std::map<std::string, nlohmann::json> carried = ByUrl(Out(4));
  size_t revisited = 0;
  for (const auto& [url, page] : recrawl2) {
    // The pages it fetched; not its 404s (gone, or links to pages gone before).
    revisited += page["status"] == 200 || page.value("not_modified", false);
  }
  EXPECT_EQ(carried.size(), revisited);
  EXPECT_EQ(e2e::ReadSummary(Out(4))["recrawl"]["carried"], revisited);
  for (const auto& [url, page] : carried) {
    EXPECT_EQ(KindOf(page), "carried") << url;
    EXPECT_EQ(page["revisit_s"], 3600) << url;  // raised to the new minimum, then kept
    EXPECT_EQ(page["fetched_at"], recrawl2.at(url)["fetched_at"]) << url;
    EXPECT_EQ(page["etag"], recrawl2.at(url)["etag"]) << url;
    EXPECT_EQ(page["digest"], recrawl2.at(url)["digest"]) << url;
  }
}

TEST_F(Recrawl, ADamagedPreviousLineFailsNamingItWithStrictAndIsSkippedAndCountedWithout) {
  StartSite(/*validators=*/true);
  CrawlEpochZero();
  // Line 3 of the previous log is torn.
  const std::string log = Out(0) + "/pages.jsonl";
  std::ifstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  in.close();
  lines[2] = lines[2].substr(0, lines[2].size() / 2);
  std::ofstream out(log, std::ios::trunc);
  for (const std::string& line : lines) out << line << "\n";
  out.close();

  const e2e::CommandResult strict = RunCrawl(Out(1), {"--recrawl", Out(0), "--strict"});
  EXPECT_EQ(strict.exit_code, 2) << strict.err;
  EXPECT_NE(strict.err.find(log + ":3: damaged record"), std::string::npos) << strict.err;

  const e2e::CommandResult lenient = RunCrawl(Out(2), {"--recrawl", Out(0), "--revisit-min", "1h"});
  ASSERT_EQ(lenient.exit_code, 0) << lenient.err;
  const nlohmann::json counts = e2e::ReadSummary(Out(2))["recrawl"];
  EXPECT_EQ(counts["previous_lines_skipped"], 1);
  EXPECT_EQ(counts["carried"], lines.size() - 1);
}

// warcio's verdict on `files` (tests/crawler/warc/validate_warc.mjs, a reader
// we did not write): its JSON summary, or {"failed": output} when it failed
// or could not run (no node, no warcio: a failure, not a skip).
// `expect_path`: its --expect file ("" for none).
nlohmann::json ValidateWithWarcio(const std::vector<std::string>& files,
                                  const std::string& expect_path = "") {
  std::string command =
      "node " + std::string(CRAWL_SOURCE_DIR) + "/tests/crawler/warc/validate_warc.mjs";
  if (!expect_path.empty()) command += " --expect " + expect_path;
  for (const std::string& file : files) command += " " + file;
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {{"failed", "popen"}};
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  const int status = ::pclose(pipe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return {{"failed", output}};
  return nlohmann::json::parse(output, nullptr, /*allow_exceptions=*/false);
}

std::vector<std::string> WarcFilesUnder(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().string().ends_with(".warc.gz")) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

uint64_t BytesOf(const std::vector<std::string>& files) {
  uint64_t bytes = 0;
  for (const std::string& file : files) bytes += std::filesystem::file_size(file);
  return bytes;
}

// A recrawl's archive holds only what changed. A 304 (with
// validators) or an unchanged 200 (without) is a `revisit` record of that
// profile naming the previous crawl's record of the URL by URI and WARC-Date;
// warcio reads both archives together and finds every revisit's original.
TEST_F(Recrawl, WithWarcA304OrAnUnchangedPageIsARevisitOfThePreviousCrawlsRecord) {
  for (const bool validators : {true, false}) {
    SCOPED_TRACE(validators ? "validators: 304s" : "no validators: unchanged 200s");
    StartSite(validators);
    const e2e::CommandResult first = RunCrawl(
        Out(0), {"--revisit-min", "1s", "--warc", Out(0) + "/warc/crawl", site_->RootUrl()});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    site_->SetEpoch(1);
    const e2e::CommandResult second = RunCrawl(
        Out(1), {"--recrawl", Out(0), "--revisit-min", "1s", "--warc", Out(1) + "/warc/crawl"});
    ASSERT_EQ(second.exit_code, 0) << second.err;

    // Each such page's pages.jsonl offset holds a revisit of that profile
    // whose original is the first crawl's record of the URL.
    const char* kind = validators ? "not_modified" : "unchanged";
    const char* profile = validators ? "server-not-modified" : "identical-payload-digest";
    const std::map<std::string, nlohmann::json> previous = ByUrl(Out(0));
    nlohmann::json expect;
    expect["locations"] = nlohmann::json::array();
    for (const auto& [url, page] : ByUrl(Out(1))) {
      if (KindOf(page) != kind) continue;
      EXPECT_TRUE(page.contains("warc_offset")) << url;
      expect["locations"].push_back({{"file", page["warc_file"]},
                                     {"offset", page["warc_offset"]},
                                     {"uri", url},
                                     {"profile", profile},
                                     {"original_file", previous.at(url)["warc_file"]}});
    }
    const std::vector<std::string> before = WarcFilesUnder(Out(0) + "/warc");
    const std::vector<std::string> after = WarcFilesUnder(Out(1) + "/warc");
    const nlohmann::json alone = ValidateWithWarcio(before);
    std::vector<std::string> both = before;
    both.insert(both.end(), after.begin(), after.end());
    const nlohmann::json together =
        ValidateWithWarcio(both, e2e::WriteFile(base_, "expect.json", expect.dump()));
    ASSERT_FALSE(alone.contains("failed")) << alone.dump();
    ASSERT_FALSE(together.contains("failed")) << together.dump();  // every revisit's original found

    const nlohmann::json counts = e2e::ReadSummary(Out(1))["recrawl"];
    const int64_t same = validators ? counts["not_modified"] : counts["unchanged"];
    ASSERT_GT(same, 200);
    ASSERT_EQ(expect["locations"].size(), same);
    const auto added = [&](const char* key) {
      return together[key].get<int64_t>() - alone[key].get<int64_t>();
    };
    // One record a fetch; a full response only for what changed, appeared
    // or went (the 404s, whose equal bodies after the first are revisits
    // within the recrawl, profile identical-payload-digest).
    EXPECT_EQ(added("responses") + added("revisits"), same + counts["changed"].get<int64_t>() +
                                                          counts["new"].get<int64_t>() +
                                                          counts["gone"].get<int64_t>());
    EXPECT_LE(added("responses"), counts["changed"].get<int64_t>() + counts["new"].get<int64_t>() +
                                      counts["gone"].get<int64_t>());
    if (validators) {
      EXPECT_EQ(together["profiles"].value("server-not-modified", 0), same);
    }
    // Headers instead of bodies: ~10% of the site changed, so the recrawl's
    // archive is a fraction of the first one's.
    EXPECT_LT(BytesOf(after), BytesOf(before) / 2);
    site_.reset();
  }
}

// An unchanged page is not parsed again, so a URL only it links to is
// reached in a recrawl only if the previous log's record of it is queued:
// redirects and failures are asked again (plainly, no validators), a page
// gone is not.
TEST_F(Recrawl, RedirectsAndFailuresOfThePreviousCrawlAreAskedAgainAndGonePagesAreNot) {
  testsite::SiteOptions options = ChangingSite(/*validators=*/true);
  options.redirects = true;  // some links go through /r/<i> -> 301 -> the page
  auto site = testsite::TestSite::Start(options);
  ASSERT_TRUE(site.ok()) << site.status();
  site_ = std::move(*site);
  base_ = e2e::FreshDir("recrawl-failures");
  auto failing = std::make_shared<std::atomic<bool>>(true);
  site_->Handle("/flaky.html", [failing](const httplib::Request&, httplib::Response& response) {
    if (failing->load()) {
      response.status = 503;
      response.set_content("busy", "text/plain");
    } else {
      response.set_content("<html><body>back</body></html>", "text/html");
    }
  });
  const std::string flaky = site_->BaseUrl() + "/flaky.html";
  const std::vector<std::string> flags = {"--revisit-min", "1s", "--retries", "0"};
  std::vector<std::string> first = flags;
  first.insert(first.end(), {site_->RootUrl(), flaky});
  ASSERT_EQ(RunCrawl(Out(0), first).exit_code, 0);
  const std::map<std::string, nlohmann::json> before = ByUrl(Out(0));
  ASSERT_EQ(before.at(flaky)["status"], 503);
  std::vector<std::string> redirects;
  for (const auto& [url, page] : before) {
    if (page["status"] == 301) redirects.push_back(url);
  }
  ASSERT_GT(redirects.size(), 10u);

  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  site_->SetEpoch(1);
  site_->ResetCounts();
  failing->store(false);
  std::vector<std::string> second = flags;
  second.insert(second.end(), {"--recrawl", Out(0)});
  const e2e::CommandResult run = RunCrawl(Out(1), second);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::map<std::string, nlohmann::json> after = ByUrl(Out(1));
  EXPECT_EQ(site_->RequestCount("/flaky.html"), 1u);
  EXPECT_EQ(after.at(flaky)["status"], 200);
  EXPECT_EQ(KindOf(after.at(flaky)), "new");  // a page the previous crawl did not have
  for (const std::string& url : redirects) {
    EXPECT_EQ(site_->RequestCount(url), 1u) << url;
    EXPECT_EQ(after.at(url)["status"], 301) << url;
  }
  for (const testsite::RequestRecord& request : site_->RequestLog()) {
    if (request.path == "/flaky.html" || request.path.starts_with("/r/")) {
      EXPECT_EQ(request.if_none_match, "") << request.path;  // asked plainly
    }
  }

  // The pages gone in that recrawl are not asked for in the next one (where
  // nothing changed, so no page is parsed), but through a redirect to them.
  const testsite::EpochChanges truth = site_->changes().Between(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  site_->ResetCounts();
  std::vector<std::string> third = flags;
  third.insert(third.end(), {"--recrawl", Out(1)});
  ASSERT_EQ(RunCrawl(Out(2), third).exit_code, 0);
  const std::map<std::string, nlohmann::json> last = ByUrl(Out(2));
  for (const uint64_t page : truth.removed) {
    ASSERT_EQ(KindOf(after.at(Page(page))), "gone");
    if (last.contains(Page(page))) {
      const nlohmann::json& from = last.at(Page(page))["parent"];
      const std::string parent = from.is_string() ? from.get<std::string>() : "";
      EXPECT_TRUE(parent.starts_with(site_->BaseUrl() + "/r/")) << Page(page) << " from " << parent;
    }
  }
}

// Starts `crawl` with `args` in a child process (stderr to `err_path`).
pid_t StartCrawl(std::vector<std::string> args, const std::string& err_path) {
  args.insert(args.begin(), std::string(CRAWL_BIN_DIR) + "/crawl");
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::FILE* err = std::fopen(err_path.c_str(), "w");
    if (err != nullptr) ::dup2(::fileno(err), STDERR_FILENO);
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

TEST_F(Recrawl, KilledWithSigkillAndResumedItStillCountsEveryKindExactly) {
  testsite::SiteOptions options = ChangingSite(/*validators=*/true);
  options.latency_ms = 20;  // 2 connections: ~3 s for the recrawl, so the kill lands mid-way
  auto site = testsite::TestSite::Start(options);
  ASSERT_TRUE(site.ok()) << site.status();
  site_ = std::move(*site);
  base_ = e2e::FreshDir("recrawl-kill");
  CrawlEpochZero();
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  site_->SetEpoch(1);
  site_->ResetCounts();
  const std::vector<std::string> flags = {"--out", Out(1),          "--quiet", "--robots",
                                          "off",   "--delay",       "0",       "--connections",
                                          "2",     "--per-host",    "2",       "--checkpoint-every",
                                          "0.2",   "--recrawl",     Out(0),    "--revisit-min",
                                          "1s",    "--revisit-max", "100s"};
  const pid_t first = StartCrawl(flags, base_ + "/err1.txt");
  for (int i = 0; i < 3000 && !std::filesystem::exists(Out(1) + "/state/CURRENT"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  ::kill(first, SIGKILL);
  int status = 0;
  ::waitpid(first, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the recrawl ended before the kill: slow the site";

  std::vector<std::string> resume = flags;
  resume.push_back("--resume");
  const pid_t second = StartCrawl(resume, base_ + "/err2.txt");
  ::waitpid(second, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  const testsite::EpochChanges truth = site_->changes().Between(1);
  const size_t total = site_->PageUrls().size();
  const nlohmann::json counts = e2e::ReadSummary(Out(1))["recrawl"];
  EXPECT_EQ(counts["changed"], truth.edited.size());
  EXPECT_EQ(counts["gone"], truth.removed.size());
  EXPECT_EQ(counts["new"], truth.added.size());
  EXPECT_EQ(counts["not_modified"], total - truth.edited.size() - truth.removed.size());
  // Every URL recorded, none lost. Pages finished after the last checkpoint
  // are fetched and recorded again (README, "Resume": their records may
  // appear twice): 0.2 s of 2 connections at 20 ms a page, plus the 2 in
  // flight, ~22, with room for a slow machine.
  const std::vector<nlohmann::json> records = e2e::ReadPages(Out(1));
  std::set<std::string> urls;
  for (const nlohmann::json& page : records) urls.insert(page["url"].get<std::string>());
  EXPECT_EQ(urls.size(), total + truth.added.size());
  EXPECT_LE(records.size() - urls.size(), 60u);
  EXPECT_LE(site_->TotalRequests(), total + truth.added.size() + 60);
}

TEST(RecrawlFlags, AMissingPreviousCrawlIsAUsageErrorNamingTheFile) {
  const std::string dir = e2e::FreshDir("recrawl-missing");
  const e2e::CommandResult run = RunCrawl(dir + "/new", {"--recrawl", dir + "/nowhere"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find(dir + "/nowhere/pages.jsonl"), std::string::npos) << run.err;
  const e2e::CommandResult bounds =
      RunCrawl(dir + "/new", {"--recrawl", dir, "--revisit-min", "2d", "--revisit-max", "1d"});
  EXPECT_EQ(bounds.exit_code, 2);
  EXPECT_NE(bounds.err.find("--revisit-min"), std::string::npos) << bounds.err;
}

}  // namespace
