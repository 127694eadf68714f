#include "app/crawl_setup.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "app/politeness.h"
#include "crawler/link_filter.h"
#include "crawler/polite_policy.h"
#include "crawler/type_filter.h"
#include "crawler/url.h"
#include "spdlog/spdlog.h"

namespace crawler {

absl::StatusOr<std::vector<std::string>> NormalizeSeeds(const std::vector<std::string>& seeds,
                                                        const CrawlOptions& options) {
  if (seeds.empty()) return absl::InvalidArgumentError("no seed URLs to crawl");
  NormalizeOptions normalize;
  normalize.max_length = options.max_url_length;
  std::vector<std::string> out;
  out.reserve(seeds.size());
  for (const std::string& seed : seeds) {
    absl::StatusOr<Url> url = Url::Parse(seed);
    absl::StatusOr<std::string> normalized =
        url.ok() ? NormalizeForSeen(*url, normalize) : url.status();
    if (!normalized.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("seed '", seed, "': ", normalized.status().message()));
    }
    out.push_back(std::move(*normalized));
  }
  return out;
}

bool IsPrivateHost(std::string_view host_view) {
  const absl::string_view host(host_view.data(), host_view.size());
  if (host == "localhost" || absl::EndsWith(host, ".localhost")) return true;
  if (absl::StartsWith(host, "[")) {
    return host == "[::1]" || absl::StartsWith(host, "[fc") || absl::StartsWith(host, "[fd") ||
           absl::StartsWith(host, "[fe8") || absl::StartsWith(host, "[fe9") ||
           absl::StartsWith(host, "[fea") || absl::StartsWith(host, "[feb");
  }
  std::vector<absl::string_view> parts = absl::StrSplit(host, '.');
  int octet[4];
  if (parts.size() != 4) return false;
  for (int i = 0; i < 4; ++i) {
    if (!absl::SimpleAtoi(parts[i], &octet[i])) return false;
  }
  return octet[0] == 127 || octet[0] == 10 || (octet[0] == 192 && octet[1] == 168) ||
         (octet[0] == 172 && octet[1] >= 16 && octet[1] <= 31) ||
         (octet[0] == 169 && octet[1] == 254);
}

std::string SieveMessageInFlags(std::string_view message) {
  return absl::StrReplaceAll(
      absl::string_view(message.data(), message.size()),
      {{"SieveOptions::overflow_policy = OverflowPolicy::kGrow, the \"grow\" overflow policy",
        "--overflow grow"},
       // The overflow warnings' own words.
       {"OverflowPolicy::kGrow", "--overflow grow"},
       {"OverflowPolicy::kWarn", "--overflow warn"},
       {"SieveOptions::filter_memory_max_bytes", "--filter-memory-max"},
       {"SieveOptions::expected_count =", "--expected"},
       {"SieveOptions::expected_count", "--expected"},
       {"queue_memory_budget_bytes", "--queue-memory"}});
}

sieve::LogSink CrawlSieveLogSink() {
  return [](sieve::LogLevel level, std::string_view message) {
    const std::string text = SieveMessageInFlags(message);
    switch (level) {
      case sieve::LogLevel::kDebug:
        spdlog::debug(text);
        break;
      case sieve::LogLevel::kInfo:
        spdlog::info(text);
        break;
      case sieve::LogLevel::kWarning:
        spdlog::warn(text);
        break;
      case sieve::LogLevel::kError:
        spdlog::error(text);
        break;
    }
  };
}

sieve::SieveOptions SieveOptionsOf(const CrawlOptions& options) {
  sieve::SieveOptions s;
  s.log_sink = CrawlSieveLogSink();
  s.expected_count = options.expected;
  s.fp_rate = options.fp_rate;
  s.queue_memory_budget_bytes = options.queue_memory;
  s.spill_dir = options.spill_dir;
  s.overflow_policy =
      options.overflow == "grow" ? sieve::OverflowPolicy::kGrow : sieve::OverflowPolicy::kWarn;
  s.filter_memory_max_bytes = options.filter_memory_max;
  // 4 KiB pages: with huge pages each URL that first touches a 2 MiB region
  // of the filter waits for the kernel to zero all of it, so at --expected 1e9
  // (1.45 GB) 1,000 seeds zeroed the whole filter before the first request
  // (1.4-2 s; bench/scale). With 4 KiB pages that zeroing is spread over the
  // first ~1e6 pushes; the TLB misses huge pages would save cost ~30 ns a
  // push, under 1% of a core at the crawl's <= 1.2e5 pushes/s.
  s.huge_pages = false;
  return s;
}

FrontierOptions FrontierOptionsOf(const CrawlOptions& options) {
  FrontierOptions f;
  f.max_pages = options.max_pages;
  f.max_pages_per_host = options.max_pages_per_host;
  f.per_host = std::max(1, options.per_host);
  f.delay = absl::Seconds(options.delay_s);
  // Enough buffered URLs to keep every connection busy across many hosts.
  f.max_buffered = std::max<size_t>(4096, static_cast<size_t>(options.connections) * 16);
  return f;
}

namespace {

// Whether requests go through a proxy: --proxy, or (unless --no-proxy-env) a
// proxy environment variable curl reads.
bool UsesProxy(const CrawlOptions& options) {
  if (!options.proxy.empty()) return true;
  if (options.no_proxy_env) return false;
  for (const char* name : {"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return true;
  }
  return false;
}

std::function<RequestExtras(const std::string& url)> RequestExtrasOf(
    const std::vector<HostRule>& hosts) {
  std::vector<HostRule> rules;
  for (const HostRule& rule : hosts) {
    if (!rule.headers.empty() || !rule.user.empty()) rules.push_back(rule);
  }
  if (rules.empty()) return nullptr;
  // The first rule with headers or credentials whose pattern matches wins,
  // as for per_host and delay.
  return [rules = std::move(rules)](const std::string& url) {
    RequestExtras extras;
    absl::StatusOr<Url> parsed = Url::Parse(url);
    if (!parsed.ok()) return extras;
    const std::string authority = parsed->Authority();
    for (const HostRule& rule : rules) {
      if (!HostPatternMatches(rule.pattern, authority)) continue;
      extras.headers = rule.headers;
      extras.user = rule.user;
      extras.password = rule.password;
      extras.auth = rule.auth;
      break;
    }
    return extras;
  };
}

}  // namespace

FetchOptions FetchOptionsOf(const CrawlOptions& options, const std::vector<std::string>& seeds) {
  FetchOptions f;
  // Two multi-interface threads (the default) keep hundreds of transfers
  // busy; more would only take cores from the parsers.
  f.threads = std::clamp(std::min(options.fetch_threads, options.connections), 1, 64);
  f.max_transfers = std::max(options.connections, f.threads);
  f.user_agent = options.user_agent;
  f.connect_timeout_s = options.connect_timeout_s;
  f.total_timeout_s = options.timeout_s;
  f.low_speed_time_s = std::min(f.low_speed_time_s, options.timeout_s);
  f.max_body = options.max_body;
  f.keep_request_headers = !options.warc_prefix.empty();  // WARC request records
  f.proxy = options.proxy;
  f.proxy_env = !options.no_proxy_env;
  f.headers = options.headers;
  f.extras = RequestExtrasOf(options.hosts);
  f.cookies = options.cookies;
  f.load_cookies = options.load_cookies;
  f.ca_file = options.ca_certificate;
  f.verify_peer = !options.no_check_certificate;
  f.client_cert = options.certificate;
  f.client_key = options.private_key;
  f.resolve = options.resolve;
  f.save_cookies = options.save_cookies;
  // Validated with the options: a bad pattern never gets this far.
  absl::StatusOr<MediaTypeFilter> types =
      MediaTypeFilter::Create(options.accept_types, options.reject_types);
  if (types.ok() && !types->empty()) {
    f.accept_type = [types = *types](std::string_view content_type) {
      return types.Accepts(content_type);
    };
  }
  if (options.block_private == "on") {
    f.block_private = true;
  } else if (options.block_private == "off") {
    f.block_private = false;
  } else if (UsesProxy(options)) {  // "auto": the address checked would be the proxy's
    f.block_private = false;
  } else {  // "auto": refuse private addresses unless the crawl starts at one
    f.block_private = std::none_of(seeds.begin(), seeds.end(), [](const std::string& seed) {
      return IsPrivateHost(HostOfUrl(seed));
    });
  }
  return f;
}

RevisitBounds RevisitBoundsOf(const CrawlOptions& options) {
  return {static_cast<int64_t>(options.revisit_min_s), static_cast<int64_t>(options.revisit_max_s)};
}

void CrawlParts::StopThreads() {
  if (fetcher != nullptr) fetcher->Shutdown(std::chrono::milliseconds(0));
  if (parsers != nullptr) parsers->Finish();
}

namespace {

void WarnOfRiskyOptions(const CrawlOptions& options) {
  if (options.no_check_certificate) {
    spdlog::warn(
        "--no-check-certificate: server certificates are NOT verified; anyone between this "
        "machine and the servers can read and change what the crawl fetches");
  }
  if (options.fp_rate > 0.5) {
    spdlog::warn(
        "--fp-rate {}: more than half of the new URLs would be taken for seen and never crawled",
        options.fp_rate);
  }
}

// Before anything reads or wipes them (--fresh): one crawl per directory.
absl::Status LockCrawlDirs(const CrawlOptions& options, CrawlParts* parts) {
  std::vector<std::string> dirs = {options.out_dir};
  if (!options.state_dir.empty() && options.frontier.empty()) dirs.push_back(options.state_dir);
  for (const std::string& dir : dirs) {
    absl::StatusOr<std::unique_ptr<DirLock>> lock = DirLock::Acquire(dir);
    if (!lock.ok()) return lock.status();
    parts->dir_locks.push_back(std::move(*lock));
  }
  return absl::OkStatus();
}

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

// The Sieve (the start's), the politeness policy and the Frontier. The
// policy reads robots.txt's Crawl-delay from the robots cache, built later.
absl::Status BuildSieveAndFrontier(const CrawlOptions& options, CrawlStart* start,
                                   CrawlParts* parts) {
  parts->sieve = std::move(start->sieve);
  absl::StatusOr<std::unique_ptr<PolitePolicy>> policy =
      MakePolitePolicy(options, [parts](const std::string& authority) -> std::optional<double> {
        if (parts->robots.cache == nullptr) return std::nullopt;  // --robots off, or not built yet
        return parts->robots.cache->CrawlDelay(RobotsAuthorityOf(authority));
      });
  if (!policy.ok()) return policy.status();
  parts->policy = policy->get();
  FrontierOptions frontier_options = FrontierOptionsOf(options);
  frontier_options.shared_pages = start->shared_pages;
  frontier_options.server_leases = start->server_leases;
  absl::StatusOr<LinkPriority> priority = LinkPriority::Create(options);
  if (!priority.ok()) return priority.status();
  frontier_options.priority = std::make_shared<const LinkPriority>(*std::move(priority));
  // Hosts grouped by the server they resolve to: --per-ip, --ip-delay.
  absl::StatusOr<std::shared_ptr<HostAddresses>> addresses = MakeAddressBook(options);
  if (!addresses.ok()) return addresses.status();
  frontier_options.addresses = *std::move(addresses);
  absl::StatusOr<std::unique_ptr<Frontier>> frontier =
      Frontier::Create(parts->sieve.get(), frontier_options, std::move(*policy));
  if (!frontier.ok()) return frontier.status();
  parts->frontier = std::move(*frontier);
  return absl::OkStatus();
}

// --recrawl: every page of the previous crawl goes into the Sieve with its
// PreviousFetch (its redirects and failures without), before this crawl's
// own seeds (which it then holds); the depth-0 ones are also appended to
// `*seeds` when it is not null.
absl::Status QueuePreviousPages(const CrawlOptions& options, CrawlParts* parts,
                                std::vector<std::string>* seeds) {
  Frontier* frontier = parts->frontier.get();
  absl::StatusOr<PreviousCrawlReport> read = ForEachPreviousPage(
      options.recrawl, RevisitBoundsOf(options), options.strict, [frontier, seeds](CrawlUrl url) {
        if (seeds != nullptr && url.depth == 0) seeds->push_back(url.url);
        frontier->Offer(url);
      });
  if (!read.ok()) return read.status();
  parts->stats.StartRecrawl(read->skipped_lines);
  spdlog::info(
      "--recrawl {}: {} pages to revisit, {} redirects and failures to ask again, from {} "
      "lines{}",
      options.recrawl, read->pages, read->asked_again, read->lines,
      read->skipped_lines > 0 ? absl::StrCat(", ", read->skipped_lines, " damaged lines skipped")
                              : std::string());
  return absl::OkStatus();
}

// The seeds before normalizing: the checkpoint's on --resume, else those
// given; with none given, --recrawl's depth-0 pages (kept in `*previous`).
// The previous log is read once, here: its pages go into the Sieve before
// any seed, and with no seeds given its depth-0 pages stand for them (they
// set the scope). Returns a view of one of the three lists: a million seeds
// are not copied.
absl::StatusOr<const std::vector<std::string>*> RawSeedsOf(
    const CrawlOptions& options, const CrawlStart& start,
    const std::vector<std::string>& given_seeds, CrawlParts* parts,
    std::vector<std::string>* previous) {
  if (!options.recrawl.empty() && !start.resumed) {
    absl::Status queued =
        QueuePreviousPages(options, parts, given_seeds.empty() ? previous : nullptr);
    if (!queued.ok()) return queued;
    if (given_seeds.empty() && previous->empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--recrawl ", options.recrawl, ": the previous crawl fetched no seed page"));
    }
  }
  return &Checkpointer::SeedsOf(start, previous->empty() ? given_seeds : *previous);
}

// The filter of the seeds' scope, the trap defences and the PageProcessor.
absl::Status BuildPageProcessor(const CrawlOptions& options, const std::vector<std::string>& seeds,
                                CrawlParts* parts) {
  absl::StatusOr<std::unique_ptr<LinkFilter>> filter = LinkFilter::Create(options, seeds);
  if (!filter.ok()) return filter.status();
  parts->filter = std::move(*filter);
  LinkOptions link_options;
  link_options.honor_nofollow = !options.ignore_nofollow;
  ParseLinkParser(options.parser, &link_options.parser);  // validated by the option table
  link_options.normalize.max_length = options.max_url_length;
  parts->traps = std::make_unique<TrapGuard>(options);
  parts->duplicates = std::make_unique<DuplicateContentGuard>(options.trap_duplicate_content);
  parts->processor = std::make_unique<PageProcessor>(parts->filter.get(), parts->frontier.get(),
                                                     link_options, options.max_redirects,
                                                     parts->traps.get(), parts->duplicates.get());
  return absl::OkStatus();
}

// The Checkpointer (which, on --resume, puts the checkpoint's counts back and
// cuts pages.jsonl's torn tail before it is opened), pages.jsonl and the
// WARC file.
absl::Status OpenOutputs(const CrawlOptions& options, std::vector<std::string> seeds,
                         CrawlStart* start, CrawlParts* parts) {
  parts->checkpointer = std::make_unique<Checkpointer>(
      options, std::move(seeds), std::move(start->state),
      Checkpointer::Parts{
          parts->sieve.get(), parts->frontier.get(), &parts->stats,
          [parts] { return parts->warc != nullptr ? parts->warc->Sync() : absl::OkStatus(); },
          parts->policy,
          [parts] {
            return parts->fetcher != nullptr ? parts->fetcher->CookieJar() : std::string();
          },
          parts->traps.get()});
  PageLogOptions log_options;
  log_options.dir = options.out_dir;
  log_options.append = start->resumed;
  // With a shared frontier there is no checkpoint to re-fetch a lost tail
  // from: a page is done for the fleet once its record is appended, so each
  // record goes to the kernel then (a write(2) per page) and a SIGKILL loses
  // none of them.
  if (!options.frontier.empty()) log_options.flush_every = 1;
  if (start->resumed) {
    absl::Status restored = parts->checkpointer->Restore(
        (std::filesystem::path(log_options.dir) / log_options.file_name).string());
    if (!restored.ok()) return restored;
  }
  parts->pages_at_start = parts->stats.Snapshot().pages;  // 0 unless resumed
  absl::StatusOr<std::unique_ptr<PageLog>> log = PageLog::Open(log_options);
  if (!log.ok()) return log.status();
  parts->log = std::move(*log);
  absl::StatusOr<std::unique_ptr<WarcSink>> warc = WarcSink::Create(options);
  if (!warc.ok()) return warc.status();
  parts->warc = std::move(*warc);
  return absl::OkStatus();
}

// The seeds through the filter into the Frontier at depth 0, counted, in
// batches: one Sieve::PushBatch per kSeedBatch seeds (a million seeds pushed
// one by one took ~2 s of a crawl's start).
void OfferSeeds(const std::vector<std::string>& seeds, CrawlParts* parts) {
  constexpr size_t kSeedBatch = 4096;
  LinkCounts seed_counts;
  for (size_t first = 0; first < seeds.size(); first += kSeedBatch) {
    const size_t end = std::min(seeds.size(), first + kSeedBatch);
    std::vector<std::string> batch(seeds.begin() + static_cast<ptrdiff_t>(first),
                                   seeds.begin() + static_cast<ptrdiff_t>(end));
    parts->frontier->OfferLinks(parts->processor->Filter(std::move(batch), 0, &seed_counts),
                                /*depth=*/0, /*parent=*/"");
  }
  parts->stats.AddLinks(seed_counts);
}

// The robots gate, the retry queue, the parsers and, last, the Fetcher,
// whose answers go to the gate or the scheduler.
absl::Status BuildFetching(const CrawlOptions& options, const SchedulerHooks& hooks,
                           CrawlParts* parts) {
  absl::StatusOr<RobotsParts> robots = MakeRobots(
      options,
      {parts->frontier.get(), parts->processor.get(), parts->log.get(), &parts->stats,
       [parts](FetchRequest r) { return parts->fetcher->Submit(std::move(r)); }, hooks.wake,
       [parts, stop = hooks.stop](const FetchResult& r, const CrawlUrl&) {
         // robots.txt and sitemaps
         if (parts->warc != nullptr && !parts->warc->Archive(r).ok()) stop();
       },
       [parts] { return parts->checkpointer->CommitScope(); }});
  if (!robots.ok()) return robots.status();
  parts->robots = std::move(*robots);
  parts->retries = std::make_unique<RetryQueue>(
      RetryOptions{options.retries, absl::Seconds(options.retry_backoff_s)});
  parts->parsers = std::make_unique<ParsePool<ParseJob>>(options.threads, hooks.on_parsed);
  FetchOptions fetch_options = FetchOptionsOf(options, parts->checkpointer->seeds());
  fetch_options.restored_cookies = parts->checkpointer->RestoredCookies();  // "" unless resumed
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher =
      Fetcher::Create(fetch_options, hooks.on_fetched);
  if (!fetcher.ok()) return fetcher.status();
  parts->fetcher = std::move(*fetcher);
  return absl::OkStatus();
}

absl::Status BuildInto(const CrawlOptions& options, const std::vector<std::string>& given_seeds,
                       const SchedulerHooks& hooks, CrawlParts* parts) {
  WarnOfRiskyOptions(options);
  if (absl::Status locked = LockCrawlDirs(options, parts); !locked.ok()) return locked;
  if (absl::Status kept = RefuseToOverwriteRecords(options); !kept.ok()) return kept;
  absl::StatusOr<CrawlStart> start = OpenCrawlStart(options);  // new Sieve, or the checkpoint's
  if (!start.ok()) return start.status();
  if (absl::Status built = BuildSieveAndFrontier(options, &*start, parts); !built.ok()) {
    return built;
  }
  std::vector<std::string> previous_seeds;  // --recrawl's, when no seeds are given
  absl::StatusOr<const std::vector<std::string>*> raw_seeds =
      RawSeedsOf(options, *start, given_seeds, parts, &previous_seeds);
  if (!raw_seeds.ok()) return raw_seeds.status();
  // --sitemap without seeds: the sitemaps' URLs stand for the seeds where a
  // seed sets something (the scope's hosts, private addresses allowed, the
  // checkpoint's list); the pages come from the sitemaps, nothing else is queued.
  const bool sitemaps_only = (*raw_seeds)->empty() && !options.sitemap_urls.empty();
  absl::StatusOr<std::vector<std::string>> seeds =
      NormalizeSeeds(sitemaps_only ? options.sitemap_urls : **raw_seeds, options);
  if (!seeds.ok()) return seeds.status();
  if (absl::Status built = BuildPageProcessor(options, *seeds, parts); !built.ok()) return built;
  // The Checkpointer keeps the one copy of the normalized seeds.
  if (absl::Status opened = OpenOutputs(options, *std::move(seeds), &*start, parts); !opened.ok()) {
    return opened;
  }
  if (!start->resumed && !sitemaps_only) {  // a resumed crawl's seeds are in its Sieve
    OfferSeeds(parts->checkpointer->seeds(), parts);
  }
  return BuildFetching(options, hooks, parts);
}

}  // namespace

absl::StatusOr<std::unique_ptr<CrawlParts>> BuildCrawlParts(const CrawlOptions& options,
                                                            const std::vector<std::string>& seeds,
                                                            const SchedulerHooks& hooks) {
  auto parts = std::make_unique<CrawlParts>();
  if (absl::Status built = BuildInto(options, seeds, hooks, parts.get()); !built.ok()) {
    return built;
  }
  return parts;
}

}  // namespace crawler
