// The measured false-positive rate (sieve/src/fp_sample.h): the Wilson
// interval's numbers, the sample's truth against a stream whose truth the test
// knows, the adaptive share, the checkpoint, and Stats() of a saturated or
// memory-capped filter (no negative or non-finite number).
#include "../../sieve/src/fp_sample.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "bloom/params.h"
#include "gtest/gtest.h"
#include "sieve/sieve.h"
#include "sieve/test_urls.h"

namespace sieve {
namespace {

using sieve_test::ScratchDir;
using sieve_test::TestUrl;

std::unique_ptr<Sieve> MakeSieve(const SieveOptions& options) {
  absl::StatusOr<std::unique_ptr<Sieve>> sieve = Sieve::Create(options);
  EXPECT_TRUE(sieve.ok()) << sieve.status();
  return sieve.ok() ? *std::move(sieve) : nullptr;
}

// Pushes TestUrl(first) .. TestUrl(first + count - 1), in batches.
void PushRange(Sieve& sieve, uint64_t first, uint64_t count) {
  std::vector<std::string> urls;
  std::vector<std::string_view> views;
  for (uint64_t start = first; start < first + count; start += 4096) {
    urls.clear();
    views.clear();
    for (uint64_t i = start; i < std::min(first + count, start + 4096); ++i) {
      urls.push_back(TestUrl(i));
    }
    for (const std::string& u : urls) views.push_back(u);
    sieve.PushBatch(views);
  }
}

void ExpectFiniteAndNonNegative(double x, const char* what) {
  EXPECT_TRUE(std::isfinite(x)) << what << " = " << x;
  EXPECT_GE(x, 0) << what;
}

// Source of truth: the Wilson score interval's textbook values (10 of 100:
// [0.0552, 0.1744]; 0 of 100: [0, 0.0370]).
TEST(WilsonInterval, MatchesTheTextbookValues) {
  const internal::RateInterval ten = internal::WilsonInterval(10, 100);
  EXPECT_DOUBLE_EQ(ten.rate, 0.1);
  EXPECT_NEAR(ten.low, 0.0552, 1e-4);
  EXPECT_NEAR(ten.high, 0.1744, 1e-4);
  const internal::RateInterval none = internal::WilsonInterval(0, 100);
  EXPECT_EQ(none.low, 0);
  EXPECT_NEAR(none.high, 0.0370, 1e-4);
  const internal::RateInterval all = internal::WilsonInterval(100, 100);
  EXPECT_NEAR(all.low, 0.9630, 1e-4);
  EXPECT_EQ(all.high, 1);
}

// The rate a fixed filter's formula predicts, averaged over a stream of
// `pushes` distinct URLs: the filter holds the accepted ones, so push j sees
// FpRateFor(accepted so far) (bloom/params.h), in steps of 1000 pushes.
double ComputedAverageRate(const SieveOptions& o, uint64_t pushes) {
  const bloom::FilterShape shape = *bloom::ShapeFor(o.layout, o.expected_count, o.fp_rate);
  double accepted = 0;
  double dropped = 0;
  constexpr uint64_t kStep = 1000;
  for (uint64_t j = 0; j < pushes; j += kStep) {
    const double rate = bloom::FpRateFor(o.layout, shape.bits, accepted, shape.hash_count);
    dropped += rate * kStep;
    accepted += (1 - rate) * kStep;
  }
  return dropped / static_cast<double>(pushes);
}

// A stream of 2e5 distinct URLs into a filter sized for them (the regime the
// formula is for), classic layout: every drop is a false positive, so the truth is
// 2e5 - accepted. Every URL is sampled (S = 1 under the cap), f ~ 500.
TEST(FpSample, MeasuredRateAgreesWithTheTruthAndTheComputedRate) {
  ScratchDir dir;
  SieveOptions options;
  options.expected_count = 200000;
  options.fp_rate = 0.01;
  options.spill_dir = dir.path();
  options.queue_memory_budget_bytes = 64 << 10;  // spill: keep this process's peak RSS low
  options.fp_sample_min_one_in_log2 = 0;
  options.fp_sample_max_urls = 1 << 20;  // never full here: S stays 1
  // The classic layout: its formula (1 - e^(-kn/m))^k is the textbook one
  // (the blocked layout's is an approximation off by ~10%, bloom/params.h).
  options.layout = bloom::Layout::kClassic;
  auto sieve = MakeSieve(options);
  constexpr uint64_t kUrls = 200000;
  PushRange(*sieve, 0, kUrls);
  const SieveStats stats = sieve->Stats();
  ASSERT_TRUE(stats.fp_measured.has_value()) << stats.fp_measured_unknown;
  const MeasuredFpRate& m = *stats.fp_measured;
  EXPECT_EQ(m.sample_one_in, 1u);
  EXPECT_EQ(m.sampled_new, kUrls);
  const double true_lost = static_cast<double>(kUrls - stats.accepted);
  const double true_rate = true_lost / kUrls;
  EXPECT_LE(m.rate_low, true_rate);
  EXPECT_GE(m.rate_high, true_rate);
  EXPECT_LE(m.wrongly_dropped_low, true_lost);
  EXPECT_GE(m.wrongly_dropped_high, true_lost);
  const double computed = ComputedAverageRate(options, kUrls);
  EXPECT_LE(m.rate_low, computed) << "measured " << m.rate;
  EXPECT_GE(m.rate_high, computed) << "measured " << m.rate;
  EXPECT_GT(m.sampled_false_positives, 300u);  // enough to mean something
}

// A 1/8 sample on a filter overloaded 2.5x (2e5 URLs, sized for 8e4): the
// interval of the rate and of the loss cover the truth.
TEST(FpSample, AOneInEightSampleCoversTheTruth) {
  ScratchDir dir;
  SieveOptions options;
  options.expected_count = 80000;
  options.spill_dir = dir.path();
  options.queue_memory_budget_bytes = 64 << 10;  // spill: keep this process's peak RSS low
  options.fp_sample_min_one_in_log2 = 3;
  options.fp_sample_max_urls = 1 << 20;
  auto sieve = MakeSieve(options);
  constexpr uint64_t kUrls = 200000;
  PushRange(*sieve, 0, kUrls);
  const SieveStats stats = sieve->Stats();
  ASSERT_TRUE(stats.fp_measured.has_value()) << stats.fp_measured_unknown;
  const MeasuredFpRate& m = *stats.fp_measured;
  EXPECT_EQ(m.sample_one_in, 8u);
  EXPECT_NEAR(static_cast<double>(m.sampled_new), kUrls / 8.0, 0.03 * kUrls / 8);
  const double true_lost = static_cast<double>(kUrls - stats.accepted);
  EXPECT_LE(m.rate_low, true_lost / kUrls);
  EXPECT_GE(m.rate_high, true_lost / kUrls);
  EXPECT_LE(m.wrongly_dropped_low, true_lost);
  EXPECT_GE(m.wrongly_dropped_high, true_lost);
  EXPECT_NEAR(m.wrongly_dropped, true_lost, 0.15 * true_lost);
  EXPECT_GT(m.sampled_false_positives, 500u);
}

TEST(FpSample, EveryProcessSamplesTheSameUrlsAndTheShareAdapts) {
  ScratchDir dir;
  SieveOptions options;
  options.expected_count = 1000000;
  options.spill_dir = dir.path();
  options.queue_memory_budget_bytes = 64 << 10;  // spill: keep this process's peak RSS low
  options.fp_sample_max_urls = 4096;
  auto forward = MakeSieve(options);
  auto backward = MakeSieve(options);
  constexpr uint64_t kUrls = 100000;
  for (uint64_t i = 0; i < kUrls; ++i) forward->Push(TestUrl(i));
  for (uint64_t i = kUrls; i-- > 0;) backward->Push(TestUrl(i));
  const MeasuredFpRate a = *forward->Stats().fp_measured;
  const MeasuredFpRate b = *backward->Stats().fp_measured;
  EXPECT_EQ(a.sample_one_in, b.sample_one_in);
  EXPECT_EQ(a.sampled_new, b.sampled_new);
  EXPECT_LE(a.sampled_new, 4096u);
  EXPECT_GE(a.sample_one_in, 16u);  // 1e5 URLs / 4096 > 16
  EXPECT_GT(a.sampled_new, 4096u / 4);
  EXPECT_GT(a.sample_bytes, 0u);
  EXPECT_LT(a.sample_bytes, 4096u * 40);
}

TEST(FpSample, DuplicatesAreNotFalsePositives) {
  ScratchDir dir;
  SieveOptions options;
  options.spill_dir = dir.path();
  options.queue_memory_budget_bytes = 64 << 10;  // spill: keep this process's peak RSS low
  auto sieve = MakeSieve(options);
  for (int round = 0; round < 3; ++round) {
    for (uint64_t i = 0; i < 5000; ++i) sieve->Push(TestUrl(i));
  }
  const SieveStats stats = sieve->Stats();
  EXPECT_EQ(stats.dropped, 10000u);
  EXPECT_EQ(stats.fp_measured->sampled_new, 5000u);  // S = 1: all of them
  EXPECT_EQ(stats.fp_measured->sampled_false_positives, 0u);
  EXPECT_EQ(stats.fp_measured->wrongly_dropped, 0);
}

TEST(FpSample, SurvivesACheckpoint) {
  ScratchDir dir;
  ScratchDir state;
  SieveOptions options;
  options.expected_count = 2000;
  options.spill_dir = dir.path();
  options.queue_memory_budget_bytes = 64 << 10;  // spill: keep this process's peak RSS low
  options.fp_sample_max_urls = 1024;
  auto sieve = MakeSieve(options);
  PushRange(*sieve, 0, 20000);
  ASSERT_TRUE(sieve->Save(state.path()).ok());
  EXPECT_TRUE(std::filesystem::exists(state.path() / "sieve.fp-sample"));
  absl::StatusOr<std::unique_ptr<Sieve>> reopened = Sieve::Open(state.path(), options);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  const MeasuredFpRate before = *sieve->Stats().fp_measured;
  const MeasuredFpRate after = *(*reopened)->Stats().fp_measured;
  EXPECT_EQ(after.sample_one_in, before.sample_one_in);
  EXPECT_EQ(after.sampled_new, before.sampled_new);
  EXPECT_EQ(after.sampled_false_positives, before.sampled_false_positives);
  EXPECT_GT(after.sampled_false_positives, 0u);
  // A sampled URL pushed again is a duplicate after the restore too.
  const uint64_t fps = after.sampled_false_positives;
  PushRange(**reopened, 0, 20000);
  EXPECT_EQ((*reopened)->Stats().fp_measured->sampled_false_positives, fps);
}

TEST(FpSample, ADamagedSampleFileStartsAnEmptySampleAndTheCheckpointStillOpens) {
  ScratchDir dir;
  ScratchDir state;
  SieveOptions options;
  options.spill_dir = dir.path();
  options.queue_memory_budget_bytes = 64 << 10;  // spill: keep this process's peak RSS low
  auto sieve = MakeSieve(options);
  PushRange(*sieve, 0, 1000);
  ASSERT_TRUE(sieve->Save(state.path()).ok());
  {
    std::ofstream damage(state.path() / "sieve.fp-sample", std::ios::binary | std::ios::trunc);
    damage << "SIEVEFPS garbage";
  }
  absl::StatusOr<std::unique_ptr<Sieve>> reopened = Sieve::Open(state.path(), options);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_FALSE((*reopened)->Stats().fp_measured.has_value());
  EXPECT_FALSE((*reopened)->Stats().fp_measured_unknown.empty());
}

// Golden bytes: a change of the sample file's format must be a conscious one.
TEST(FpSample, FileBytesAreFrozen) {
  ScratchDir dir;
  internal::FpSample sample(internal::FpSample::Options{.min_one_in_log2 = 0, .max_urls = 8});
  sample.Observe(bloom::Hash128{1, 2}, true);
  sample.Observe(bloom::Hash128{3, 4}, false);
  ASSERT_TRUE(sample.SaveFile(dir.path() / "s").ok());
  std::ifstream in(dir.path() / "s", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string hex;
  for (unsigned char c : bytes) absl::StrAppendFormat(&hex, "%02x", c);
  EXPECT_EQ(hex,
            "5349455645465053"                  // "SIEVEFPS"
            "01000000"                          // version 1
            "00000000"                          // S = 2^0
            "0800000000000000"                  // max_urls 8
            "0200000000000000"                  // 2 sampled keys, sorted
            "77220a5f0100012c5f4129e20e7e53b6"  //
            "0100000000000000"                  // 1 false-positive key
            "5f4129e20e7e53b6"                  //
            "4d97717cdafd7028");                // XXH3-64 of the above
}

TEST(SaturatedFilter, StatsHaveNoNegativeOrNonFiniteNumber) {
  ScratchDir dir;
  SieveOptions options;
  options.expected_count = 10;
  options.spill_dir = dir.path();
  options.queue_memory_budget_bytes = 64 << 10;  // spill: keep this process's peak RSS low
  auto sieve = MakeSieve(options);
  PushRange(*sieve, 0, 20000);
  const SieveStats s = sieve->Stats();
  EXPECT_TRUE(s.filter_saturated);
  EXPECT_FALSE(s.estimated_count.has_value());
  EXPECT_EQ(s.current_fp_rate, 1);
  ExpectFiniteAndNonNegative(s.fill_ratio, "fill_ratio");
  ASSERT_TRUE(s.fp_measured.has_value());
  const MeasuredFpRate& m = *s.fp_measured;
  for (double x : {m.rate, m.rate_low, m.rate_high, m.wrongly_dropped, m.wrongly_dropped_low,
                   m.wrongly_dropped_high}) {
    ExpectFiniteAndNonNegative(x, "fp_measured");
  }
  EXPECT_EQ(m.wrongly_dropped, static_cast<double>(20000 - s.accepted));  // S = 1: exact
  EXPECT_LE(m.wrongly_dropped_high, static_cast<double>(s.dropped));
}

TEST(MemoryCap, GrowStopsAtTheCapAndThenFillsAsWarn) {
  ScratchDir dir;
  SieveOptions options;
  options.expected_count = 1000;
  options.spill_dir = dir.path();
  options.queue_memory_budget_bytes = 64 << 10;  // spill: keep this process's peak RSS low
  options.overflow_policy = OverflowPolicy::kGrow;
  options.filter_memory_max_bytes = 8 << 10;  // a few stages of a 1000-URL filter
  auto sieve = MakeSieve(options);
  PushRange(*sieve, 0, 100000);
  const SieveStats s = sieve->Stats();
  EXPECT_LE(s.filter_bytes, options.filter_memory_max_bytes);
  EXPECT_GT(s.capacity, 1000u);  // it did grow
  EXPECT_LT(s.capacity, 100000u);
  EXPECT_GT(s.current_fp_rate, options.fp_rate);  // and then the rate rose, as warn
  EXPECT_GT(s.fp_measured->wrongly_dropped, 1000);
  EXPECT_GE(s.overflow_warnings, 1u);
}

}  // namespace
}  // namespace sieve
