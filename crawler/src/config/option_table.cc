// The rows of the option table: every CrawlOptions field, where it lives in
// crawl.toml, its flag and its bounds. Order is the order of --help.
#include "config/option_table.h"

#include <array>
#include <limits>
#include <type_traits>

#include "config/strings.h"

namespace crawler::config_internal {
namespace {

// get/set for one field, generated from the member pointer so a row cannot
// read one field and write another.
template <auto Member>
OptionValue Get(const CrawlOptions& options) {
  const auto& field = options.*Member;
  using T = std::remove_cvref_t<decltype(field)>;
  if constexpr (std::is_same_v<T, int>) {
    return static_cast<int64_t>(field);
  } else if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<uint64_t>(field);
  } else {
    return field;
  }
}

template <auto Member>
void Set(CrawlOptions& options, const OptionValue& value) {
  auto& field = options.*Member;
  using T = std::remove_cvref_t<decltype(field)>;
  if constexpr (std::is_same_v<T, int> || (std::is_unsigned_v<T> && !std::is_same_v<T, bool>)) {
    // Counts arrive as uint64_t, signed integers as int64_t; the row's bounds
    // have already guaranteed that the value fits T.
    if (const auto* unsigned_value = std::get_if<uint64_t>(&value)) {
      field = static_cast<T>(*unsigned_value);
    } else {
      field = static_cast<T>(std::get<int64_t>(value));
    }
  } else {
    field = std::get<T>(value);
  }
}

template <auto Member>
constexpr OptionSpec Row(std::string_view section, std::string_view key, std::string_view flag,
                         std::string_view metavar, Kind kind, std::string_view help) {
  OptionSpec spec{
      .section = section, .key = key, .flag = flag, .metavar = metavar, .help = help, .kind = kind};
  spec.get = &Get<Member>;
  spec.set = &Set<Member>;
  return spec;
}

constexpr OptionSpec Bounded(OptionSpec spec, double min, double max = kUnbounded) {
  spec.min = min;
  spec.max = max;
  return spec;
}

constexpr OptionSpec Positive(OptionSpec spec) {
  spec.above_min = true;
  return spec;
}

constexpr OptionSpec OneOf(OptionSpec spec, std::string_view choices) {
  spec.choices = choices;
  return spec;
}

constexpr OptionSpec Items(OptionSpec spec, ListItem item) {
  spec.item = item;
  return spec;
}

constexpr OptionSpec Secret(OptionSpec spec) {
  spec.secret = true;
  return spec;
}

constexpr double kIntMax = std::numeric_limits<int>::max();

using O = CrawlOptions;
const std::array kRows = {
    Row<&O::seeds_file>("seeds", "file", "seeds", "FILE", Kind::kText,
                        "start URLs, one per line; # comments"),
    Row<&O::strict>("seeds", "strict", "strict", "", Kind::kSwitch,
                    "a bad seed line is fatal instead of skipped"),
    Bounded(Row<&O::expected>("crawl", "expected", "expected", "N", Kind::kCount,
                              "distinct URLs expected; sizes the Bloom filter"),
            1),
    Row<&O::fp_rate>("crawl", "fp_rate", "fp-rate", "RATE", Kind::kFraction,
                     "seen-set false-positive rate, in (0, 1)"),
    Row<&O::max_pages>("crawl", "max_pages", "max-pages", "N", Kind::kCount,
                       "stop after N pages (0 = unlimited)"),
    Row<&O::max_pages_per_host>("crawl", "max_pages_per_host", "max-pages-per-host", "N",
                                Kind::kCount, "at most N pages per host (0 = unlimited)"),
    Bounded(Row<&O::max_depth>("crawl", "max_depth", "max-depth", "N", Kind::kInteger,
                               "follow links at most N hops from a seed (-1 = unlimited)"),
            -1, kIntMax),
    Row<&O::scope>("crawl", "scope", "scope", "host|domain|any", Kind::kScope,
                   "follow links within the seeds' hosts, domains, or anywhere"),
    Row<&O::allow>("crawl", "allow", "allow", "REGEX", Kind::kTextList,
                   "follow only URLs matching (RE2, repeatable)"),
    Row<&O::deny>("crawl", "deny", "deny", "REGEX", Kind::kTextList,
                  "never follow URLs matching (RE2, repeatable)"),
    Items(Row<&O::reject_ext>("crawl", "reject_ext", "reject-ext", "EXT,EXT", Kind::kTextList,
                              "never fetch links ending in .EXT (pdf,zip,mp4; repeatable)"),
          ListItem::kExtensions),
    Row<&O::prefer>("crawl", "prefer", "prefer", "REGEX", Kind::kTextList,
                    "fetch URLs matching first: priority +10 (RE2, repeatable)"),
    Row<&O::defer>("crawl", "defer", "defer", "REGEX", Kind::kTextList,
                   "fetch URLs matching last: priority -10 (RE2, repeatable)"),
    Bounded(
        Row<&O::depth_priority>("crawl", "depth_priority", "depth-priority", "N", Kind::kInteger,
                                "priority -= N x depth (0 = none; negative: deeper first)"),
        -100, 100),
    Bounded(Row<&O::sitemap_priority>("crawl", "sitemap_priority", "sitemap-priority", "N",
                                      Kind::kInteger,
                                      "a sitemap's <priority> 1.0 adds N, 0.0 takes N away (0 = "
                                      "ignored)"),
            0, 100),
    Row<&O::ignore_nofollow>("crawl", "ignore_nofollow", "ignore-nofollow", "", Kind::kSwitch,
                             "follow rel=nofollow links too"),
    OneOf(Row<&O::parser>("crawl", "parser", "parser", "scanner|gumbo", Kind::kChoice,
                          "who finds links: the tokenizer scanner (Gumbo where it cannot "
                          "decide) or Gumbo's tree; the same links"),
          "scanner|gumbo"),
    Bounded(Row<&O::max_url_length>("crawl", "max_url_length", "max-url-length", "N", Kind::kCount,
                                    "drop URLs longer than N bytes"),
            16, 1 << 20),
    Row<&O::trap_host_budget>("crawl", "trap_host_budget", "trap-host-budget", "N", Kind::kCount,
                              "pages per host, +1000 per host linking in (0 = off)"),
    Row<&O::trap_query_variants>("crawl", "trap_query_variants", "trap-query-variants", "N",
                                 Kind::kCount, "pages with a query per host and path (0 = off)"),
    Row<&O::trap_repeated_segments>("crawl", "trap_repeated_segments", "trap-repeated-segments",
                                    "N", Kind::kCount,
                                    "drop paths repeating 1-3 segments N times (0 = off)"),
    Row<&O::trap_duplicate_content>("crawl", "trap_duplicate_content", "trap-duplicate-content",
                                    "N", Kind::kCount,
                                    "follow links of N pages per host with the same content "
                                    "(0 = off)"),
    Bounded(Row<&O::threads>("fetch", "threads", "threads", "N", Kind::kCount,
                             "worker threads parsing pages"),
            1, 1024),
    Bounded(Row<&O::fetch_threads>("fetch", "fetch_threads", "fetch-threads", "N", Kind::kCount,
                                   "threads driving the transfers (curl multi handles)"),
            1, 64),
    Bounded(Row<&O::connections>("fetch", "connections", "connections", "N", Kind::kCount,
                                 "concurrent transfers in total"),
            1, 100'000),
    Bounded(Row<&O::per_host>("fetch", "per_host", "per-host", "N", Kind::kCount,
                              "concurrent transfers per host:port"),
            1, 1024),
    Row<&O::delay_s>("fetch", "delay", "delay", "DURATION", Kind::kSeconds,
                     "between request starts to one host (200ms, 1s, 0)"),
    Bounded(Row<&O::per_ip>("fetch", "per_ip", "per-ip", "N", Kind::kInteger,
                            "concurrent transfers per server address, all its host names "
                            "(-1 = max(4, per-host), 0 = no limit)"),
            -1, 1024),
    Bounded(Row<&O::ip_delay>("fetch", "ip_delay", "ip-delay", "DURATION|auto", Kind::kText,
                              "between request starts to one server address (auto = delay/4)"),
            1),
    Row<&O::adaptive_delay>("fetch", "adaptive_delay", "adaptive-delay", "", Kind::kSwitch,
                            "per host, adapt the delay to 429s and latency; --delay is the "
                            "floor"),
    Bounded(Row<&O::user_agent>("fetch", "user_agent", "user-agent", "TEXT", Kind::kText,
                                "User-Agent header and robots.txt agent"),
            1),
    Positive(Row<&O::timeout_s>("fetch", "timeout", "timeout", "DURATION", Kind::kSeconds,
                                "whole-transfer timeout")),
    Positive(Row<&O::connect_timeout_s>("fetch", "connect_timeout", "connect-timeout", "DURATION",
                                        Kind::kSeconds, "connection (TCP+TLS) timeout")),
    Bounded(Row<&O::max_body>("fetch", "max_body", "max-body", "SIZE", Kind::kBytes,
                              "truncate bodies beyond SIZE (10MiB, 1048576)"),
            1),
    Bounded(Row<&O::max_redirects>("fetch", "max_redirects", "max-redirects", "N", Kind::kCount,
                                   "redirect hops followed per request"),
            0, 100),
    Bounded(Row<&O::retries>("fetch", "retries", "retries", "N", Kind::kCount,
                             "retries of a transient failure"),
            0, 100),
    Row<&O::retry_backoff_s>("fetch", "retry_backoff", "retry-backoff", "DURATION", Kind::kSeconds,
                             "wait before the first retry; doubles per retry"),
    Row<&O::robots>("fetch", "robots", "robots", "on|off", Kind::kOnOff, "obey robots.txt"),
    Positive(Row<&O::robots_retry_s>("fetch", "robots_retry", "robots-retry", "DURATION",
                                     Kind::kSeconds, "first wait to refetch a failed robots.txt")),
    Row<&O::sitemaps>("fetch", "sitemaps", "sitemaps", "", Kind::kSwitch,
                      "crawl the URLs of robots.txt Sitemap: files"),
    Items(Row<&O::sitemap_urls>(
              "fetch", "sitemap_urls", "sitemap", "URL", Kind::kTextList,
              "also crawl the URLs of this sitemap (repeatable; with no seeds, start from it)"),
          ListItem::kUrl),
    Items(Row<&O::accept_types>("fetch", "accept_types", "accept-type", "TYPE", Kind::kTextList,
                                "keep only responses of this media type (text/html, image/*; "
                                "repeatable)"),
          ListItem::kMediaType),
    Items(Row<&O::reject_types>("fetch", "reject_types", "reject-type", "TYPE", Kind::kTextList,
                                "abort responses of this media type after the headers "
                                "(repeatable)"),
          ListItem::kMediaType),
    OneOf(Row<&O::block_private>("fetch", "block_private", "block-private", "auto|on|off",
                                 Kind::kChoice,
                                 "refuse private/loopback addresses (auto: unless a seed is one)"),
          "auto|on|off"),
    Secret(Row<&O::proxy>("fetch", "proxy", "proxy", "URL", Kind::kText,
                          "proxy for every request: http://, https://, socks5://, socks5h://")),
    Row<&O::no_proxy_env>("fetch", "no_proxy_env", "no-proxy-env", "", Kind::kSwitch,
                          "ignore http_proxy, https_proxy, all_proxy and no_proxy"),
    Secret(Items(Row<&O::headers>("fetch", "headers", "header", "'NAME: VALUE'", Kind::kTextList,
                                  "extra request header (repeatable; [[hosts]] headers per host)"),
                 ListItem::kHeader)),
    Row<&O::cookies>("fetch", "cookies", "cookies", "on|off", Kind::kOnOff,
                     "one cookie jar per crawl: send back the cookies servers set"),
    Row<&O::load_cookies>("fetch", "load_cookies", "load-cookies", "FILE", Kind::kText,
                          "read cookies from FILE (Netscape format) at the start"),
    Row<&O::ca_certificate>("fetch", "ca_certificate", "ca-certificate", "FILE", Kind::kText,
                            "verify servers against this PEM CA bundle, not the system's"),
    Row<&O::no_check_certificate>("fetch", "no_check_certificate", "no-check-certificate", "",
                                  Kind::kSwitch,
                                  "do not verify server certificates (insecure: warned)"),
    Row<&O::certificate>("fetch", "certificate", "certificate", "FILE", Kind::kText,
                         "client certificate (PEM) for servers that ask for one"),
    Row<&O::private_key>("fetch", "private_key", "private-key", "FILE", Kind::kText,
                         "the client certificate's key (PEM), if not in its file"),
    Row<&O::resolve>("fetch", "resolve", "resolve", "HOST:PORT:ADDR", Kind::kTextList,
                     "connect to ADDR for HOST:PORT, as curl --resolve (repeatable)"),
    Row<&O::save_cookies>("fetch", "save_cookies", "save-cookies", "FILE", Kind::kText,
                          "write the cookie jar to FILE (Netscape format) at the end"),
    Bounded(Row<&O::queue_memory>("queue", "memory", "queue-memory", "SIZE", Kind::kBytes,
                                  "RAM for the to-visit queue before it spills to disk"),
            1),
    Row<&O::spill_dir>("queue", "spill_dir", "spill-dir", "DIR", Kind::kText,
                       "where the queue spills (default OUT/spill; same filesystem as --state)"),
    OneOf(Row<&O::overflow>("queue", "overflow", "overflow", "grow|warn", Kind::kChoice,
                            "beyond --expected URLs: grow the filter, or warn (fixed memory, "
                            "URLs lost)"),
          "grow|warn"),
    Row<&O::filter_memory_max>("queue", "filter_memory_max", "filter-memory-max", "SIZE",
                               Kind::kBytes, "cap for --overflow grow (0 = none); past it, warn"),
    Row<&O::frontier>(
        "queue", "frontier", "frontier", "URL", Kind::kText,
        "share the queue: redis://HOST:PORT/NAME, or redis-cluster://HOST:PORT[,...]/NAME "
        "(default in memory)"),
    Bounded(Row<&O::out_dir>("output", "dir", "out", "DIR", Kind::kText,
                             "directory of the crawl's results"),
            1),
    Row<&O::warc_prefix>("output", "warc", "warc", "PREFIX", Kind::kText,
                         "also archive fetches in PREFIX-00000.warc.gz, ... (WARC 1.1)"),
    Bounded(Row<&O::warc_max_size>("output", "warc_max_size", "warc-max-size", "SIZE", Kind::kBytes,
                                   "start a new WARC file before SIZE (1GiB)"),
            1024),
    Row<&O::state_dir>("state", "dir", "state", "DIR", Kind::kText,
                       "checkpoint directory (default OUT/state)"),
    Row<&O::resume>("state", "resume", "resume", "", Kind::kSwitch,
                    "continue from the checkpoint in the state directory (its own seeds: "
                    "URLs given with it are refused)"),
    Row<&O::fresh>("state", "fresh", "fresh", "", Kind::kSwitch,
                   "discard an existing checkpoint and pages.jsonl, and start over"),
    Positive(Row<&O::checkpoint_every_s>("state", "checkpoint_every", "checkpoint-every",
                                         "DURATION", Kind::kSeconds, "time between checkpoints")),
    Row<&O::recrawl>("recrawl", "previous", "recrawl", "PREV_OUT", Kind::kText,
                     "revisit the pages of the crawl in PREV_OUT (conditional GET; not-due "
                     "pages carried)"),
    Positive(Row<&O::revisit_min_s>("recrawl", "revisit_min", "revisit-min", "DURATION",
                                    Kind::kSeconds, "shortest revisit interval (1h)")),
    Positive(Row<&O::revisit_max_s>("recrawl", "revisit_max", "revisit-max", "DURATION",
                                    Kind::kSeconds, "longest revisit interval (30d)")),
    OneOf(Row<&O::log_level>("log", "level", "log-level", "LEVEL", Kind::kChoice,
                             "trace, debug, info, warn, error or off"),
          "trace|debug|info|warn|error|off"),
    Row<&O::quiet>("log", "quiet", "quiet", "", Kind::kSwitch, "no progress output"),
    OneOf(Row<&O::log_format>("log", "format", "log-format", "text|json", Kind::kChoice,
                              "log lines as text (UTC, ISO 8601) or one JSON object each"),
          "text|json"),
    Row<&O::metrics>("log", "metrics", "metrics", "[ADDR:]PORT", Kind::kText,
                     "serve Prometheus metrics at /metrics (PORT alone: 127.0.0.1)"),
    Row<&O::debug_pipeline>("log", "debug_pipeline", "debug-pipeline", "FILE", Kind::kText,
                            "write the pipeline's queue depths every 10 ms to FILE (TSV)"),
};

// help and version are not rows (cli.cc answers them first) but have letters.
constexpr std::array<ShortOption, 8> kShortOptions = {{
    {'h', "help", ""},
    {'V', "version", ""},
    {'q', "quiet", ""},
    {'d', "log-level", "debug"},  // wget2 -d, --debug
    {'i', "seeds", ""},           // wget2 -i, --input-file (also "-i -" for stdin)
    {'U', "user-agent", ""},
    {'w', "delay", ""},  // wget2 -w, --wait SECONDS between retrievals
    {'P', "out", ""},    // wget2 -P, --directory-prefix
}};

}  // namespace

std::span<const ShortOption> ShortOptions() { return kShortOptions; }

char ShortLetterOf(std::string_view flag) {
  for (const ShortOption& option : kShortOptions) {
    if (option.flag == flag && option.value.empty()) return option.letter;
  }
  return 0;
}

std::string OptionSpec::FullKey() const { return Cat(section, ".", key); }

std::span<const OptionSpec> OptionTable() { return kRows; }

const OptionSpec* FindByFlag(std::string_view flag) {
  for (const OptionSpec& spec : kRows) {
    if (spec.flag == flag) return &spec;
  }
  return nullptr;
}

const OptionSpec* FindByKey(std::string_view section, std::string_view key) {
  for (const OptionSpec& spec : kRows) {
    if (spec.section == section && spec.key == key) return &spec;
  }
  return nullptr;
}

}  // namespace crawler::config_internal
