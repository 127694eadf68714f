// The in-memory Sieve's single-threaded specifics: options validation, close
// keeping the state for Save, spilling stats, overflow warnings and the grow
// policy. The contract both implementations share (dedup, FIFO, batches,
// pop/done/finished, Defer, close, filter stats) is tests/sieve/redis/
// contract_test.cc, run on MemorySieve and RedisSieve.
#include "sieve/sieve.h"

#include <chrono>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../../sieve/src/overflow_warning.h"
#include "gtest/gtest.h"
#include "sieve/test_urls.h"

namespace sieve {
namespace {

using sieve_test::ScratchDir;
using sieve_test::TestUrl;

std::unique_ptr<Sieve> MakeSieve(SieveOptions options) {
  absl::StatusOr<std::unique_ptr<Sieve>> sieve = Sieve::Create(options);
  EXPECT_TRUE(sieve.ok()) << sieve.status();
  return sieve.ok() ? *std::move(sieve) : nullptr;
}

SieveOptions Small(const ScratchDir& dir, uint64_t expected = 10000) {
  SieveOptions options;
  options.expected_count = expected;
  options.spill_dir = dir.path();
  options.queue_memory_budget_bytes = 64 << 10;
  return options;
}

TEST(SieveOptionsTest, InvalidOptionsAreRefusedWithTheFieldNamed) {
  struct Case {
    SieveOptions options;
    std::string field;
  };
  std::vector<Case> cases(5);
  cases[0].options.expected_count = 0;
  cases[0].field = "expected_count";
  cases[1].options.fp_rate = 0;
  cases[1].field = "fp_rate";
  cases[2].options.fp_rate = 1.5;
  cases[2].field = "fp_rate";
  cases[3].options.queue_memory_budget_bytes = 1000;
  cases[3].field = "queue_memory_budget_bytes";
  cases[4].options.spill_dir = "/proc/self/no/such/dir";
  cases[4].field = "spill_dir";
  for (const Case& c : cases) {
    absl::StatusOr<std::unique_ptr<Sieve>> sieve = Sieve::Create(c.options);
    ASSERT_FALSE(sieve.ok()) << c.field;
    EXPECT_EQ(sieve.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(sieve.status().message().find(c.field), absl::string_view::npos) << sieve.status();
  }
}

TEST(SieveOptionsTest, PolicyNamesRoundTrip) {
  EXPECT_EQ(*ParseOverflowPolicy("warn"), OverflowPolicy::kWarn);
  EXPECT_EQ(*ParseOverflowPolicy("grow"), OverflowPolicy::kGrow);
  EXPECT_STREQ(OverflowPolicyName(OverflowPolicy::kGrow), "grow");
  EXPECT_FALSE(ParseOverflowPolicy("explode").ok());
}

TEST(SieveTest, CloseWakesAndRefuses) {
  ScratchDir dir;
  auto sieve = MakeSieve(Small(dir));
  sieve->Push("https://a.example/");
  sieve->Push("https://b.example/");
  ASSERT_TRUE(sieve->Pop());
  sieve->Close();
  EXPECT_FALSE(sieve->Pop());
  EXPECT_FALSE(sieve->TryPop());
  EXPECT_FALSE(sieve->Push("https://c.example/"));
  SieveStats stats = sieve->Stats();
  EXPECT_TRUE(stats.closed);
  EXPECT_EQ(stats.queued, 1u);  // kept for Save
  EXPECT_EQ(stats.in_flight, 1u);
}

// The in-memory Sieve makes a lazy payload only for a URL its filter has not
// seen: the point of PushLazy (Scrapy's scheduler pickles a request only if
// it is new). The contract test beside the Redis ones checks the results.
TEST(SieveTest, PushLazyMakesThePayloadOnlyForANewUrl) {
  ScratchDir dir;
  auto sieve = MakeSieve(Small(dir));
  int made = 0;
  auto payload = [&]() -> std::optional<std::string> {
    ++made;
    return std::string("p") + std::to_string(made);
  };
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 100; ++i) sieve->PushLazy(TestUrl(i), payload);
  }
  EXPECT_EQ(made, 100);
  SieveStats stats = sieve->Stats();
  EXPECT_EQ(stats.accepted, 100u);
  EXPECT_EQ(stats.dropped, 200u);
  for (int i = 0; i < 100; ++i) {
    std::optional<SieveEntry> entry = sieve->TryPopEntry();
    ASSERT_TRUE(entry);
    EXPECT_EQ(entry->url, TestUrl(i));
    EXPECT_EQ(entry->payload, std::string("p") + std::to_string(i + 1));
  }
  sieve->Close();
  EXPECT_FALSE(sieve->PushLazy(TestUrl(1000), payload));
  EXPECT_EQ(made, 100);  // closed: refused before anything is made
}

TEST(SieveTest, StatsReportFilterAndQueueSizes) {
  ScratchDir dir;
  auto sieve = MakeSieve(Small(dir, 100000));
  for (int i = 0; i < 20000; ++i) sieve->Push(TestUrl(i));
  SieveStats stats = sieve->Stats();
  EXPECT_EQ(stats.capacity, 100000u);
  EXPECT_DOUBLE_EQ(stats.target_fp_rate, 0.01);
  EXPECT_NEAR(stats.estimated_count.value_or(-1), 20000, 20000 * 0.03);
  EXPECT_GT(stats.fill_ratio, 0.05);
  EXPECT_LT(stats.fill_ratio, 0.3);
  EXPECT_LT(stats.current_fp_rate, 0.01);
  // ~10.5 bits per expected URL at 1% (blocked layout, bloom/params.h).
  EXPECT_GT(stats.filter_bytes, 100000u);
  EXPECT_LT(stats.filter_bytes, 200000u);
  EXPECT_EQ(stats.queued + stats.dropped, 20000u);
  // 20000 URLs of ~75 bytes do not fit a 64 KiB budget: most are on disk
  // (zstd-compressed: these sequential test URLs to ~7 bytes each).
  EXPECT_GT(stats.queue_disk_bytes, 20000u * 3);
  EXPECT_GT(stats.spilled_segments, 0u);
  EXPECT_LT(stats.queue_memory_bytes, 2u * (64 << 10));
}

TEST(SieveTest, QueueSpillsAndStaysInOrder) {
  ScratchDir dir;
  auto sieve = MakeSieve(Small(dir, 200000));
  std::vector<std::string> accepted;
  for (int i = 0; i < 50000; ++i) {
    if (sieve->Push(TestUrl(i))) accepted.push_back(TestUrl(i));
  }
  for (const std::string& url : accepted) {
    std::optional<std::string> got = sieve->TryPop();
    ASSERT_TRUE(got);
    ASSERT_EQ(*got, url);
  }
}

TEST(SieveTest, WarnsOnceAtCapacityAndAgainAtEachDoubling) {
  ScratchDir dir;
  auto sieve = MakeSieve(Small(dir, 20000));
  uint64_t i = 0;
  auto push_until = [&](uint64_t n) {
    for (; i < n; ++i) sieve->Push(TestUrl(i));
    return sieve->Stats().overflow_warnings;
  };
  EXPECT_EQ(push_until(19000), 0u);
  EXPECT_EQ(push_until(22000), 1u);  // passed 1x capacity
  EXPECT_EQ(push_until(38000), 1u);  // no warning per URL
  EXPECT_EQ(push_until(44000), 2u);  // passed 2x
  // Past 2x the rate is ~13%: more and more new URLs are dropped and the
  // filter's count (accepted URLs) grows slower than the pushes; still no
  // warning per URL.
  EXPECT_EQ(push_until(78000), 2u);
}

TEST(SieveTest, WarningNamesTheNumbersAndTheRemediesInTheLibrarysTerms) {
  internal::OverflowFigures f;
  f.estimated_count = 2.1e6;
  f.expected_count = 2000000;
  f.current_fp_rate = 0.012;
  f.target_fp_rate = 0.01;
  f.memory_bytes = 2400000;
  const std::string text = internal::FormatOverflowWarning(f);
  EXPECT_NE(text.find("2100000"), std::string::npos) << text;
  EXPECT_NE(text.find("SieveOptions::expected_count = 2000000"), std::string::npos) << text;
  EXPECT_NE(text.find("0.012"), std::string::npos) << text;
  // In the library's terms (an embedder has no --expected flag).
  EXPECT_NE(text.find("SieveOptions::expected_count"), std::string::npos) << text;
  EXPECT_NE(text.find("OverflowPolicy::kGrow"), std::string::npos) << text;
  EXPECT_NE(text.find("2.29 MiB"), std::string::npos) << text;  // its memory, fixed
  EXPECT_EQ(text.find("--"), std::string::npos) << text;        // no CLI flag names
}

TEST(SieveTest, GrowWarningSaysHowMuchMemoryTheFilterTakesNow) {
  internal::OverflowFigures f;
  f.policy = OverflowPolicy::kGrow;
  f.estimated_count = 4.1e6;
  f.expected_count = 1000000;
  f.current_fp_rate = 0.004;
  f.target_fp_rate = 0.01;
  f.memory_bytes = 15u << 20;
  f.stages = 3;
  const std::string text = internal::FormatOverflowWarning(f);
  EXPECT_NE(text.find("OverflowPolicy::kGrow added stages"), std::string::npos) << text;
  EXPECT_NE(text.find("15 MiB in 3 stages"), std::string::npos) << text;
  f.at_memory_cap = true;
  const std::string capped = internal::FormatOverflowWarning(f);
  EXPECT_NE(capped.find("filter_memory_max_bytes"), std::string::npos) << capped;
  EXPECT_NE(capped.find("as under OverflowPolicy::kWarn"), std::string::npos) << capped;
}

// A small filter's memory read "6.1e-05 MiB".
TEST(SieveTest, WarningSizesAreHumanSized) {
  internal::OverflowFigures f;
  f.estimated_count = 210;
  f.expected_count = 100;
  f.current_fp_rate = 0.02;
  f.target_fp_rate = 0.01;
  for (const auto& [bytes, shown] : std::vector<std::pair<uint64_t, std::string>>{
           {64, "64 bytes"}, {1536, "1.5 KiB"}, {uint64_t{5} << 30, "5 GiB"}}) {
    f.memory_bytes = bytes;
    const std::string text = internal::FormatOverflowWarning(f);
    EXPECT_NE(text.find("memory at " + shown + ","), std::string::npos) << text;
    EXPECT_EQ(text.find("e-05 MiB"), std::string::npos) << text;  // the old "6.1e-05 MiB"
  }
}

TEST(SieveTest, SaturatedWarningHasNoInfiniteNumber) {
  internal::OverflowFigures f;
  f.estimated_count = std::numeric_limits<double>::infinity();
  f.expected_count = 100;
  f.current_fp_rate = 1;
  f.target_fp_rate = 0.01;
  const std::string text = internal::FormatOverflowWarning(f);
  EXPECT_EQ(text.find("inf"), std::string::npos) << text;
  EXPECT_EQ(text.find("-9"), std::string::npos) << text;
}

// Fraction of `probes` never-pushed URLs that the sieve wrongly drops.
double WronglyDropped(Sieve& sieve, uint64_t first, uint64_t probes) {
  uint64_t dropped = 0;
  for (uint64_t i = first; i < first + probes; ++i) dropped += !sieve.Push(TestUrl(i));
  return static_cast<double>(dropped) / static_cast<double>(probes);
}

TEST(SieveTest, GrowPolicyKeepsTheRateBoundedWhereWarnDoesNot) {
  ScratchDir dir;
  SieveOptions options = Small(dir, 10000);
  options.overflow_policy = OverflowPolicy::kGrow;
  auto grow = MakeSieve(options);
  options.overflow_policy = OverflowPolicy::kWarn;
  auto warn = MakeSieve(options);
  for (uint64_t i = 0; i < 80000; ++i) {  // 8x the expected count
    grow->Push(TestUrl(i));
    warn->Push(TestUrl(i));
  }
  // Rates measured on 20000 fresh URLs (fixed, deterministic).
  EXPECT_LT(WronglyDropped(*grow, 1000000, 20000), 0.01);
  EXPECT_GT(WronglyDropped(*warn, 1000000, 20000), 0.2);
  EXPECT_GE(grow->Stats().overflow_warnings, 3u);  // at 1x, 2x, 4x (and 8x) the count
  EXPECT_GT(grow->Stats().capacity, 80000u);
  EXPECT_GT(grow->Stats().filter_bytes, warn->Stats().filter_bytes);
}

TEST(SieveTest, SpillDirectoryIsRemovedWithTheSieve) {
  ScratchDir dir;
  {
    auto sieve = MakeSieve(Small(dir));
    for (int i = 0; i < 20000; ++i) sieve->Push(TestUrl(i));
    ASSERT_GT(sieve_test::CountFiles(dir.path()), 0u);
  }
  EXPECT_EQ(sieve_test::CountFiles(dir.path()), 0u);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

}  // namespace
}  // namespace sieve
