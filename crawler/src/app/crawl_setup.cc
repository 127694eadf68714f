#include "app/crawl_setup.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
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

}  // namespace crawler
