// sieve/options.h: how a Sieve is sized and where it spills. Every field has a
// default; Sieve::Create validates them and refuses bad ones with
// InvalidArgument, so a Sieve that exists is valid. config/crawl.toml mirrors
// these fields.
//
//   sieve::SieveOptions options;
//   options.expected_count = 50'000'000;
//   options.fp_rate = 0.001;
//   options.spill_dir = "/var/tmp/crawl";
//   auto sieve = sieve::Sieve::Create(options);
//
// Threading: plain data.
#ifndef SIEVE_OPTIONS_H_
#define SIEVE_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "absl/status/statusor.h"
#include "bloom/params.h"
#include "sieve/log.h"

namespace sieve {

// What happens when more distinct URLs arrive than expected_count.
enum class OverflowPolicy {
  // Keep the one filter: its false-positive rate rises past fp_rate (about 2x
  // at 1.2x the count, 8x at 2x for p = 1%), and more new URLs are wrongly
  // dropped. A warning is logged when the estimated count passes capacity and
  // again at each doubling. Memory stays fixed.
  kWarn,
  // Switch to bloom::ScalableBloomFilter: new stages are added as the count
  // grows, so the compound rate stays under fp_rate; memory grows with the
  // count (about 1 extra bit per key per stage) and lookups probe every stage.
  kGrow,
};

const char* OverflowPolicyName(OverflowPolicy policy);  // "warn" / "grow"
// Parses "warn" / "grow" (as in crawl.toml and --overflow); InvalidArgument otherwise.
absl::StatusOr<OverflowPolicy> ParseOverflowPolicy(std::string_view name);

// The order of URLs of one priority (one lane; see Sieve::Push).
enum class LaneOrder {
  kFifo,  // oldest first: breadth-first crawling, the default
  kLifo,  // newest first: Scrapy's default memory and disk queues
};

struct SieveOptions {
  // n: the number of distinct URLs the filter is sized for (>= 1). At p = 1%
  // the filter costs about 1.3 bytes per expected URL (blocked layout): 1e7 ->
  // 13 MB, 1e9 -> 1.3 GB. Under-sizing raises the rate (see OverflowPolicy).
  uint64_t expected_count = 10'000'000;
  // p: wanted rate of new URLs wrongly dropped as "seen", in (0, 1). Each
  // halving of p costs about 1.44 more bits per URL.
  double fp_rate = 0.01;
  // Bytes of queued URLs kept in memory (>= 64 KiB). Past it, the queue moves
  // segments of budget/8 bytes to files in spill_dir. Bigger: fewer disk
  // round-trips; smaller: less RAM. 64 MiB holds ~800k typical URLs.
  size_t queue_memory_budget_bytes = size_t{64} << 20;
  // Where the queue spills (a private sieve-spill-XXXXXX directory is created
  // inside on first spill and removed with the Sieve). Empty: the system
  // temporary directory ($TMPDIR or /tmp). Created if missing.
  std::filesystem::path spill_dir;
  // Past expected_count: kWarn keeps memory fixed and lets the rate rise;
  // kGrow keeps the rate under fp_rate and lets memory grow (up to
  // filter_memory_max_bytes). Either way a warning is logged when the count
  // passes expected_count and at each doubling, saying what the filter costs
  // now. The library's default stays kWarn (fixed memory, as before; the
  // checkpoint golden bytes use it); the crawl program defaults to kGrow.
  OverflowPolicy overflow_policy = OverflowPolicy::kWarn;
  // With kGrow: the most memory the filter may take, in bytes (0 = no cap).
  // Stages are added while their total stays within it; once the last one
  // allowed is full the filter keeps filling as under kWarn (its rate rises
  // past fp_rate) and a warning says so once. The first stage (expected_count
  // at fp_rate / 2) is always built, whatever the cap. Ignored with kWarn.
  uint64_t filter_memory_max_bytes = 0;
  // The filter's layout: kBlocked (one cache miss per URL, ~10% more bits) or
  // kClassic (textbook, k misses per URL). See bloom/params.h.
  bloom::Layout layout = bloom::Layout::kBlocked;
  // Ask for transparent huge pages for filters of 2 MiB and more.
  bool huge_pages = true;
  // The order within each priority's lane. Saved in checkpoints (Sieve::Open
  // takes it from there). RedisSieve supports kFifo only.
  LaneOrder lane_order = LaneOrder::kFifo;
  // Where the Sieve's messages go: the over-capacity warning, spill and
  // read-back failures, the filter's size (sieve/log.h says which, and the
  // sink's threading rule). Empty: StderrLogSink (kInfo and up to stderr).
  // Sieve::Open takes it from its `runtime` options.
  LogSink log_sink = nullptr;
  // The exact sample of the URL stream behind Stats().fp_measured, the
  // false-positive rate measured rather than computed (docs/fp-rate.md). It
  // keeps at most this many URL keys (~18 bytes each: 2^17 -> <= 2.4 MB at
  // any crawl size), sampling 1 URL in S, S doubling whenever the sample is
  // full (S ~ 2^13 at 1e9 URLs). Bigger: a tighter interval (about
  // +-2/sqrt(p * max) relative) and more pushes that touch the sample. 0: no
  // sample (Stats().fp_measured stays nullopt).
  uint64_t fp_sample_max_urls = uint64_t{1} << 17;
  // S starts at 2^this (0: every URL until the sample is full). Fixing it
  // high makes every process sample the same URLs from the first push.
  uint32_t fp_sample_min_one_in_log2 = 0;
};

}  // namespace sieve

#endif  // SIEVE_OPTIONS_H_
