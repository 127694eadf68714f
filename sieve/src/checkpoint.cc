// MemorySieve::Save and MemorySieve::Open: the checkpoint file.
//
// Format (version 2), all integers little-endian, followed by the 8-byte
// XXH3-64 of everything before it (file_io.h):
//   "SIEVECKP"                      magic
//   u32 version                     kCheckpointVersion
//   u32 overflow policy             0 = warn (BloomFilter), 1 = grow (ScalableBloomFilter)
//   u64 accepted, dropped, popped, done, lost, overflow_warnings
//   filter                          in bloom's own versioned, checksummed format
//   u64 URL count                   in-flight URLs in pop order, then the queue
//   URL count x (u32 length, URL bytes, u32 length, payload bytes)
// Version 1 (before payloads) had no payload fields; Open still reads it, with
// every payload empty. A golden test (tests/sieve/checkpoint_test.cc) freezes
// these bytes.
#include <algorithm>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "file_io.h"
#include "fp_sample.h"
#include "sieve/memory_sieve.h"
#include "sieve_state.h"
#include "validate_options.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;
using internal::BodyReader;

constexpr std::string_view kCheckpointMagic = "SIEVECKP";
constexpr uint32_t kCheckpointVersion = 2;
constexpr uint32_t kVersionWithoutPayloads = 1;
// A URL longer than this in a checkpoint is corruption, not a URL.
constexpr uint32_t kMaxUrlBytes = 1 << 20;

void WriteField(std::ostream& out, std::string_view bytes) {
  internal::WriteU32(out, static_cast<uint32_t>(bytes.size()));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void WriteEntry(std::ostream& out, std::string_view url, std::string_view payload) {
  WriteField(out, url);
  WriteField(out, payload);
}

// In-flight URLs (and payloads) sorted by when they were popped, so a restore
// queues them again in their original order.
std::vector<std::pair<std::string_view, std::string_view>> InFlightInPopOrder(
    const MemorySieve::State& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  std::vector<std::pair<uint64_t, std::pair<std::string_view, std::string_view>>> by_seq;
  by_seq.reserve(s.in_flight.size());
  for (const auto& [url, flight] : s.in_flight) {
    by_seq.push_back({flight.seq, {url, flight.payload}});
  }
  std::sort(by_seq.begin(), by_seq.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<std::string_view, std::string_view>> entries;
  entries.reserve(by_seq.size());
  for (const auto& entry : by_seq) entries.push_back(entry.second);
  return entries;
}

absl::Status WriteBody(const MemorySieve::State& s, std::ostream& out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  out.write(kCheckpointMagic.data(), kCheckpointMagic.size());
  internal::WriteU32(out, kCheckpointVersion);
  internal::WriteU32(out, s.filter.policy() == OverflowPolicy::kGrow ? 1 : 0);
  for (uint64_t counter :
       {s.accepted.load(), s.dropped.load(), s.popped, s.done, s.lost, s.warner.warnings()}) {
    internal::WriteU64(out, counter);
  }
  if (absl::Status st = s.filter.Save(out); !st.ok()) return st;
  internal::WriteU64(out, s.in_flight.size() + s.queue.Size());
  for (const auto& [url, payload] : InFlightInPopOrder(s)) WriteEntry(out, url, payload);
  return s.queue.ForEach([&](std::string_view url, std::string_view payload) {
    WriteEntry(out, url, payload);
    return out ? absl::OkStatus() : absl::InternalError("checkpoint write failed");
  });
}

absl::Status ReadHeader(BodyReader& in, uint32_t& version, OverflowPolicy& policy,
                        SieveCounters& counters) {
  std::string magic;
  if (absl::Status s = in.ReadBytes(kCheckpointMagic.size(), magic); !s.ok()) return s;
  if (magic != kCheckpointMagic) return absl::DataLossError("not a sieve checkpoint (bad magic)");
  uint32_t policy_code = 0;
  if (absl::Status s = in.ReadU32(version); !s.ok()) return s;
  if (version != kCheckpointVersion && version != kVersionWithoutPayloads) {
    return absl::UnimplementedError(absl::StrCat("checkpoint version ", version,
                                                 " is not supported (this build reads ",
                                                 kCheckpointVersion, ")"));
  }
  if (absl::Status s = in.ReadU32(policy_code); !s.ok()) return s;
  if (policy_code > 1) return absl::DataLossError("checkpoint has an unknown overflow policy");
  policy = policy_code == 1 ? OverflowPolicy::kGrow : OverflowPolicy::kWarn;
  for (uint64_t* counter : {&counters.accepted, &counters.dropped, &counters.popped, &counters.done,
                            &counters.lost, &counters.overflow_warnings}) {
    if (absl::Status s = in.ReadU64(*counter); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ReadField(BodyReader& in, uint64_t index, uint32_t max_bytes, std::string& out) {
  uint32_t length = 0;
  if (absl::Status s = in.ReadU32(length); !s.ok()) return s;
  if (length > max_bytes) {
    return absl::DataLossError(
        absl::StrCat("checkpoint URL ", index, " claims ", length, " bytes"));
  }
  return in.ReadBytes(length, out);
}

absl::Status ReadQueue(BodyReader& in, uint32_t version, internal::SpillQueue& queue) {
  uint64_t count = 0;
  if (absl::Status s = in.ReadU64(count); !s.ok()) return s;
  std::string url;
  std::string payload;
  for (uint64_t i = 0; i < count; ++i) {
    if (absl::Status s = ReadField(in, i, kMaxUrlBytes, url); !s.ok()) return s;
    if (version != kVersionWithoutPayloads) {
      if (absl::Status s = ReadField(in, i, kMaxPayloadBytes, payload); !s.ok()) return s;
    }
    queue.Push(url, payload);
  }
  return absl::OkStatus();
}

}  // namespace

fs::path Sieve::CheckpointPath(const fs::path& dir) { return dir / "sieve.checkpoint"; }

absl::Status MemorySieve::Save(const fs::path& dir) const {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot create checkpoint directory ", dir.string(), ": ", error.message()));
  }
  // Every stripe, then the queue: no push is between filter and queue now.
  AllStripesLock stripes(state_->stripes);
  std::lock_guard<std::mutex> lock(state_->mutex);
  absl::Status saved = internal::WriteFileAtomically(
      CheckpointPath(dir),
      [&](std::ostream& out) ABSL_NO_THREAD_SAFETY_ANALYSIS { return WriteBody(*state_, out); });
  if (!saved.ok()) return saved;
  return internal::SaveSampleBeside(state_->sample, dir);
}

absl::StatusOr<std::unique_ptr<MemorySieve>> MemorySieve::Open(const fs::path& dir,
                                                               const SieveOptions& runtime) {
  const fs::path path = CheckpointPath(dir);
  std::error_code error;
  if (!fs::exists(path, error)) {
    return absl::NotFoundError(absl::StrCat("no sieve checkpoint at ", path.string()));
  }
  SieveOptions queue_options;
  queue_options.queue_memory_budget_bytes = runtime.queue_memory_budget_bytes;
  queue_options.spill_dir = runtime.spill_dir;
  absl::StatusOr<SieveOptions> resolved = internal::ValidateOptions(queue_options);
  if (!resolved.ok()) return resolved.status();

  std::unique_ptr<State> state;
  absl::Status status = internal::ReadChecksummedFile(path, [&](BodyReader& in) {
    uint32_t version = 0;
    OverflowPolicy policy = OverflowPolicy::kWarn;
    SieveCounters counters;
    if (absl::Status s = ReadHeader(in, version, policy, counters); !s.ok()) return s;
    absl::StatusOr<internal::SeenFilter> filter = internal::SeenFilter::Load(policy, in.stream());
    if (!filter.ok()) return filter.status();
    state = std::make_unique<State>(
        *std::move(filter),
        internal::SpillQueueOptions{resolved->queue_memory_budget_bytes, resolved->spill_dir},
        counters, internal::SampleOptionsOf(runtime));
    std::lock_guard<std::mutex> lock(state->mutex);
    return ReadQueue(in, version, state->queue);
  });
  if (!status.ok()) return status;
  internal::LoadSampleBeside(state->sample, dir);
  return std::unique_ptr<MemorySieve>(new MemorySieve(std::move(state)));
}

}  // namespace sieve
