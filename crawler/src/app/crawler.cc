// Crawler::Impl: the scheduler loop over the crawl's parts, which
// BuildCrawlParts (crawl_setup.h) builds and wires to each other and to the
// hooks below (OnFetched, OnParsed, Wake, RequestStop).
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
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "app/checkpointer.h"
#include "app/crawl_setup.h"
#include "app/crawl_stats.h"
#include "app/filter_report.h"
#include "app/page_processor.h"
#include "app/page_validators.h"
#include "app/parse_pool.h"
#include "app/pipeline_trace.h"
#include "app/politeness.h"
#include "app/revisit.h"
#include "app/robots_wiring.h"
#include "app/warc_sink.h"
#include "crawler/crawl.h"
#include "crawler/fetch.h"
#include "crawler/frontier.h"
#include "crawler/metrics.h"
#include "crawler/metrics_server.h"
#include "crawler/retry_queue.h"
#include "sieve/sieve.h"
#include "spdlog/spdlog.h"

namespace crawler {
namespace {

// Bodies waiting for a parser, at most: 4 MiB is ~0.3 s of work for two
// parser threads (Gumbo parses 10-15 MB/s each), refilled from loopback or a
// fast network in far less, so they never starve, while a burst of big pages
// (3.9 MB Python changelog, 1.7 MB indexes) cannot pile up 64 of them. On a
// quiet machine the backlog sits at this bound (parsing is the bottleneck),
// so it is peak RSS: 16 MiB put the Python docs crawl at 50 MB.
constexpr int64_t kMaxParseBacklogBytes = int64_t{4} << 20;

// How long in-flight transfers may finish after a stop request.
constexpr std::chrono::milliseconds kStopGrace{3000};

}  // namespace

class Crawler::Impl {
 public:
  explicit Impl(const CrawlOptions& options) : options_(options) {}
  ~Impl() {
    // No fetch or parse callback runs once any member is being destroyed.
    if (parts_ != nullptr) parts_->StopThreads();
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
  absl::Status StartPipelineTrace();
  PipelineSample PipelineNow() const;
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
  // A page's end, fetched or not (its host dropped, --recrawl's not due): its
  // record appended, counted and its URL Done, as one step of the checkpoint.
  // A record that cannot be written stops the crawl.
  void CommitRecord(const CrawlUrl& url, const PageRecord& record, const LinkCounts& counts);
  double CrawlSeconds() const {
    return parts_->checkpointer->prior_seconds() + absl::ToDoubleSeconds(absl::Now() - start_);
  }

  const CrawlOptions options_;
  const absl::Time start_ = absl::Now();
  // What stops the crawl without a final checkpoint, so the last good one
  // stays: a checkpoint that failed, or a Sieve that broke its contract
  // (Sieve::Health: its queue cannot spill, or lost a segment).
  absl::Status fatal_;
  absl::Time last_health_check_ = absl::Now();
  LatencyHistogram latency_;  // page transfers' durations, for --metrics

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
  // For --debug-pipeline: the scheduler's sleeps, those a wake-up ended,
  // URLs submitted and pages parsed (relaxed: counts, not synchronization).
  std::atomic<uint64_t> sleeps_{0};
  std::atomic<uint64_t> woken_{0};
  std::atomic<uint64_t> submitted_{0};
  std::atomic<uint64_t> parsed_{0};
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
  std::string waiting_text_;      // guarded by waiting_mu_
  std::string last_logged_wait_;  // scheduler thread only
  int timerless_rounds_ = 0;      // scheduler thread only
  std::unique_ptr<CrawlParts> parts_;
  // Last: destroyed first, so no scrape or sample reads a part being destroyed.
  std::unique_ptr<MetricsServer> metrics_;
  std::unique_ptr<PipelineTrace> pipeline_trace_;
};

absl::Status Crawler::Impl::Init(const std::vector<std::string>& seeds) {
  absl::StatusOr<std::unique_ptr<CrawlParts>> parts =
      BuildCrawlParts(options_, seeds,
                      {[this](FetchResult&& r) { OnFetched(std::move(r)); },
                       [this](ParseJob&& job) { OnParsed(std::move(job)); }, [this] { Wake(); },
                       [this] { RequestStop(); }});
  if (!parts.ok()) return parts.status();
  parts_ = std::move(*parts);
  // A terminal's progress line refreshes in place; JSON logs keep it a log line.
  tty_ = !options_.quiet && options_.log_format != "json" && ::isatty(STDERR_FILENO) == 1;
  if (absl::Status trace = StartPipelineTrace(); !trace.ok()) return trace;
  return StartMetrics();
}

absl::Status Crawler::Impl::StartPipelineTrace() {
  if (options_.debug_pipeline.empty()) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<PipelineTrace>> trace = PipelineTrace::Start(
      options_.debug_pipeline, absl::Milliseconds(10), [this] { return PipelineNow(); });
  if (!trace.ok()) return trace.status();
  pipeline_trace_ = std::move(*trace);
  return absl::OkStatus();
}

PipelineSample Crawler::Impl::PipelineNow() const {
  PipelineSample s;
  s.scheduled = fetching_.load(std::memory_order_relaxed);
  const FetchStats fetch = parts_->fetcher->Stats();
  s.fetch_queued = static_cast<int64_t>(fetch.queued);
  s.fetch_running = static_cast<int64_t>(fetch.in_flight);
  s.parse_jobs = parse_jobs_.load(std::memory_order_relaxed);
  s.parse_bytes = parse_backlog_bytes_.load(std::memory_order_relaxed);
  s.frontier_buffered = static_cast<int64_t>(parts_->frontier->Stats().buffered);
  s.sieve_queued = static_cast<int64_t>(parts_->sieve->Stats().queued);
  constexpr char kWaiting[] = {'-', 'S', 'P', 'U'};
  s.waiting = kWaiting[static_cast<int>(waiting_for_.load(std::memory_order_relaxed))];
  s.sleeps_total = sleeps_.load(std::memory_order_relaxed);
  s.woken_total = woken_.load(std::memory_order_relaxed);
  s.submitted_total = submitted_.load(std::memory_order_relaxed);
  s.parsed_total = parsed_.load(std::memory_order_relaxed);
  return s;
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
  m.summary = parts_->stats.Snapshot();
  m.summary.duration_s = CrawlSeconds();
  m.summary.over_host_limit = static_cast<int64_t>(parts_->frontier->Stats().over_host_limit);
  parts_->robots.AddStats(&m.summary);
  m.host_queue_urls = parts_->frontier->Stats().buffered;
  m.spilled_segments = parts_->sieve->Stats().spilled_segments;
  m.hosts = HostCountsOf(*parts_->policy);
  FillServerFields(*parts_->frontier, &m.summary);
  m.latency = latency_.Read();
  return m;
}

void Crawler::Impl::OnFetched(FetchResult&& result) {
  if (parts_->robots.Owns(result.tag)) return parts_->robots.gate->OnFetched(std::move(result));
  latency_.Observe(result.fetch_ms / 1000.0);
  CrawlUrl url;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = fetches_by_tag_.find(result.tag);
    if (it == fetches_by_tag_.end()) return;  // cannot happen: every tag is registered first
    url = std::move(it->second);
    fetches_by_tag_.erase(it);
  }
  parts_->frontier->Release(url, FetchOutcomeOf(result, absl::Now()), absl::Now());
  if (parts_->checkpointer->KeepForResume(stop_.load(), result)) {  // not Done: queued on resume
    fetching_.fetch_sub(1);
    Wake();
    return;
  }
  int attempts = 1;
  // A fetch that got its host dropped is recorded with its own error; a
  // retry would only be recorded "host_dropped".
  const bool host_dropped = parts_->policy->DropReason(url.authority) != nullptr;
  if (!host_dropped && parts_->retries->ScheduleIfRetryable(url, result.status, result.error,
                                                            absl::Now(), &attempts)) {
    // Archived now: a retried answer gets no page record, but it was received.
    if (parts_->warc != nullptr && !parts_->warc->Archive(result).ok()) RequestStop();
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
  parts_->parsers->Submit(ParseJob{std::move(url), std::move(result), attempts});
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
  if (parts_->warc != nullptr) {
    // A 304 or an unchanged 200 is a `revisit` of the previous crawl's record.
    absl::StatusOr<std::optional<WarcLocation>> at = parts_->warc->ArchiveBorrowing(
        &job.result, validators.sha1, RevisitOfPrevious(job.url.url, job.url.previous, verdict));
    if (at.ok()) {
      archived = std::move(*at);
    } else {
      RequestStop();  // the sink logged why
    }
  }
  LinkCounts counts;
  PageRecord record =
      parts_->processor->Process(job.url, std::move(job.result), &counts, ParsesLinks(verdict));
  NoteWarcLocation(archived, &record);
  NoteValidators(validators, &record);
  NoteRevisit(job.url.previous, verdict, RevisitBoundsOf(options_), &record);
  record.attempts = job.attempts;
  CommitRecord(job.url, record, counts);
  parse_backlog_bytes_.fetch_sub(body_bytes);
  parse_jobs_.fetch_sub(1);
  parsed_.fetch_add(1, std::memory_order_relaxed);
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
    while (std::optional<CrawlUrl> retry = parts_->retries->TakeDue(absl::Now())) {
      parts_->frontier->Requeue(*retry);
    }
    // One clock reading for the Frontier's delay check and the host's start
    // (HostStats): summary.json's min_delay_ms is then the gap it checked.
    const absl::Time now = absl::Now();
    std::optional<CrawlUrl> url = parts_->robots.TakeReady(now);  // parked on robots.txt
    if (!url.has_value()) url = parts_->frontier->Next(now);
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
      parts_->robots.FetchSitemap(std::move(*url));
      continue;
    }
    if (!url->drop_reason.empty()) {
      CommitRecord(*url, HostDroppedRecord(*url, absl::Now()), LinkCounts{});
      continue;
    }
    if (url->carried) {
      CommitRecord(*url, CarriedRecord(*url), LinkCounts{});
      continue;
    }
    if (url = parts_->robots.Admit(std::move(*url), now); !url.has_value()) continue;
    parts_->stats.hosts().Started(url->authority, now,
                                  parts_->policy->StartInterval(url->authority));
    const uint64_t tag = next_tag_.fetch_add(1);
    FetchRequest request;
    request.url = url->url;
    request.tag = tag;
    request.connect_address = url->address;  // the server its --per-ip counted
    if (url->previous.has_value()) request.headers = ConditionalHeaders(*url->previous);
    {
      std::lock_guard<std::mutex> lock(mu_);
      fetches_by_tag_.emplace(tag, std::move(*url));
    }
    fetching_.fetch_add(1);
    submitted_.fetch_add(1, std::memory_order_relaxed);
    if (!parts_->fetcher->Submit(std::move(request))) {  // only after Shutdown: give it back
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
  // Blocked on a slot or on parse room, no timer can let it submit (a
  // ready host, a due retry and robots.txt are all asked after the
  // blocker): only a fetch's or a parse's end can, and it wakes the
  // scheduler. The timers would only wake it for nothing: a host ready
  // "now" while every slot is taken made a 1 ms sleep (the shortest) and
  // ~15% of the scheduler's sleeps on the synthetic 20k site ended so.
  const Waiting blocked = waiting_for_.load();
  const bool timers_matter = blocked != Waiting::kSlot && blocked != Waiting::kParser;
  const absl::Time now = absl::Now();
  absl::Duration wait = absl::Milliseconds(100);
  if (timers_matter) {
    wait = std::min(wait, std::max(absl::ZeroDuration(), parts_->frontier->NextReadyTime() - now));
    wait = std::min(wait, std::max(absl::ZeroDuration(), parts_->retries->NextDueTime() - now));
    wait = std::min(wait, std::max(absl::ZeroDuration(), parts_->robots.NextWakeTime() - now));
  }
  std::unique_lock<std::mutex> lock(mu_);
  const bool woken =
      cv_.wait_for(lock, absl::ToChronoMilliseconds(std::max(wait, absl::Milliseconds(1))),
                   [this] { return wake_pending_; });
  wake_pending_ = false;
  sleeps_.fetch_add(1, std::memory_order_relaxed);
  if (woken) woken_.fetch_add(1, std::memory_order_relaxed);
}

Crawler::Impl::Timer Crawler::Impl::NextTimer(absl::Time now) {
  Timer timer{parts_->frontier->NextReadyTime(), ""};
  if (timer.at != absl::InfiniteFuture()) timer.what = parts_->frontier->NextReadyReason(now);
  if (const absl::Time due = parts_->retries->NextDueTime(); due < timer.at) {
    timer = {due, absl::StrCat("the back-off before retrying ", parts_->retries->NextDueUrl())};
  }
  if (const absl::Time robots = parts_->robots.NextWakeTime(); robots < timer.at) {
    timer = {robots, parts_->robots.NextWakeReason()};
  }
  return timer;
}

bool Crawler::Impl::NoteIdleWait() {
  const bool idle = fetching_.load() == 0 && parse_jobs_.load() == 0 &&
                    !parts_->robots.Fetching() && !stop_.load();
  if (!idle || parts_->frontier->Exhausted()) {
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
  fatal_ = parts_->checkpointer->Take(parts_->log.get(), CrawlSeconds());
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
    if (parts_->robots.Idle() && fetching_.load() == 0 && parse_jobs_.load() == 0 &&
        parts_->frontier->Exhausted()) {
      if (parts_->frontier->PageLimitReached()) stop_reason = "max-pages";
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
    fatal_ = parts_->checkpointer->TakeIfDue(parts_->log.get(), CrawlSeconds());
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
    if (absl::Status health = parts_->sieve->Health(); !health.ok()) {
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
  parts_->fetcher->Shutdown(kStopGrace);  // running transfers end (or are "aborted")
  parts_->parsers->Finish();              // every fetched page is parsed and recorded
  ReportProgress(true);
  LogHowToContinue(stop_reason);
  CrawlSummary summary = Summarize(stop_reason);
  absl::Status flushed = parts_->log->Flush();  // summary.json never counts pages not on disk
  if (!flushed.ok()) return flushed;
  absl::Status written = WriteSummary(options_.out_dir, summary);
  if (!written.ok()) return written;
  if (fatal_.ok()) {
    fatal_ = parts_->checkpointer->Take(parts_->log.get(), CrawlSeconds());  // the clean stop's
  }
  if (!fatal_.ok()) {
    parts_->log->Close().IgnoreError();
    return fatal_;
  }
  absl::Status warc_closed = parts_->warc != nullptr ? parts_->warc->Close() : absl::OkStatus();
  if (!warc_closed.ok()) return warc_closed;
  absl::Status closed = parts_->log->Close();
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
  absl::Status health = parts_->sieve->Health();
  if (health.ok()) return health;
  return absl::Status(health.code(), absl::StrCat("the URL queue: ", health.message()));
}

CrawlProgress Crawler::Impl::Progress() const {
  const sieve::SieveStats sieve = parts_->sieve->Stats();
  const CrawlSummary s = parts_->stats.Snapshot();
  CrawlProgress p;
  p.pages = s.pages;
  p.pages_this_run = s.pages - parts_->pages_at_start;
  p.errors = parts_->stats.Errors();
  p.elapsed_s = absl::ToDoubleSeconds(absl::Now() - start_);
  // The Sieve counts URLs in our host queues as in flight, so queued = its
  // queue plus those not yet handed to a fetcher.
  const FrontierStats frontier = parts_->frontier->Stats();
  p.queued = static_cast<int64_t>(sieve.queued + frontier.buffered);
  p.in_flight = fetching_.load();
  p.parsing = static_cast<int64_t>(parts_->parsers->Backlog());
  p.seen_estimate = sieve.estimated_count;
  p.filter_fill = sieve.fill_ratio;
  p.filter_fp_rate = sieve.current_fp_rate;
  p.accepted = sieve.accepted;
  p.passed_over = frontier.passed_over;
  p.filter_bytes = sieve.filter_bytes;
  p.queue_memory_bytes = sieve.queue_memory_bytes;
  p.queue_disk_bytes = sieve.queue_disk_bytes;
  p.last_checkpoint_ms = parts_->checkpointer->last_ms();
  p.last_checkpoint_bytes = parts_->checkpointer->last_bytes();
  p.fp_measured = MeasuredLossOf(sieve);
  std::lock_guard<std::mutex> lock(waiting_mu_);
  p.waiting_for = waiting_text_;
  return p;
}

void Crawler::Impl::LogStart() {
  // One line saying what this crawl is: a user who left
  // the defaults learns the pace they set.
  const std::vector<std::string>& given = parts_->checkpointer->seeds();
  std::string seeds = given.empty()
                          ? std::string("no seeds (sitemaps only)")
                          : absl::StrCat(given.size(), given.size() == 1 ? " seed" : " seeds", " (",
                                         given.front(), given.size() > 1 ? ", ..." : "", ")");
  if (parts_->checkpointer->prior_seconds() > 0 || parts_->pages_at_start > 0) {
    seeds = absl::StrCat("the checkpoint's crawl (", parts_->pages_at_start, " pages done)");
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
  CrawlSummary summary = parts_->stats.Snapshot();
  const sieve::SieveStats sieve = parts_->sieve->Stats();
  summary.duration_s = CrawlSeconds();  // all runs of a resumed crawl
  FillFilterFields(sieve, summary);
  parts_->robots.AddStats(&summary);
  const FrontierStats frontier = parts_->frontier->Stats();
  summary.queued_at_end = static_cast<int64_t>(sieve.queued + frontier.buffered);
  summary.over_host_limit = static_cast<int64_t>(frontier.over_host_limit);
  summary.filter_bytes = static_cast<int64_t>(sieve.filter_bytes);
  summary.last_checkpoint_ms = parts_->checkpointer->last_ms();
  summary.last_checkpoint_bytes = parts_->checkpointer->last_bytes();
  summary.interrupted = stop_reason == "signal";
  summary.stop_reason = stop_reason;
  parts_->stats.hosts().Fill(parts_->policy->Dropped(), &summary);
  FillServerFields(*parts_->frontier, &summary);
  return summary;
}

void Crawler::Impl::CommitRecord(const CrawlUrl& url, const PageRecord& record,
                                 const LinkCounts& counts) {
  const auto commit = parts_->checkpointer->CommitScope();  // record, counts and Done: one step
  absl::Status written = parts_->log->Append(record);
  if (!written.ok()) {
    spdlog::error("{}", std::string(written.message()));
    RequestStop();
  }
  parts_->stats.Add(record, counts);
  parts_->frontier->Done(url);
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
