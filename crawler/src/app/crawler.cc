// Crawler::Impl: the scheduler loop and the glue between the stages.
//
//   scheduler (Run's thread)      fetcher threads          parser threads
//   Frontier::Next --Submit-->    transfer ... callback
//                                 Frontier::Release
//                                 ParsePool::Submit  -->   PageProcessor::Process
//                                                          PageLog::Append
//                                                          Frontier::Done, wake scheduler
//
// Back-pressure: the scheduler submits only while fewer than --connections
// transfers run and the parse backlog is under two jobs per connection, so a
// slow parser slows fetching instead of filling memory with bodies.
//
// Wake-ups: the scheduler notes what it ran out of (`waiting_for_`: a free
// transfer slot, room in the parse backlog, or a ready URL), and a fetch or a
// parse that ends wakes it only if it brings that. A page used to wake it
// twice (fetched, parsed) while only one of the two could let it submit: on
// the synthetic site, where it waits for slots, the parse's wake-up was a
// futex call and a context switch for nothing.
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "app/checkpointer.h"
#include "app/crawl_setup.h"
#include "app/crawl_stats.h"
#include "app/dir_lock.h"
#include "app/duplicate_content_guard.h"
#include "app/filter_report.h"
#include "app/page_processor.h"
#include "app/page_validators.h"
#include "app/parse_pool.h"
#include "app/politeness.h"
#include "app/previous_crawl.h"
#include "app/revisit.h"
#include "app/robots_wiring.h"
#include "app/warc_sink.h"
#include "crawler/crawl.h"
#include "crawler/fetch.h"
#include "crawler/frontier.h"
#include "crawler/link_filter.h"
#include "crawler/metrics.h"
#include "crawler/metrics_server.h"
#include "crawler/retry_queue.h"
#include "sieve/sieve.h"
#include "spdlog/spdlog.h"

namespace crawler {
namespace {

struct ParseJob {
  CrawlUrl url;
  FetchResult result;
  int attempts = 1;  // fetches of url.url, retries included (see RetryQueue)
};

// Bodies waiting for a parser, at most: 4 MiB is ~0.3 s of work for two
// parser threads (Gumbo parses 10-15 MB/s each), refilled from loopback or a
// fast network in far less, so they never starve, while a burst of big pages
// (3.9 MB Python changelog, 1.7 MB indexes) cannot pile up 64 of them. On a
// quiet machine the backlog sits at this bound (parsing is the bottleneck),
// so it is peak RSS: 16 MiB put the Python docs crawl at 50 MB.
constexpr int64_t kMaxParseBacklogBytes = int64_t{4} << 20;

// How long in-flight transfers may finish after a stop request.
constexpr std::chrono::milliseconds kStopGrace{3000};

// Without this check an --out holding an earlier crawl's pages.jsonl (and no
// checkpoint, which CrawlStateDir::Create refuses on its own) was overwritten
// without a word. A new crawl there needs --fresh.
absl::Status RefuseToOverwriteRecords(const CrawlOptions& options) {
  if (options.resume || options.fresh || !options.frontier.empty()) return absl::OkStatus();
  const std::filesystem::path log =
      std::filesystem::path(options.out_dir) / PageLogOptions{}.file_name;
  std::error_code ec;
  const uintmax_t bytes = std::filesystem::file_size(log, ec);
  if (ec || bytes == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(log.string(), " holds an earlier crawl's records (", bytes,
                   " bytes): pass --fresh to overwrite them, --resume to continue that crawl (if "
                   "it left a checkpoint), or choose another --out"));
}

}  // namespace

class Crawler::Impl {
 public:
  explicit Impl(const CrawlOptions& options) : options_(options) {}
  ~Impl() {
    if (fetcher_ != nullptr) fetcher_->Shutdown(std::chrono::milliseconds(0));
    if (parsers_ != nullptr) parsers_->Finish();
  }

  absl::Status Init(const std::vector<std::string>& seeds);
  absl::StatusOr<CrawlSummary> Run();
  void RequestStop() {
    stop_.store(true);
    Wake();
  }
  CrawlProgress Progress() const;
  std::string MetricsUrl() const { return metrics_ != nullptr ? metrics_->Url() : ""; }

 private:
  absl::Status StartMetrics();
  MetricsSnapshot MetricsNow() const;
  void OnFetched(FetchResult&& result);
  void OnParsed(ParseJob&& job);
  void SubmitReady();
  // What stops SubmitReady now (kNothing: it may submit); `stop_` aside.
  enum class Waiting { kNothing, kSlot, kParser, kUrl };
  Waiting Blocker() const;
  // Publishes `what` and re-checks: true when still blocked by it. A fetch or
  // parse that ends meanwhile either sees `what` (and wakes the scheduler) or
  // is seen by the re-check: both sides are sequentially consistent atomics.
  bool StillBlockedAfterPublishing(Waiting what);
  // Wakes the scheduler if it waits for what `brought` brings (a slot, parse
  // room: kUrl is implied by both, a finished page may bring links or free a host).
  void WakeIfWaitingFor(Waiting brought);
  void Wake();  // unconditionally: stop, robots, retries
  bool Finished();
  void WaitForEvent();
  // While URLs are queued and nothing is in flight, the
  // crawl waits for a timer it can name (a host's delay or pause, a retry's
  // back-off, robots.txt's next try). Logs what and until when, shows it in
  // the progress line; false when there is no such timer (a stall: the crawl
  // could never move again).
  bool NoteIdleWait();
  struct Timer {
    absl::Time at = absl::InfiniteFuture();
    std::string what;
  };
  Timer NextTimer(absl::Time now);
  void ReportProgress(bool final_line);
  void LogStart();
  void LogHowToContinue(const std::string& stop_reason);
  CrawlSummary Summarize(const std::string& stop_reason);
  // The Sieve's Health, asked at most once a second (OK in between).
  absl::Status SieveHealthIfDue();
  // A URL recorded without a request (its host dropped, or --recrawl's not
  // due): the record, its counts and Done, as one step of the checkpoint.
  void RecordUnfetched(const CrawlUrl& url, const PageRecord& record);
  // The Sieve (the start's), the politeness policy and the Frontier.
  absl::Status BuildFrontier(CrawlStart* start);
  // --recrawl: every page of the previous crawl goes into the Sieve with its
  // PreviousFetch (its redirects and failures without), before this crawl's
  // own seeds (which it then holds); the depth-0 ones are also appended to
  // `*seeds` when it is not null.
  absl::Status QueuePreviousPages(std::vector<std::string>* seeds);
  RevisitBounds revisit_bounds() const {
    return {static_cast<int64_t>(options_.revisit_min_s),
            static_cast<int64_t>(options_.revisit_max_s)};
  }
  absl::Status SyncArchive() { return warc_ != nullptr ? warc_->Sync() : absl::OkStatus(); }
  double CrawlSeconds() const {
    return checkpointer_->prior_seconds() + absl::ToDoubleSeconds(absl::Now() - start_);
  }

  const CrawlOptions options_;
  // First: held until everything below has flushed and closed its files.
  std::vector<std::unique_ptr<DirLock>> dir_locks_;  // --out and --state
  const absl::Time start_ = absl::Now();
  std::unique_ptr<sieve::Sieve> sieve_;
  std::unique_ptr<Frontier> frontier_;
  PolitePolicy* policy_ = nullptr;  // owned by frontier_
  std::unique_ptr<LinkFilter> filter_;
  std::unique_ptr<TrapGuard> traps_;                   // before processor_, which uses it
  std::unique_ptr<DuplicateContentGuard> duplicates_;  // the same
  std::unique_ptr<PageProcessor> processor_;
  std::unique_ptr<PageLog> log_;
  std::unique_ptr<WarcSink> warc_;  // --warc; null without it
  CrawlStats stats_;
  std::unique_ptr<Checkpointer> checkpointer_;  // checkpoint and resume (--state)
  // What stops the crawl without a final checkpoint, so the last good one
  // stays: a checkpoint that failed, or a Sieve that broke its contract
  // (Sieve::Health: its queue cannot spill, or lost a segment).
  absl::Status fatal_;
  absl::Time last_health_check_ = absl::Now();
  std::unique_ptr<RetryQueue> retries_;  // transient failures waiting for their back-off
  RobotsParts robots_;                   // robots.txt gate; passes everything with --robots off
  std::unique_ptr<ParsePool<ParseJob>> parsers_;
  std::unique_ptr<Fetcher> fetcher_;  // its callback uses everything above
  LatencyHistogram latency_;          // page transfers' durations, for --metrics
  // Last: destroyed first, so no scrape reads a member being destroyed.
  std::unique_ptr<MetricsServer> metrics_;

  std::atomic<bool> stop_{false};
  std::atomic<int64_t> fetching_{0};
  // Body bytes fetched and not yet parsed: bounded as well as the job count,
  // so a run of multi-MB pages waits for the parsers instead of piling up.
  std::atomic<int64_t> parse_backlog_bytes_{0};
  // Pages handed to the parsers and not yet recorded (ParsePool's Backlog,
  // without its lock, and dropped at the end of OnParsed, before its wake-up).
  std::atomic<int64_t> parse_jobs_{0};
  std::atomic<Waiting> waiting_for_{Waiting::kNothing};
  std::atomic<uint64_t> next_tag_{1};
  std::mutex mu_;  // guards fetches_by_tag_ and wake_pending_, pairs with cv_
  std::condition_variable cv_;
  bool wake_pending_ = false;  // a Wake not yet seen by WaitForEvent
  // The URLs handed to the fetcher and not yet answered, by request tag.
  absl::flat_hash_map<uint64_t, CrawlUrl> fetches_by_tag_;
  absl::Time last_progress_ = absl::Now();
  bool tty_ = false;
  // What the idle crawl waits for ("" while something is in flight), for the
  // progress line; read by the metrics thread too.
  mutable std::mutex waiting_mu_;
  std::string waiting_text_;        // guarded by waiting_mu_
  std::string last_logged_wait_;    // scheduler thread only
  int64_t pages_at_start_ = 0;      // restored on --resume: not this run's
  std::vector<std::string> seeds_;  // normalized, for the start line
  int timerless_rounds_ = 0;        // scheduler thread only
};

absl::Status Crawler::Impl::BuildFrontier(CrawlStart* start) {
  sieve_ = std::move(start->sieve);
  absl::StatusOr<std::unique_ptr<PolitePolicy>> policy =
      MakePolitePolicy(options_, [this](const std::string& authority) -> std::optional<double> {
        if (robots_.cache == nullptr) return std::nullopt;  // --robots off, or not built yet
        return robots_.cache->CrawlDelay(RobotsAuthorityOf(authority));
      });
  if (!policy.ok()) return policy.status();
  policy_ = policy->get();
  FrontierOptions frontier_options = FrontierOptionsOf(options_);
  frontier_options.shared_pages = start->shared_pages;
  absl::StatusOr<LinkPriority> priority = LinkPriority::Create(options_);
  if (!priority.ok()) return priority.status();
  frontier_options.priority = std::make_shared<const LinkPriority>(*std::move(priority));
  absl::StatusOr<std::unique_ptr<Frontier>> frontier =
      Frontier::Create(sieve_.get(), frontier_options, std::move(*policy));
  if (!frontier.ok()) return frontier.status();
  frontier_ = std::move(*frontier);
  return absl::OkStatus();
}

absl::Status Crawler::Impl::Init(const std::vector<std::string>& given_seeds) {
  if (options_.no_check_certificate) {
    spdlog::warn(
        "--no-check-certificate: server certificates are NOT verified; anyone between this "
        "machine and the servers can read and change what the crawl fetches");
  }
  if (options_.fp_rate > 0.5) {
    spdlog::warn(
        "--fp-rate {}: more than half of the new URLs would be taken for seen and never crawled",
        options_.fp_rate);
  }
  // Before anything reads or wipes them (--fresh): one crawl per directory.
  std::vector<std::string> dirs = {options_.out_dir};
  if (!options_.state_dir.empty() && options_.frontier.empty()) dirs.push_back(options_.state_dir);
  for (const std::string& dir : dirs) {
    absl::StatusOr<std::unique_ptr<DirLock>> lock = DirLock::Acquire(dir);
    if (!lock.ok()) return lock.status();
    dir_locks_.push_back(std::move(*lock));
  }
  if (absl::Status kept = RefuseToOverwriteRecords(options_); !kept.ok()) return kept;
  absl::StatusOr<CrawlStart> start = OpenCrawlStart(options_);  // new Sieve, or the checkpoint's
  if (!start.ok()) return start.status();
  if (absl::Status built = BuildFrontier(&*start); !built.ok()) return built;
  // --recrawl: the previous log is read once, here: its pages go into the
  // Sieve before any seed, and with no seeds given its depth-0 pages stand
  // for them (they set the scope).
  std::vector<std::string> previous_seeds;
  if (!options_.recrawl.empty() && !start->resumed) {
    absl::Status queued = QueuePreviousPages(given_seeds.empty() ? &previous_seeds : nullptr);
    if (!queued.ok()) return queued;
    if (given_seeds.empty() && previous_seeds.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--recrawl ", options_.recrawl,
                                                     ": the previous crawl fetched no seed page"));
    }
  }
  const std::vector<std::string> raw_seeds =
      Checkpointer::SeedsOf(*start, previous_seeds.empty() ? given_seeds : previous_seeds);
  // --sitemap without seeds: the sitemaps' URLs stand for the seeds where a
  // seed sets something (the scope's hosts, private addresses allowed, the
  // checkpoint's list); the pages come from the sitemaps, nothing else is queued.
  const bool sitemaps_only = raw_seeds.empty() && !options_.sitemap_urls.empty();
  absl::StatusOr<std::vector<std::string>> seeds =
      NormalizeSeeds(sitemaps_only ? options_.sitemap_urls : raw_seeds, options_);
  if (!seeds.ok()) return seeds.status();
  absl::StatusOr<std::unique_ptr<LinkFilter>> filter = LinkFilter::Create(options_, *seeds);
  if (!filter.ok()) return filter.status();
  filter_ = std::move(*filter);

  LinkOptions link_options;
  link_options.honor_nofollow = !options_.ignore_nofollow;
  ParseLinkParser(options_.parser, &link_options.parser);  // validated by the option table
  link_options.normalize.max_length = options_.max_url_length;
  traps_ = std::make_unique<TrapGuard>(options_);
  duplicates_ = std::make_unique<DuplicateContentGuard>(options_.trap_duplicate_content);
  processor_ =
      std::make_unique<PageProcessor>(filter_.get(), frontier_.get(), link_options,
                                      options_.max_redirects, traps_.get(), duplicates_.get());
  checkpointer_ = std::make_unique<Checkpointer>(
      options_, *seeds, std::move(start->state),
      Checkpointer::Parts{
          sieve_.get(), frontier_.get(), &stats_, [this] { return SyncArchive(); }, policy_,
          [this] { return fetcher_ != nullptr ? fetcher_->CookieJar() : std::string(); },
          traps_.get()});
  PageLogOptions log_options;
  log_options.dir = options_.out_dir;
  log_options.append = start->resumed;
  // With a shared frontier there is no checkpoint to re-fetch a lost tail
  // from: a page is done for the fleet once its record is appended, so each
  // record goes to the kernel then (a write(2) per page) and a SIGKILL loses
  // none of them.
  if (!options_.frontier.empty()) log_options.flush_every = 1;
  if (start->resumed) {
    absl::Status restored = checkpointer_->Restore(
        (std::filesystem::path(log_options.dir) / log_options.file_name).string());
    if (!restored.ok()) return restored;
  }
  pages_at_start_ = stats_.Snapshot().pages;  // 0 unless resumed
  seeds_ = *seeds;
  absl::StatusOr<std::unique_ptr<PageLog>> log = PageLog::Open(log_options);
  if (!log.ok()) return log.status();
  log_ = std::move(*log);
  absl::StatusOr<std::unique_ptr<WarcSink>> warc = WarcSink::Create(options_);
  if (!warc.ok()) return warc.status();
  warc_ = std::move(*warc);

  LinkCounts seed_counts;
  const std::vector<std::string> no_seeds;  // a resumed crawl's seeds are in its Sieve
  for (const std::string& seed :
       processor_->Filter(start->resumed || sitemaps_only ? no_seeds : *seeds, 0, &seed_counts)) {
    CrawlUrl url;
    url.url = seed;
    frontier_->Offer(url);
  }
  stats_.AddLinks(seed_counts);

  absl::StatusOr<RobotsParts> robots =
      MakeRobots(options_, {frontier_.get(), processor_.get(), log_.get(), &stats_,
                            [this](FetchRequest r) { return fetcher_->Submit(std::move(r)); },
                            [this] { Wake(); },
                            [this](const FetchResult& r, const CrawlUrl&) {  // robots.txt, sitemaps
                              if (warc_ != nullptr && !warc_->Archive(r).ok()) RequestStop();
                            },
                            [this] { return checkpointer_->CommitScope(); }});
  if (!robots.ok()) return robots.status();
  robots_ = std::move(*robots);
  retries_ = std::make_unique<RetryQueue>(
      RetryOptions{options_.retries, absl::Seconds(options_.retry_backoff_s)});
  parsers_ = std::make_unique<ParsePool<ParseJob>>(
      options_.threads, [this](ParseJob&& job) { OnParsed(std::move(job)); });
  FetchOptions fetch_options = FetchOptionsOf(options_, *seeds);
  fetch_options.restored_cookies = checkpointer_->RestoredCookies();  // "" unless resumed
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher =
      Fetcher::Create(fetch_options, [this](FetchResult&& r) { OnFetched(std::move(r)); });
  if (!fetcher.ok()) return fetcher.status();
  fetcher_ = std::move(*fetcher);
  // A terminal's progress line refreshes in place; JSON logs keep it a log line.
  tty_ = !options_.quiet && options_.log_format != "json" && ::isatty(STDERR_FILENO) == 1;
  return StartMetrics();
}

absl::Status Crawler::Impl::StartMetrics() {
  if (options_.metrics.empty()) return absl::OkStatus();
  absl::StatusOr<MetricsAddress> address = ParseMetricsAddress(options_.metrics);
  if (!address.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--metrics: ", address.status().message()));
  }
  absl::StatusOr<std::unique_ptr<MetricsServer>> server =
      MetricsServer::Start(*address, [this] { return RenderMetrics(MetricsNow()); });
  if (!server.ok()) return server.status();
  metrics_ = std::move(*server);
  if (!IsLoopbackHost(address->host)) {
    spdlog::warn("metrics: {} listens beyond this machine (--metrics {})", metrics_->Url(),
                 options_.metrics);
  }
  spdlog::info("metrics: {}", metrics_->Url());
  return absl::OkStatus();
}

MetricsSnapshot Crawler::Impl::MetricsNow() const {
  MetricsSnapshot m;
  m.progress = Progress();
  m.summary = stats_.Snapshot();
  m.summary.duration_s = CrawlSeconds();
  m.summary.over_host_limit = static_cast<int64_t>(frontier_->Stats().over_host_limit);
  robots_.AddStats(&m.summary);
  m.host_queue_urls = frontier_->Stats().buffered;
  m.spilled_segments = sieve_->Stats().spilled_segments;
  m.hosts = HostCountsOf(*policy_);
  m.latency = latency_.Read();
  return m;
}

void Crawler::Impl::OnFetched(FetchResult&& result) {
  if (robots_.Owns(result.tag)) return robots_.gate->OnFetched(std::move(result));
  latency_.Observe(result.fetch_ms / 1000.0);
  CrawlUrl url;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = fetches_by_tag_.find(result.tag);
    if (it == fetches_by_tag_.end()) return;  // cannot happen: every tag is registered first
    url = std::move(it->second);
    fetches_by_tag_.erase(it);
  }
  frontier_->Release(url, FetchOutcomeOf(result, absl::Now()), absl::Now());
  if (checkpointer_->KeepForResume(stop_.load(), result)) {  // not Done: queued on resume
    fetching_.fetch_sub(1);
    Wake();
    return;
  }
  int attempts = 1;
  // A fetch that got its host dropped is recorded with its own error; a
  // retry would only be recorded "host_dropped".
  const bool host_dropped = policy_->DropReason(url.authority) != nullptr;
  if (!host_dropped &&
      retries_->ScheduleIfRetryable(url, result.status, result.error, absl::Now(), &attempts)) {
    // Archived now: a retried answer gets no page record, but it was received.
    if (warc_ != nullptr && !warc_->Archive(result).ok()) RequestStop();
    fetching_.fetch_sub(1);
    Wake();  // not Done: it comes back through SubmitReady
    return;
  }
  // curl's appends leave up to half a body's capacity unused until parsed.
  if (result.body.capacity() > result.body.size() + result.body.size() / 4) {
    result.body.shrink_to_fit();
  }
  parse_backlog_bytes_.fetch_add(static_cast<int64_t>(result.body.capacity()));
  parse_jobs_.fetch_add(1);
  parsers_->Submit(ParseJob{std::move(url), std::move(result), attempts});
  fetching_.fetch_sub(1);  // after the job is counted: the page is never in neither
  WakeIfWaitingFor(Waiting::kSlot);
}

void Crawler::Impl::OnParsed(ParseJob&& job) {
  const int64_t body_bytes = static_cast<int64_t>(job.result.body.capacity());
  // Archived here, on the parser threads, not in the fetchers' curl loops:
  // ~30 us of CPU a page there delayed every transfer of the loop, which
  // then polled and woke more per page (bench/warc-crawl).
  // The body's digest once, for the record and the archive.
  const PageValidators validators = ValidatorsOf(job.result);
  const Revisit verdict =
      RevisitOf(job.url.previous, static_cast<int>(job.result.status), job.result.error,
                validators.sha1.empty() ? "" : DigestText(validators.sha1));
  std::optional<WarcLocation> archived;
  if (warc_ != nullptr) {
    // A 304 or an unchanged 200 is a `revisit` of the previous crawl's record.
    absl::StatusOr<std::optional<WarcLocation>> at = warc_->ArchiveBorrowing(
        &job.result, validators.sha1, RevisitOfPrevious(job.url.url, job.url.previous, verdict));
    if (at.ok()) {
      archived = std::move(*at);
    } else {
      RequestStop();  // the sink logged why
    }
  }
  LinkCounts counts;
  PageRecord record =
      processor_->Process(job.url, std::move(job.result), &counts, ParsesLinks(verdict));
  NoteWarcLocation(archived, &record);
  NoteValidators(validators, &record);
  NoteRevisit(job.url.previous, verdict, revisit_bounds(), &record);
  record.attempts = job.attempts;
  const auto commit = checkpointer_->CommitScope();  // record, counts and Done: one step
  absl::Status written = log_->Append(record);
  if (!written.ok()) {
    spdlog::error("{}", std::string(written.message()));
    RequestStop();
  }
  stats_.Add(record, counts);
  frontier_->Done(job.url);
  parse_backlog_bytes_.fetch_sub(body_bytes);
  parse_jobs_.fetch_sub(1);
  WakeIfWaitingFor(Waiting::kParser);
}

Crawler::Impl::Waiting Crawler::Impl::Blocker() const {
  if (fetching_.load() >= options_.connections) return Waiting::kSlot;
  if (parse_jobs_.load() >= 2 * static_cast<int64_t>(options_.connections) ||
      parse_backlog_bytes_.load() >= kMaxParseBacklogBytes) {
    return Waiting::kParser;
  }
  return Waiting::kNothing;
}

bool Crawler::Impl::StillBlockedAfterPublishing(Waiting what) {
  waiting_for_.store(what);
  if (what == Waiting::kUrl) return true;  // SubmitReady asks the Frontier again
  return Blocker() == what;
}

void Crawler::Impl::WakeIfWaitingFor(Waiting brought) {
  const Waiting waiting = waiting_for_.load();
  // kNothing: the scheduler is between two looks and will look again; a
  // finished page (parsed or not) may also free a host or bring its links.
  if (waiting == Waiting::kUrl) return Wake();
  if (waiting != brought) return;
  // Every freed slot wakes it: waking once per several slots (tried: one
  // wake-up per 4 of 32) saves futex calls but leaves slots idle where
  // slots, not CPU or politeness, bound the crawl.
  Wake();
}

void Crawler::Impl::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake_pending_ = true;
  }
  cv_.notify_all();
}

void Crawler::Impl::SubmitReady() {
  bool asked_again = false;  // Next answered nothing after kUrl was published
  // waiting_for_ may be stale while the loop runs: that only costs a spare
  // wake-up. What matters is the value published before the scheduler sleeps.
  while (!stop_.load()) {
    if (const Waiting blocked = Blocker(); blocked != Waiting::kNothing) {
      if (StillBlockedAfterPublishing(blocked)) break;
      continue;
    }
    // A retry whose back-off is over goes back to its host queue, so it waits
    // for a free per-host slot and the host's delay like any other URL.
    while (std::optional<CrawlUrl> retry = retries_->TakeDue(absl::Now())) {
      frontier_->Requeue(*retry);
    }
    // One clock reading for the Frontier's delay check and the host's start
    // (HostStats): summary.json's min_delay_ms is then the gap it checked.
    const absl::Time now = absl::Now();
    std::optional<CrawlUrl> url = robots_.TakeReady(now);  // parked on robots.txt
    if (!url.has_value()) url = frontier_->Next(now);
    if (!url.has_value()) {
      // Published, then asked once more: a page parsed in between either
      // sees kUrl and wakes the scheduler, or its links are found now.
      if (asked_again) break;
      StillBlockedAfterPublishing(Waiting::kUrl);
      asked_again = true;
      continue;
    }
    asked_again = false;
    if (url->sitemap) {  // the robots gate's own request, in the host's slot
      robots_.FetchSitemap(std::move(*url));
      continue;
    }
    if (!url->drop_reason.empty()) {
      RecordUnfetched(*url, HostDroppedRecord(*url, absl::Now()));
      continue;
    }
    if (url->carried) {
      RecordUnfetched(*url, CarriedRecord(*url));
      continue;
    }
    if (url = robots_.Admit(std::move(*url), now); !url.has_value()) continue;
    stats_.hosts().Started(url->authority, now, policy_->StartInterval(url->authority));
    const uint64_t tag = next_tag_.fetch_add(1);
    FetchRequest request;
    request.url = url->url;
    request.tag = tag;
    if (url->previous.has_value()) request.headers = ConditionalHeaders(*url->previous);
    {
      std::lock_guard<std::mutex> lock(mu_);
      fetches_by_tag_.emplace(tag, std::move(*url));
    }
    fetching_.fetch_add(1);
    if (!fetcher_->Submit(std::move(request))) {  // only after Shutdown: give it back
      std::lock_guard<std::mutex> lock(mu_);
      fetches_by_tag_.erase(tag);
      fetching_.fetch_sub(1);
      break;
    }
  }
}

void Crawler::Impl::WaitForEvent() {
  // Wake for: a fetch ended or a page was parsed (notify), a host becoming
  // ready, the progress tick, or a stop request.
  const absl::Time now = absl::Now();
  absl::Duration wait = absl::Milliseconds(100);
  wait = std::min(wait, std::max(absl::ZeroDuration(), frontier_->NextReadyTime() - now));
  wait = std::min(wait, std::max(absl::ZeroDuration(), retries_->NextDueTime() - now));
  wait = std::min(wait, std::max(absl::ZeroDuration(), robots_.NextWakeTime() - now));
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, absl::ToChronoMilliseconds(std::max(wait, absl::Milliseconds(1))),
               [this] { return wake_pending_; });
  wake_pending_ = false;
}

Crawler::Impl::Timer Crawler::Impl::NextTimer(absl::Time now) {
  Timer timer{frontier_->NextReadyTime(), ""};
  if (timer.at != absl::InfiniteFuture()) timer.what = frontier_->NextReadyReason(now);
  if (const absl::Time due = retries_->NextDueTime(); due < timer.at) {
    timer = {due, absl::StrCat("the back-off before retrying ", retries_->NextDueUrl())};
  }
  if (const absl::Time robots = robots_.NextWakeTime(); robots < timer.at) {
    timer = {robots, robots_.NextWakeReason()};
  }
  return timer;
}

bool Crawler::Impl::NoteIdleWait() {
  const bool idle =
      fetching_.load() == 0 && parse_jobs_.load() == 0 && !robots_.Fetching() && !stop_.load();
  if (!idle || frontier_->Exhausted()) {
    timerless_rounds_ = 0;
    std::lock_guard<std::mutex> lock(waiting_mu_);
    waiting_text_.clear();
    return true;
  }
  const absl::Time now = absl::Now();
  const Timer timer = NextTimer(now);
  std::string text;
  if (timer.at != absl::InfiniteFuture()) {
    timerless_rounds_ = 0;
    text = absl::StrCat(timer.what, " until ",
                        absl::FormatTime("%H:%M:%E3S UTC", timer.at, absl::UTCTimeZone()));
    // Once per thing waited for, and only for a wait a user would notice
    // (a second or more: the default 1 s --delay, counted from the last
    // start, leaves less).
    if (timer.at - now >= absl::Seconds(1) && timer.what != last_logged_wait_) {
      last_logged_wait_ = timer.what;
      spdlog::info("waiting for {} (in {}; nothing in flight, {} URLs queued)", text,
                   absl::FormatDuration(absl::Trunc(timer.at - now, absl::Milliseconds(100))),
                   Progress().queued);
    }
  } else if (!options_.frontier.empty()) {
    // A shared frontier's URLs may be in other crawlers' hands: polled.
    timerless_rounds_ = 0;
    text = "URLs other crawlers of the fleet hold";
  } else {
    // Nothing here can change without a timer: asked again over 10 s of
    // rounds (the scheduler wakes every 100 ms) before calling it a stall,
    // and said after 2 s.
    text = "nothing (no timer set)";
    if (++timerless_rounds_ == 20) {
      spdlog::error("{} URLs queued, nothing in flight and no timer to wait for",
                    Progress().queued);
    }
    if (timerless_rounds_ >= 100) return false;
  }
  std::lock_guard<std::mutex> lock(waiting_mu_);
  waiting_text_ = std::move(text);
  return true;
}

absl::StatusOr<CrawlSummary> Crawler::Impl::Run() {
  std::string stop_reason = "drained";
  // The first checkpoint now: an unwritable --state fails before any fetch.
  fatal_ = checkpointer_->Take(log_.get(), CrawlSeconds());
  if (!fatal_.ok()) return fatal_;
  LogStart();
  for (;;) {
    if (stop_.load()) {
      stop_reason = fatal_.ok() ? "signal" : "error";
      break;
    }
    SubmitReady();
    // Asked upstream first: work flows gate -> Frontier -> fetch -> parse ->
    // Frontier (Done comes after a page's links are offered), so nothing can
    // move from a place not yet asked into one already asked (which would end
    // the crawl with work still in it).
    if (robots_.Idle() && fetching_.load() == 0 && parse_jobs_.load() == 0 &&
        frontier_->Exhausted()) {
      if (frontier_->PageLimitReached()) stop_reason = "max-pages";
      break;
    }
    if (!NoteIdleWait()) {
      // A bug, not a state of the web: say so, keep what was fetched (the
      // final checkpoint is taken; --resume queues the rest again).
      spdlog::error(
          "stalled: {} URLs queued, nothing in flight and no timer to wait for; stopping "
          "(a bug: please report it with this log)",
          Progress().queued);
      stop_reason = "stalled";
      break;
    }
    WaitForEvent();
    ReportProgress(false);
    fatal_ = checkpointer_->TakeIfDue(log_.get(), CrawlSeconds());
    if (fatal_.ok()) fatal_ = SieveHealthIfDue();
    if (!fatal_.ok()) {
      spdlog::error("{}; stopping, the last good checkpoint stays", std::string(fatal_.message()));
      RequestStop();
    }
  }
  // A shared frontier that failed (its retries exhausted, or its state gone
  // from Redis) reads as finished: its error, not an empty queue, ends the
  // crawl, whenever it came (the loop checks only once a second).
  if (fatal_.ok()) {
    if (absl::Status health = sieve_->Health(); !health.ok()) {
      fatal_ = absl::Status(health.code(), absl::StrCat("the URL queue: ", health.message()));
      spdlog::error("{}; stopping", std::string(fatal_.message()));
      stop_reason = "error";
    }
  }
  // Shutdown's bound (docs/reliability.md): kStopGrace for running transfers,
  // then the parse backlog (<= 2 x --connections pages, <= 4 MiB of bodies),
  // then summary.json, and only then the final checkpoint, whose time grows
  // with the crawl's state: a supervisor's kill during it still finds
  // summary.json, and the previous checkpoint stays good.
  fetcher_->Shutdown(kStopGrace);  // running transfers end (or are "aborted")
  parsers_->Finish();              // every fetched page is parsed and recorded
  ReportProgress(true);
  LogHowToContinue(stop_reason);
  CrawlSummary summary = Summarize(stop_reason);
  absl::Status flushed = log_->Flush();  // summary.json never counts pages not on disk
  if (!flushed.ok()) return flushed;
  absl::Status written = WriteSummary(options_.out_dir, summary);
  if (!written.ok()) return written;
  if (fatal_.ok()) {
    fatal_ = checkpointer_->Take(log_.get(), CrawlSeconds());  // the clean stop's
  }
  if (!fatal_.ok()) {
    log_->Close().IgnoreError();
    return fatal_;
  }
  absl::Status warc_closed = warc_ != nullptr ? warc_->Close() : absl::OkStatus();
  if (!warc_closed.ok()) return warc_closed;
  absl::Status closed = log_->Close();
  if (!closed.ok()) return closed;
  return summary;
}

absl::Status Crawler::Impl::SieveHealthIfDue() {
  // Once a second: Health takes the Sieve's lock, and a queue that cannot
  // spill grows RAM by --queue-memory's worth in about as long as it takes
  // to fill it, which is minutes, not milliseconds.
  const absl::Time now = absl::Now();
  if (now - last_health_check_ < absl::Seconds(1)) return absl::OkStatus();
  last_health_check_ = now;
  absl::Status health = sieve_->Health();
  if (health.ok()) return health;
  return absl::Status(health.code(), absl::StrCat("the URL queue: ", health.message()));
}

CrawlProgress Crawler::Impl::Progress() const {
  const sieve::SieveStats sieve = sieve_->Stats();
  const CrawlSummary s = stats_.Snapshot();
  CrawlProgress p;
  p.pages = s.pages;
  p.pages_this_run = s.pages - pages_at_start_;
  p.errors = stats_.Errors();
  p.elapsed_s = absl::ToDoubleSeconds(absl::Now() - start_);
  // The Sieve counts URLs in our host queues as in flight, so queued = its
  // queue plus those not yet handed to a fetcher.
  const FrontierStats frontier = frontier_->Stats();
  p.queued = static_cast<int64_t>(sieve.queued + frontier.buffered);
  p.in_flight = fetching_.load();
  p.parsing = static_cast<int64_t>(parsers_->Backlog());
  p.seen_estimate = sieve.estimated_count;
  p.filter_fill = sieve.fill_ratio;
  p.filter_fp_rate = sieve.current_fp_rate;
  p.accepted = sieve.accepted;
  p.passed_over = frontier.passed_over;
  p.filter_bytes = sieve.filter_bytes;
  p.queue_memory_bytes = sieve.queue_memory_bytes;
  p.queue_disk_bytes = sieve.queue_disk_bytes;
  p.last_checkpoint_ms = checkpointer_->last_ms();
  p.last_checkpoint_bytes = checkpointer_->last_bytes();
  p.fp_measured = MeasuredLossOf(sieve);
  std::lock_guard<std::mutex> lock(waiting_mu_);
  p.waiting_for = waiting_text_;
  return p;
}

void Crawler::Impl::LogStart() {
  // One line saying what this crawl is: a user who left
  // the defaults learns the pace they set.
  std::string seeds =
      seeds_.empty() ? std::string("no seeds (sitemaps only)")
                     : absl::StrCat(seeds_.size(), seeds_.size() == 1 ? " seed" : " seeds", " (",
                                    seeds_.front(), seeds_.size() > 1 ? ", ..." : "", ")");
  if (checkpointer_->prior_seconds() > 0 || pages_at_start_ > 0) {
    seeds = absl::StrCat("the checkpoint's crawl (", pages_at_start_, " pages done)");
  }
  spdlog::info("crawling {} into {}: --delay {}s, --per-host {}, --expected {}{}", seeds,
               options_.out_dir, options_.delay_s, options_.per_host, options_.expected,
               options_.max_pages > 0 ? absl::StrCat(", --max-pages ", options_.max_pages) : "");
}

void Crawler::Impl::LogHowToContinue(const std::string& stop_reason) {
  // Only a crawl with a checkpoint can go on.
  if (options_.state_dir.empty() || !options_.frontier.empty()) return;
  if (stop_reason == "signal" || stop_reason == "stalled") {
    spdlog::info("to continue this crawl: crawl --resume --out {}", options_.out_dir);
  } else if (stop_reason == "max-pages") {
    spdlog::info("--max-pages {} reached; to go on: crawl --resume --out {} --max-pages N (N > {})",
                 options_.max_pages, options_.out_dir, options_.max_pages);
  }
}

void Crawler::Impl::ReportProgress(bool final_line) {
  if (options_.quiet) return;
  const absl::Time now = absl::Now();
  const absl::Duration every = tty_ ? absl::Seconds(1) : absl::Seconds(10);
  if (!final_line && now - last_progress_ < every) return;
  last_progress_ = now;
  size_t width = 0;  // a log line keeps every field
  if (tty_) {
    winsize size{};
    // One column spare: a line of exactly the width wraps on some terminals.
    width =
        ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 1 ? size.ws_col - 1 : 79;
  }
  const std::string line = FormatProgress(Progress(), width);
  if (tty_) {
    std::fprintf(stderr, "\r%s\033[K%s", line.c_str(), final_line ? "\n" : "");
    std::fflush(stderr);
  } else {
    spdlog::info("{}", line);
  }
}

CrawlSummary Crawler::Impl::Summarize(const std::string& stop_reason) {
  CrawlSummary summary = stats_.Snapshot();
  const sieve::SieveStats sieve = sieve_->Stats();
  summary.duration_s = CrawlSeconds();  // all runs of a resumed crawl
  FillFilterFields(sieve, summary);
  robots_.AddStats(&summary);
  const FrontierStats frontier = frontier_->Stats();
  summary.queued_at_end = static_cast<int64_t>(sieve.queued + frontier.buffered);
  summary.over_host_limit = static_cast<int64_t>(frontier.over_host_limit);
  summary.filter_bytes = static_cast<int64_t>(sieve.filter_bytes);
  summary.last_checkpoint_ms = checkpointer_->last_ms();
  summary.last_checkpoint_bytes = checkpointer_->last_bytes();
  summary.interrupted = stop_reason == "signal";
  summary.stop_reason = stop_reason;
  stats_.hosts().Fill(policy_->Dropped(), &summary);
  return summary;
}

void Crawler::Impl::RecordUnfetched(const CrawlUrl& url, const PageRecord& record) {
  const auto commit = checkpointer_->CommitScope();  // record, counts and Done: one step
  absl::Status written = log_->Append(record);
  if (!written.ok()) {
    spdlog::error("{}", std::string(written.message()));
    RequestStop();
  }
  stats_.Add(record, LinkCounts{});
  frontier_->Done(url);
}

absl::Status Crawler::Impl::QueuePreviousPages(std::vector<std::string>* seeds) {
  absl::StatusOr<PreviousCrawlReport> read = ForEachPreviousPage(
      options_.recrawl, revisit_bounds(), options_.strict, [this, seeds](CrawlUrl url) {
        if (seeds != nullptr && url.depth == 0) seeds->push_back(url.url);
        frontier_->Offer(url);
      });
  if (!read.ok()) return read.status();
  stats_.StartRecrawl(read->skipped_lines);
  spdlog::info(
      "--recrawl {}: {} pages to revisit, {} redirects and failures to ask again, from {} "
      "lines{}",
      options_.recrawl, read->pages, read->asked_again, read->lines,
      read->skipped_lines > 0 ? absl::StrCat(", ", read->skipped_lines, " damaged lines skipped")
                              : std::string());
  return absl::OkStatus();
}

// ---- Crawler ----

absl::StatusOr<std::unique_ptr<Crawler>> Crawler::Create(const CrawlOptions& options,
                                                         const std::vector<std::string>& seeds) {
  auto impl = std::make_unique<Impl>(options);
  absl::Status status = impl->Init(seeds);
  if (!status.ok()) return status;
  return std::unique_ptr<Crawler>(new Crawler(std::move(impl)));
}

Crawler::Crawler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Crawler::~Crawler() = default;
absl::StatusOr<CrawlSummary> Crawler::Run() { return impl_->Run(); }
void Crawler::RequestStop() { impl_->RequestStop(); }
CrawlProgress Crawler::Progress() const { return impl_->Progress(); }
std::string Crawler::MetricsUrl() const { return impl_->MetricsUrl(); }

}  // namespace crawler
