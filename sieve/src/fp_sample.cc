#include "fp_sample.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "file_io.h"
#include "log_emit.h"

namespace sieve::internal {
namespace {

constexpr std::string_view kSampleMagic = "SIEVEFPS";
constexpr uint32_t kVersion = 1;
constexpr double kZ95 = 1.959963984540054;

uint64_t MaxKeyFor(uint32_t one_in_log2) {
  return one_in_log2 >= 64 ? 0 : std::numeric_limits<uint64_t>::max() >> one_in_log2;
}

// A p / (1 - p), clamped to [0, cap]: the new URLs lost when a share p of them
// was dropped and `accepted` were kept.
double LostAtRate(double accepted, double p, double cap) {
  if (p >= 1) return cap;
  return std::clamp(accepted * p / (1 - p), 0.0, cap);
}

void WriteKeys(std::ostream& out, const KeySet& keys) {
  std::vector<uint64_t> sorted = keys.Keys();
  std::sort(sorted.begin(), sorted.end());  // same set, same bytes
  WriteU64(out, sorted.size());
  for (uint64_t k : sorted) WriteU64(out, k);
}

absl::Status ReadKeys(BodyReader& in, uint64_t max_key, KeySet& keys) {
  uint64_t count = 0;
  if (absl::Status s = in.ReadU64(count); !s.ok()) return s;
  if (count > in.Remaining() / 8) return absl::DataLossError("fp sample: bad key count");
  keys.Reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t k = 0;
    if (absl::Status s = in.ReadU64(k); !s.ok()) return s;
    if (k > max_key) return absl::DataLossError("fp sample: key outside its share");
    keys.Insert(k);
  }
  return absl::OkStatus();
}

}  // namespace

RateInterval WilsonInterval(uint64_t f, uint64_t n) {
  const double nn = static_cast<double>(n);
  const double p = static_cast<double>(f) / nn;
  const double z2 = kZ95 * kZ95;
  const double denominator = 1 + z2 / nn;
  const double center = (p + z2 / (2 * nn)) / denominator;
  const double half = kZ95 * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / denominator;
  // At f = 0 (f = n) the lower (upper) end is 0 (1) exactly, not rounding noise.
  return {p, f == 0 ? 0.0 : std::max(0.0, center - half),
          f == n ? 1.0 : std::min(1.0, center + half)};
}

FpSample::FpSample(const Options& options)
    : enabled_(options.max_urls > 0),
      max_urls_(std::max<uint64_t>(options.max_urls, 1)),
      max_key_(MaxKeyFor(options.min_one_in_log2)),
      one_in_log2_(options.min_one_in_log2) {}

// One lock per block of 64 URLs rather than one per sampled URL: in a crawl's
// first 131,072 URLs (S = 1) every URL is sampled, and the lock per URL was
// ~1.7% of a small crawl's CPU (perf, the 20k-page synthetic site).
void FpSample::ObserveBatch(absl::Span<const bloom::Hash128> hashes,
                            absl::Span<const bool> said_new) {
  if (!enabled_) return;
  constexpr size_t kBlock = 64;
  uint64_t keys[kBlock];
  bool news[kBlock];
  for (size_t start = 0; start < hashes.size(); start += kBlock) {
    const size_t end = std::min(hashes.size(), start + kBlock);
    const uint64_t max_key = max_key_.load(std::memory_order_relaxed);
    size_t sampled = 0;
    for (size_t i = start; i < end; ++i) {
      keys[sampled] = SampleKey(hashes[i]);
      news[sampled] = said_new[i];
      sampled += keys[sampled] <= max_key;
    }
    if (sampled == 0) continue;
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t j = 0; j < sampled; ++j) AddPendingLocked(keys[j], news[j]);
  }
}

void FpSample::ObserveSampled(uint64_t key, bool filter_said_new) {
  std::lock_guard<std::mutex> lock(mutex_);
  AddPendingLocked(key, filter_said_new);
}

void FpSample::AddPendingLocked(uint64_t key, bool filter_said_new) const {
  pending_.push_back({key, filter_said_new});
  if (pending_.size() >= kPendingGroup) ApplyPendingLocked();
}

// Measured at 1e7 URLs (sieve-bench's in-process A/B): one insert at a time,
// ~530 cycles each once the share was 1/64, the typical PushBatch chunk was
// ~12% slower with the sample than without; bench/results/sieve.md has the
// figures with the groups and prefetches.
void FpSample::ApplyPendingLocked() const {
  constexpr size_t kAhead = 16;
  const size_t count = pending_.size();
  for (size_t i = 0; i < count; ++i) {
    if (i + kAhead < count) sampled_.Prefetch(pending_[i + kAhead].key);
    ObserveSampledLocked(pending_[i].key, pending_[i].filter_said_new);
  }
  pending_.clear();
}

void FpSample::ObserveSampledLocked(uint64_t key, bool filter_said_new) const {
  if (key > max_key_.load(std::memory_order_relaxed)) return;  // halved meanwhile
  if (!sampled_.Insert(key)) return;  // truly seen before: the filter said seen too
  if (!filter_said_new) false_positives_.Insert(key);
  if (sampled_.size() > max_urls_) HalveLocked();
}

void FpSample::HalveLocked() const {
  while (sampled_.size() > max_urls_ && one_in_log2_ < 64) {
    ++one_in_log2_;
    const uint64_t max_key = MaxKeyFor(one_in_log2_);
    max_key_.store(max_key, std::memory_order_relaxed);
    sampled_.EraseAbove(max_key);
    false_positives_.EraseAbove(max_key);
  }
}

std::optional<MeasuredFpRate> FpSample::Measure(uint64_t accepted, uint64_t dropped) const {
  std::lock_guard<std::mutex> lock(mutex_);
  ApplyPendingLocked();
  if (sampled_.empty()) return std::nullopt;
  MeasuredFpRate m;
  m.sample_one_in = one_in_log2_ >= 64 ? 0 : uint64_t{1} << one_in_log2_;
  m.sampled_new = sampled_.size();
  m.sampled_false_positives = false_positives_.size();
  m.sample_bytes = MemoryBytesLocked();
  const RateInterval r = WilsonInterval(m.sampled_false_positives, m.sampled_new);
  m.rate = r.rate;
  m.rate_low = r.low;
  m.rate_high = r.high;
  const double a = static_cast<double>(accepted);
  const double cap = static_cast<double>(dropped);
  m.wrongly_dropped = LostAtRate(a, r.rate, cap);
  m.wrongly_dropped_low = LostAtRate(a, r.low, cap);
  m.wrongly_dropped_high = LostAtRate(a, r.high, cap);
  // Every accepted URL was sampled (S = 1): the count is exact, not estimated.
  if (m.sample_one_in == 1) {
    m.wrongly_dropped = m.wrongly_dropped_low = m.wrongly_dropped_high =
        static_cast<double>(m.sampled_false_positives);
  }
  return m;
}

uint64_t FpSample::one_in() const {
  std::lock_guard<std::mutex> lock(mutex_);
  ApplyPendingLocked();
  return one_in_log2_ >= 64 ? 0 : uint64_t{1} << one_in_log2_;
}

uint64_t FpSample::MemoryBytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  ApplyPendingLocked();
  return MemoryBytesLocked();
}

uint64_t FpSample::MemoryBytesLocked() const {
  return sampled_.MemoryBytes() + false_positives_.MemoryBytes() +
         pending_.capacity() * sizeof(Pending);
}

absl::Status SaveSampleBeside(const FpSample& sample, const std::filesystem::path& dir) {
  if (!sample.enabled()) return absl::OkStatus();
  return sample.SaveFile(FpSamplePath(dir));
}

void LoadSampleBeside(FpSample& sample, const std::filesystem::path& dir, const LogSink& log) {
  if (!sample.enabled()) return;
  absl::Status loaded = sample.LoadFile(FpSamplePath(dir));
  if (!loaded.ok() && !absl::IsNotFound(loaded)) {
    Emit(log, LogLevel::kWarning,
         absl::StrCat("sieve: ", loaded.ToString(),
                      "; the measured false-positive rate starts again from here"));
  }
}

FpSample::Options SampleOptionsOf(const SieveOptions& options) {
  FpSample::Options sample;
  sample.max_urls = options.fp_sample_max_urls;
  sample.min_one_in_log2 = std::min<uint32_t>(options.fp_sample_min_one_in_log2, 63);
  return sample;
}

void FillSampleStats(const FpSample& sample, SieveStats& stats) {
  stats.fp_measured = sample.Measure(stats.accepted, stats.dropped);
  if (stats.fp_measured) return;
  stats.fp_measured_unknown = sample.enabled()
                                  ? "no URL of the sample has been pushed yet"
                                  : "the sample is off (SieveOptions::fp_sample_max_urls = 0)";
}

absl::Status FpSample::SaveFile(const std::filesystem::path& path) const {
  std::lock_guard<std::mutex> lock(mutex_);
  ApplyPendingLocked();
  return WriteFileAtomically(path, [&](std::ostream& out) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    out.write(kSampleMagic.data(), kSampleMagic.size());
    WriteU32(out, kVersion);
    WriteU32(out, one_in_log2_);
    WriteU64(out, max_urls_);
    WriteKeys(out, sampled_);
    WriteKeys(out, false_positives_);
    return out ? absl::OkStatus() : absl::InternalError("fp sample: write failed");
  });
}

absl::Status FpSample::LoadFile(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    return absl::NotFoundError(absl::StrCat("no fp sample at ", path.string()));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ApplyPendingLocked();  // what was observed before the load is replaced, as it always was
  absl::Status status =
      ReadChecksummedFile(path, [&](BodyReader& in) ABSL_NO_THREAD_SAFETY_ANALYSIS {
        std::string magic;
        if (absl::Status s = in.ReadBytes(kSampleMagic.size(), magic); !s.ok()) return s;
        if (magic != kSampleMagic) return absl::DataLossError("not an fp sample (bad magic)");
        uint32_t version = 0;
        uint32_t one_in_log2 = 0;
        uint64_t max_urls = 0;
        if (absl::Status s = in.ReadU32(version); !s.ok()) return s;
        if (version != kVersion) {
          return absl::UnimplementedError(absl::StrCat("fp sample version ", version,
                                                       " is not supported (this build reads ",
                                                       kVersion, ")"));
        }
        if (absl::Status s = in.ReadU32(one_in_log2); !s.ok()) return s;
        if (absl::Status s = in.ReadU64(max_urls); !s.ok()) return s;
        if (one_in_log2 > 64) return absl::DataLossError("fp sample: bad share");
        const uint64_t max_key = MaxKeyFor(one_in_log2);
        sampled_.Clear();
        false_positives_.Clear();
        if (absl::Status s = ReadKeys(in, max_key, sampled_); !s.ok()) return s;
        if (absl::Status s = ReadKeys(in, max_key, false_positives_); !s.ok()) return s;
        one_in_log2_ = std::max(one_in_log2_, one_in_log2);
        max_key_.store(MaxKeyFor(one_in_log2_), std::memory_order_relaxed);
        sampled_.EraseAbove(max_key_.load());
        false_positives_.EraseAbove(max_key_.load());
        return absl::OkStatus();
      });
  if (!status.ok()) {
    sampled_.Clear();  // no half-read sample
    false_positives_.Clear();
    return absl::Status(status.code(), absl::StrCat(path.string(), ": ", status.message()));
  }
  HalveLocked();
  return absl::OkStatus();
}

}  // namespace sieve::internal
