// RobotsGate: the verdict table with a real Frontier and RobotsCache; the test
// plays the Fetcher (it sees every request the gate submits and answers it).
// Source of truth: RFC 9309 2.3.1 for outcomes and redirects; the parking,
// requeue and give-up rules are our own (robots_gate.h).
#include "crawler/robots_gate.h"

#include <chrono>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "crawler/robots_outcome.h"
#include "gtest/gtest.h"
#include "sieve/sieve.h"

namespace crawler {
namespace {

class GateTest : public ::testing::Test {
 protected:
  void SetUp() override { Build(RobotsGateOptions{}); }

  void Build(const RobotsGateOptions& gate_options, int per_host = 4,
             absl::Duration delay = absl::ZeroDuration()) {
    gate_.reset();
    frontier_.reset();
    sieve::SieveOptions sieve_options;
    sieve_options.expected_count = 10000;
    sieve_options.fp_rate = 0.001;
    sieve_options.queue_memory_budget_bytes = 1 << 20;
    sieve_ = std::move(*sieve::Sieve::Create(sieve_options));
    FrontierOptions options;
    options.per_host = per_host;
    options.delay = delay;
    frontier_ = std::move(*Frontier::Create(sieve_.get(), options));
    RobotsCacheOptions cache_options;
    cache_options.first_retry = std::chrono::seconds(1);
    cache_ = std::move(*RobotsCache::Create(cache_options));
    RobotsGateHooks hooks;
    hooks.submit = [this](FetchRequest request) {
      requests_.push_back(request);
      return true;
    };
    hooks.on_blocked = [this](const CrawlUrl& url, const std::string& error) {
      blocked_.push_back(url.url + " " + error);
      const bool checkpoint_could_run = commit_mu_.try_lock();
      if (checkpoint_could_run) commit_mu_.unlock();
      blocked_under_commit_scope_.push_back(!checkpoint_could_run);
    };
    hooks.commit_scope = [this] { return std::shared_lock<std::shared_mutex>(commit_mu_); };
    hooks.on_sitemap_urls = [this](const std::vector<std::string>& urls, const std::vector<double>&,
                                   const std::string&) {
      sitemap_urls_.insert(sitemap_urls_.end(), urls.begin(), urls.end());
    };
    gate_ = std::make_unique<RobotsGate>(cache_.get(), frontier_.get(), gate_options, hooks);
  }

  void Offer(const std::string& url) {
    CrawlUrl u;
    u.url = url;
    ASSERT_TRUE(frontier_->Offer(u));
  }

  // Admits everything the frontier and the gate have ready; returns what may
  // be fetched now.
  std::vector<std::string> Pump() {
    std::vector<std::string> fetch;
    for (;;) {
      const absl::Time now = absl::Now();
      std::optional<CrawlUrl> url = gate_->TakeReady(now);
      if (!url) url = frontier_->Next(now);
      if (!url) return fetch;
      if (url->sitemap) {  // what the crawl's scheduler does with them
        gate_->FetchSitemap(std::move(*url));
        continue;
      }
      if (url = gate_->Admit(std::move(*url), now); url) {
        fetch.push_back(url->url);
        fetch_times_.push_back(now);
        FetchOutcome ok;
        ok.status = 200;
        frontier_->Release(*url, ok, now);
        frontier_->Done(*url);
      }
    }
  }

  // Answers the gate's last request, or its request number `i`.
  void Answer(long status, const std::string& body = "", const std::string& location = "") {
    ASSERT_FALSE(requests_.empty());
    AnswerTo(requests_.size() - 1, status, body, location);
  }
  void AnswerTo(size_t i, long status, const std::string& body = "",
                const std::string& location = "") {
    ASSERT_LT(i, requests_.size());
    FetchResult result;
    result.tag = requests_[i].tag;
    result.url = requests_[i].url;
    result.status = status;
    result.body = body;
    result.location = location;
    gate_->OnFetched(std::move(result));
  }

  std::unique_ptr<sieve::Sieve> sieve_;
  std::unique_ptr<Frontier> frontier_;
  std::unique_ptr<RobotsCache> cache_;
  std::unique_ptr<RobotsGate> gate_;
  std::vector<FetchRequest> requests_;
  std::vector<absl::Time> fetch_times_;  // when Pump let each page be fetched
  std::vector<std::string> blocked_;
  std::shared_mutex commit_mu_;                   // plays Checkpointer's lock
  std::vector<bool> blocked_under_commit_scope_;  // per on_blocked call
  std::vector<std::string> sitemap_urls_;
};

TEST_F(GateTest, OneRobotsFetchPerAuthorityOthersParkedThenChecked) {
  Offer("http://a.test/1");
  Offer("http://a.test/private/2");
  Offer("http://a.test/3");
  EXPECT_TRUE(Pump().empty());  // the first triggers robots.txt, the others wait
  ASSERT_EQ(requests_.size(), 1u);
  EXPECT_EQ(requests_[0].url, "http://a.test:80/robots.txt");
  EXPECT_TRUE(RobotsGate::OwnsTag(requests_[0].tag));
  EXPECT_FALSE(gate_->Idle());
  EXPECT_EQ(gate_->Stats().parked, 2u);

  Answer(200, "User-agent: *\nDisallow: /private\n");
  const std::vector<std::string> fetched = Pump();
  EXPECT_EQ(fetched, (std::vector<std::string>{"http://a.test/1", "http://a.test/3"}));
  EXPECT_EQ(blocked_, (std::vector<std::string>{"http://a.test/private/2 robots"}));
  // The record was written with the commit scope held (a checkpoint sees the
  // record and the Done together), and the scope ended with the block.
  EXPECT_EQ(blocked_under_commit_scope_, std::vector<bool>{true});
  EXPECT_TRUE(commit_mu_.try_lock());
  commit_mu_.unlock();
  EXPECT_EQ(requests_.size(), 1u);
  EXPECT_TRUE(gate_->Idle());
  EXPECT_TRUE(frontier_->Exhausted());
  EXPECT_EQ(gate_->Stats().robots_fetches, 1u);
  EXPECT_EQ(gate_->Stats().blocked, 1u);
}

// URLs of one host handed out while its robots.txt was being fetched (several
// slots, spaced by the delay) must not all start at once when it arrives:
// they give their slots back while parked and leave their host queue again,
// spaced by the delay.
TEST_F(GateTest, UrlsThatWaitedForRobotsStillLeaveSpacedByTheDelay) {
  constexpr absl::Duration kDelay = absl::Milliseconds(50);
  Build(RobotsGateOptions{}, /*per_host=*/4, kDelay);
  for (int i = 1; i <= 4; ++i) Offer("http://a.test/" + std::to_string(i));
  const absl::Time start = absl::Now();
  // Let the host's delay pass three times while robots.txt is out: each
  // time one more URL is handed out and parks.
  while (gate_->Stats().parked < 3 && absl::Now() - start < absl::Seconds(5)) {
    EXPECT_TRUE(Pump().empty());
    absl::SleepFor(absl::Milliseconds(5));
  }
  ASSERT_EQ(gate_->Stats().parked, 3u);
  ASSERT_EQ(requests_.size(), 1u);
  Answer(200, "User-agent: *\nAllow: /\n");
  EXPECT_EQ(gate_->Stats().parked, 0u);
  std::vector<std::string> fetched;
  for (int round = 0; fetched.size() < 4 && round < 1000; ++round) {
    const std::vector<std::string> now_fetched = Pump();
    EXPECT_LE(now_fetched.size(), 1u) << "several pages of one host started at once";
    fetched.insert(fetched.end(), now_fetched.begin(), now_fetched.end());
    absl::SleepFor(absl::Milliseconds(2));
  }
  EXPECT_EQ(fetched, (std::vector<std::string>{"http://a.test/1", "http://a.test/2",
                                               "http://a.test/3", "http://a.test/4"}));
  ASSERT_EQ(fetch_times_.size(), 4u);
  for (size_t i = 1; i < fetch_times_.size(); ++i) {
    EXPECT_GE(fetch_times_[i] - fetch_times_[i - 1], kDelay) << "page " << i + 1;
  }
  EXPECT_TRUE(gate_->Idle());
  EXPECT_TRUE(frontier_->Exhausted());
}

TEST_F(GateTest, RfcRedirectsFollowedFiveHopsThenUnavailable) {
  Offer("http://a.test/x");
  Pump();
  for (int hop = 0; hop < kRobotsMaxRedirects; ++hop) {
    Answer(301, "", "http://b.test/r" + std::to_string(hop));
    ASSERT_EQ(requests_.size(), static_cast<size_t>(hop + 2));
    EXPECT_EQ(requests_.back().url, "http://b.test/r" + std::to_string(hop));
  }
  Answer(301, "", "http://b.test/too-far");  // sixth redirect: not followed
  EXPECT_EQ(requests_.size(), 6u);
  EXPECT_EQ(Pump(), std::vector<std::string>{"http://a.test/x"});  // 3xx: allow all
  EXPECT_TRUE(gate_->Idle());
}

TEST_F(GateTest, RfcRedirectTargetRulesApplyToTheOriginalAuthority) {
  Offer("http://a.test/no");
  Offer("http://a.test/yes");
  Pump();
  Answer(302, "", "http://cdn.test/robots-of-a.txt");
  Answer(200, "User-agent: *\nDisallow: /no\n");
  EXPECT_EQ(Pump(), std::vector<std::string>{"http://a.test/yes"});
  EXPECT_EQ(blocked_, std::vector<std::string>{"http://a.test/no robots"});
}

TEST_F(GateTest, UnreachableParksUntilRetryThenGivesUp) {
  RobotsGateOptions options;
  options.max_tries = 2;
  Build(options);
  Offer("http://a.test/1");
  Offer("http://b.test/1");
  Pump();
  ASSERT_EQ(requests_.size(), 2u);
  const size_t a = requests_[0].url == "http://a.test:80/robots.txt" ? 0 : 1;
  AnswerTo(1 - a, 404);  // b.test: no robots.txt, all allowed
  AnswerTo(a, 503);
  EXPECT_EQ(Pump(), std::vector<std::string>{"http://b.test/1"});  // other hosts go on
  EXPECT_FALSE(gate_->Idle());                                     // a.test/1 parked
  EXPECT_GT(gate_->NextWakeTime(), absl::Now() + absl::Milliseconds(500));
  EXPECT_EQ(requests_.size(), 2u);  // no busy refetch

  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // first_retry: 1 s
  EXPECT_TRUE(Pump().empty());
  ASSERT_EQ(requests_.size(), 3u);
  EXPECT_EQ(requests_[2].url, "http://a.test:80/robots.txt");
  FetchResult timeout;
  timeout.tag = requests_[2].tag;
  timeout.error = "timeout";
  gate_->OnFetched(std::move(timeout));  // second unreachable answer: give up
  EXPECT_TRUE(Pump().empty());
  EXPECT_EQ(blocked_, std::vector<std::string>{
                          "http://a.test/1 robots_unreachable: robots.txt timeout (2 tries)"});
  EXPECT_TRUE(gate_->Idle());
  EXPECT_TRUE(frontier_->Exhausted());
  EXPECT_EQ(gate_->Stats().gave_up, 1u);
}

TEST_F(GateTest, SitemapsFetchedOnceAndIndexDepthBounded) {
  RobotsGateOptions options;
  options.sitemaps = true;
  options.max_sitemap_depth = 1;
  Build(options);
  Offer("http://a.test/1");
  Pump();
  Answer(200, "Sitemap: http://a.test/index.xml\nSitemap: http://a.test/index.xml\n");
  EXPECT_EQ(requests_.size(), 1u);  // the sitemap waits in its host queue
  EXPECT_EQ(Pump(), std::vector<std::string>{"http://a.test/1"});
  ASSERT_EQ(requests_.size(), 2u);  // the duplicate line is fetched once
  EXPECT_EQ(requests_[1].url, "http://a.test/index.xml");
  Answer(200,
         "<sitemapindex><sitemap><loc>http://a.test/s1.xml</loc></sitemap>"
         "<sitemap><loc>http://a.test/s2.xml</loc></sitemap></sitemapindex>");
  EXPECT_TRUE(Pump().empty());
  ASSERT_EQ(requests_.size(), 4u);
  AnswerTo(2, 200, "<urlset><url><loc>http://a.test/u1</loc></url></urlset>");
  AnswerTo(3, 200,
           "<sitemapindex><sitemap><loc>http://a.test/deeper.xml</loc></sitemap></sitemapindex>");
  EXPECT_TRUE(Pump().empty());
  EXPECT_EQ(requests_.size(), 4u);  // deeper.xml is below max_sitemap_depth
  EXPECT_EQ(sitemap_urls_, std::vector<std::string>{"http://a.test/u1"});
  EXPECT_TRUE(gate_->Idle());
  EXPECT_TRUE(frontier_->Exhausted());
  EXPECT_EQ(gate_->Stats().sitemap_fetches, 3u);
  EXPECT_EQ(gate_->Stats().sitemap_urls, 1u);
}

// Sitemaps are requests to a host like pages: with --per-host 1 a sitemap
// waits while a page of its host is being fetched, and holds the slot itself.
TEST_F(GateTest, SitemapFetchWaitsForItsHostsSlotAndHoldsIt) {
  RobotsGateOptions options;
  options.sitemaps = true;
  Build(options, /*per_host=*/1);
  Offer("http://a.test/1");
  Pump();
  Answer(200, "Sitemap: http://a.test/map.xml\n");
  const absl::Time now = absl::Now();
  std::optional<CrawlUrl> page = frontier_->Next(now);
  ASSERT_TRUE(page.has_value());
  page = gate_->Admit(std::move(*page), now);
  ASSERT_TRUE(page.has_value());  // a.test/1, in flight
  EXPECT_EQ(page->url, "http://a.test/1");
  EXPECT_FALSE(frontier_->Next(now).has_value());  // one slot, taken
  EXPECT_EQ(requests_.size(), 1u);                 // so the sitemap is not fetched yet
  FetchOutcome ok;
  ok.status = 200;
  frontier_->Release(*page, ok, now);
  frontier_->Done(*page);
  std::optional<CrawlUrl> sitemap = frontier_->Next(now);
  ASSERT_TRUE(sitemap.has_value());
  EXPECT_TRUE(sitemap->sitemap);
  EXPECT_EQ(sitemap->url, "http://a.test/map.xml");
  gate_->FetchSitemap(std::move(*sitemap));
  ASSERT_EQ(requests_.size(), 2u);
  Offer("http://a.test/2");
  EXPECT_TRUE(Pump().empty());  // the sitemap holds the slot
  Answer(200, "<urlset><url><loc>http://a.test/3</loc></url></urlset>");
  EXPECT_EQ(Pump(), std::vector<std::string>{"http://a.test/2"});  // the slot is back
  EXPECT_EQ(frontier_->Stats().handed_out, 2u);                    // the sitemap is not a page
}

// --sitemap: sitemaps given at the start take the robots.txt sitemaps' path
// (fetched once, no robots.txt needed first, visible to the end check), and
// with obey_robots off (--robots off) pages pass without any robots.txt.
TEST_F(GateTest, GivenSitemapsAreQueuedOnceAndKeepTheCrawlGoing) {
  RobotsGateOptions options;
  options.obey_robots = false;
  Build(options);
  gate_->QueueSitemapUrls({"http://a.test/map.xml.gz", "http://a.test/map.xml.gz"});
  EXPECT_FALSE(frontier_->Exhausted()) << "queued sitemaps are work for the end check";
  EXPECT_TRUE(Pump().empty());
  ASSERT_EQ(requests_.size(), 1u);  // once, and no robots.txt first
  EXPECT_EQ(requests_[0].url, "http://a.test/map.xml.gz");
  EXPECT_TRUE(requests_[0].any_type) << "sitemaps are read whatever --accept-type says";
  EXPECT_FALSE(gate_->Idle());
  Answer(200, "<urlset><url><loc>http://a.test/p</loc></url></urlset>");
  EXPECT_EQ(sitemap_urls_, std::vector<std::string>{"http://a.test/p"});
  Offer("http://a.test/p");
  EXPECT_EQ(Pump(), std::vector<std::string>{"http://a.test/p"});  // no robots.txt asked
  EXPECT_EQ(requests_.size(), 1u);
  EXPECT_TRUE(gate_->Idle());
  EXPECT_TRUE(frontier_->Exhausted());
}

}  // namespace
}  // namespace crawler
