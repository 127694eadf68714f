#include "app/crawl_setup.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "crawler/link_filter.h"
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
  if (options.block_private == "on") {
    f.block_private = true;
  } else if (options.block_private == "off") {
    f.block_private = false;
  } else {  // "auto": refuse private addresses unless the crawl starts at one
    f.block_private = std::none_of(seeds.begin(), seeds.end(), [](const std::string& seed) {
      return IsPrivateHost(HostOfUrl(seed));
    });
  }
  return f;
}

}  // namespace crawler
