// MemorySieve::Save and MemorySieve::Open: a checkpoint directory.
//
// What Save puts in `dir`:
//   sieve.checkpoint          the manifest (checkpoint_manifest.h), replaced
//                             atomically, last
//   sieve-seg-<hex>.zst       the queue, as segment files (segment_file.h) named
//                             by their content's checksum: spilled segments are
//                             hard links to the queue's spill files (a copy
//                             only where link(2) fails with EXDEV: spill_dir
//                             on another file system), the in-memory parts
//                             (in-flight URLs, head, tail) new files
//   sieve-pack-<hex>.zst      several lanes' spilled segments in one file (a
//                             pack), linked once, whole, even if some of its
//                             segments were popped; named by its segments'
//                             checksums (segment_file.h: PackFileName)
//   filter-<hex>.base|.delta  the filter, as a chain of immutable files
//                             (filter_checkpoint.h): a base image or a delta
//                             from zero, then one delta of the changed
//                             64-byte blocks per Save; earlier files linked
// Cost: the filter's changed blocks (a new base once the deltas pass 1.25x a
// base: <= 2x the changed bytes amortized), the in-memory parts (at most the
// queue's budget) and one link per spilled segment; spilled bytes are never
// copied or rewritten (they are fsynced once, by the first Save that links
// them).
//
// Crash safety: every file the new manifest names is written under a
// temporary name, fsynced and renamed (or is an fsynced, immutable spill file
// linked in), and the directory is fsynced, before the manifest is replaced
// (temporary name, fsync, rename, fsync of the directory). Until that rename
// the old manifest and every file it names are untouched: new files get new
// names (a segment name already present holds the same bytes), and nothing
// is deleted. After it, files no manifest names are removed. So a kill -9 at
// any moment leaves the old checkpoint or the new one, whole, plus at worst
// unreferenced files the next Save removes. One Sieve saves into a directory
// at a time.
//
// Versions 1 and 2 (one file sieve.checkpoint holding the filter and every
// URL) are still read: their queue is pushed into the new Sieve's queue.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint_manifest.h"
#include "file_io.h"
#include "fp_sample.h"
#include "sieve/memory_sieve.h"
#include "sieve_state.h"
#include "validate_options.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;
using internal::BodyReader;
using internal::CheckpointHeader;
using internal::Manifest;
using internal::SpillQueue;

constexpr absl::string_view kSegmentPrefix = "sieve-seg-";
constexpr absl::string_view kPackPrefix = "sieve-pack-";
// A URL longer than this in a version 1/2 checkpoint is corruption, not a URL.
constexpr uint32_t kMaxUrlBytes = 1 << 20;

// ---- The filter's part of a checkpoint. ----
// The manifest's filter part lists the chain's files in the order they are
// applied: u32 count, then per file u32 name length, name, u64 bytes, u64
// XXH3-64 of the file (filter_checkpoint.h checks both when it loads them).
constexpr absl::string_view kFilterFilePrefix = "filter-";
constexpr uint32_t kMaxFilterFiles = 1 << 16;

std::string EncodeFilterPart(const internal::FilterFiles& files) {
  std::ostringstream out;
  internal::WriteU32(out, static_cast<uint32_t>(files.files.size()));
  for (const internal::FilterFile& file : files.files) {
    internal::WriteU32(out, static_cast<uint32_t>(file.name.size()));
    out.write(file.name.data(), static_cast<std::streamsize>(file.name.size()));
    internal::WriteU64(out, file.bytes);
    internal::WriteU64(out, file.checksum);
  }
  return out.str();
}

absl::StatusOr<internal::FilterFiles> DecodeFilterPart(const std::string& part) {
  absl::Status bad = absl::DataLossError("the manifest's filter part is malformed");
  size_t at = 0;
  auto take = [&](size_t n) -> std::optional<absl::string_view> {
    if (part.size() - at < n) return std::nullopt;
    absl::string_view bytes(part.data() + at, n);
    at += n;
    return bytes;
  };
  auto number = [&](size_t n) -> std::optional<uint64_t> {
    std::optional<absl::string_view> bytes = take(n);
    if (!bytes.has_value()) return std::nullopt;
    uint64_t value = 0;
    for (size_t i = n; i-- > 0;) value = (value << 8) | static_cast<uint8_t>((*bytes)[i]);
    return value;
  };
  internal::FilterFiles files;
  const std::optional<uint64_t> count = number(4);
  if (!count.has_value() || *count == 0 || *count > kMaxFilterFiles) return bad;
  for (uint64_t i = 0; i < *count; ++i) {
    const std::optional<uint64_t> length = number(4);
    std::optional<absl::string_view> name;
    if (length.has_value()) name = take(*length);
    const std::optional<uint64_t> bytes = number(8);
    const std::optional<uint64_t> checksum = number(8);
    if (!name.has_value() || !bytes.has_value() || !checksum.has_value() ||
        !absl::StartsWith(*name, kFilterFilePrefix) || name->find('/') != absl::string_view::npos) {
      return bad;
    }
    files.files.push_back({std::string(*name), *bytes, *checksum});
  }
  if (at != part.size()) return bad;
  return files;
}

// Writes the filter's new chain file into `dir` (its earlier files linked)
// and returns the manifest's part for the chain.
absl::StatusOr<std::string> SaveFilter(MemorySieve::State& s, const fs::path& dir) {
  absl::StatusOr<internal::FilterFiles> files =
      internal::SaveFilterCheckpoint(s.filter, dir, s.filter_chain);
  if (!files.ok()) return files.status();
  return EncodeFilterPart(*files);
}

absl::StatusOr<internal::SeenFilter> LoadFilter(OverflowPolicy policy, const fs::path& dir,
                                                const std::string& part,
                                                internal::FilterChain& chain) {
  absl::StatusOr<internal::FilterFiles> files = DecodeFilterPart(part);
  if (!files.ok()) return files.status();
  return internal::LoadFilterCheckpoint(policy, dir, *files, &chain);
}

// ---- Save. ----

// In-flight URLs (and payloads) of each priority in the order they were
// popped: a restore queues them again first in their lanes, in their
// original order.
std::map<int32_t, internal::Segment, std::greater<int32_t>> InFlightInPopOrder(
    const MemorySieve::State& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  std::vector<const std::pair<const std::string, MemorySieve::State::InFlight>*> by_seq;
  by_seq.reserve(s.in_flight.size());
  for (const auto& entry : s.in_flight) by_seq.push_back(&entry);
  std::sort(by_seq.begin(), by_seq.end(),
            [](const auto* a, const auto* b) { return a->second.seq < b->second.seq; });
  std::map<int32_t, internal::Segment, std::greater<int32_t>> lanes;
  for (const auto* entry : by_seq) {
    lanes[entry->second.priority].Append(entry->first, entry->second.payload);
  }
  return lanes;
}

absl::StatusOr<Manifest> WriteStateFiles(MemorySieve::State& s, const fs::path& dir)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mutex) {
  Manifest manifest;
  manifest.header.policy = s.filter.policy();
  manifest.header.counters = {s.accepted.load(),  s.dropped.load(), s.popped, s.done, s.lost,
                              s.warner.warnings()};
  manifest.order = s.queue.order();
  absl::StatusOr<std::vector<internal::LaneFiles>> lanes =
      s.queue.SaveTo(dir, InFlightInPopOrder(s));
  if (!lanes.ok()) return lanes.status();
  manifest.lanes = *std::move(lanes);
  for (const internal::LaneFiles& lane : manifest.lanes) {
    for (const SpillQueue::FileRef& segment : lane.files) manifest.queued += segment.info.records;
  }
  absl::StatusOr<std::string> filter_part = SaveFilter(s, dir);
  if (!filter_part.ok()) return filter_part.status();
  manifest.filter_part = *std::move(filter_part);
  return manifest;
}

// After the new manifest is in place: removes the files of earlier Saves (and
// of interrupted ones) that it does not name. Failures are harmless (a later
// Save retries), so they are ignored.
void RemoveUnreferencedFiles(const fs::path& dir, const Manifest& manifest) {
  std::vector<std::string> keep;
  absl::StatusOr<internal::FilterFiles> filter_files = DecodeFilterPart(manifest.filter_part);
  if (!filter_files.ok()) return;  // cannot happen: this Save encoded it; keep everything
  for (const internal::FilterFile& file : filter_files->files) keep.push_back(file.name);
  for (const internal::LaneFiles& lane : manifest.lanes) {
    for (const SpillQueue::FileRef& segment : lane.files) keep.push_back(segment.name);
  }
  std::sort(keep.begin(), keep.end());
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    const bool ours = absl::StartsWith(name, kSegmentPrefix) ||
                      absl::StartsWith(name, kPackPrefix) ||
                      absl::StartsWith(name, kFilterFilePrefix) ||
                      absl::StartsWith(name, "sieve.checkpoint.tmp-");
    if (ours && !std::binary_search(keep.begin(), keep.end(), name)) {
      std::error_code ignored;
      fs::remove(entry.path(), ignored);
    }
  }
}

// ---- Open. ----

absl::Status ReadField(BodyReader& in, uint64_t index, uint32_t max_bytes, std::string& out) {
  uint32_t length = 0;
  if (absl::Status s = in.ReadU32(length); !s.ok()) return s;
  if (length > max_bytes) {
    return absl::DataLossError(
        absl::StrCat("checkpoint URL ", index, " claims ", length, " bytes"));
  }
  return in.ReadBytes(length, out);
}

// Versions 1 and 2: every queued URL (and, in 2, its payload) in the file.
absl::Status ReadLegacyQueue(BodyReader& in, uint32_t version, internal::LaneSet& queue) {
  uint64_t count = 0;
  if (absl::Status s = in.ReadU64(count); !s.ok()) return s;
  std::string url;
  std::string payload;
  for (uint64_t i = 0; i < count; ++i) {
    if (absl::Status s = ReadField(in, i, kMaxUrlBytes, url); !s.ok()) return s;
    if (version != internal::kVersionWithoutPayloads) {
      if (absl::Status s = ReadField(in, i, kMaxPayloadBytes, payload); !s.ok()) return s;
    }
    queue.Push(0, url, payload);
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
  std::lock_guard<std::mutex> one_save(state_->save_mutex);
  absl::StatusOr<Manifest> manifest;
  {
    // Every stripe, then the queue: no push is between filter and queue now.
    AllStripesLock stripes(state_->stripes);
    std::lock_guard<std::mutex> lock(state_->mutex);
    manifest = WriteStateFiles(*state_, dir);
    // The measured rate's sample, of the same moment (fp_sample.h; its own
    // file, sieve.fp-sample, advisory: a missing or damaged one starts empty).
    if (manifest.ok()) {
      if (absl::Status s = internal::SaveSampleBeside(state_->sample, dir); !s.ok()) return s;
    }
  }
  if (!manifest.ok()) return manifest.status();
  // The links and renames above must be durable before the manifest names them.
  if (absl::Status s = internal::FsyncDirectory(dir); !s.ok()) return s;
  absl::Status status = internal::WriteFileAtomically(CheckpointPath(dir), [&](std::ostream& out) {
    internal::WriteManifest(*manifest, out);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  RemoveUnreferencedFiles(dir, *manifest);
  return absl::OkStatus();
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
  internal::SpillQueueOptions spill{resolved->queue_memory_budget_bytes, resolved->spill_dir,
                                    runtime.log_sink};

  std::unique_ptr<State> state;
  Manifest manifest;
  absl::Status status = internal::ReadChecksummedFile(path, [&](BodyReader& in) {
    if (absl::Status s = ReadCheckpointHeader(in, manifest.header); !s.ok()) return s;
    if (manifest.header.version == internal::kManifestVersion ||
        manifest.header.version == internal::kVersionWithoutOffsets ||
        manifest.header.version == internal::kVersionWithoutLanes) {
      return ReadManifestBody(in, manifest);
    }
    absl::StatusOr<internal::SeenFilter> filter =
        internal::SeenFilter::Load(manifest.header.policy, in.stream());
    if (!filter.ok()) return filter.status();
    state = std::make_unique<State>(*std::move(filter), spill, manifest.header.counters,
                                    internal::SampleOptionsOf(runtime));
    std::lock_guard<std::mutex> lock(state->mutex);
    absl::Status read = ReadLegacyQueue(in, manifest.header.version, state->queue);
    state->lanes.store(state->queue.LaneCount());
    return read;
  });
  if (!status.ok()) return status;
  if (state == nullptr) {  // versions 3 to 5: the filter and the segments are files of their own
    internal::FilterChain chain;
    absl::StatusOr<internal::SeenFilter> filter =
        LoadFilter(manifest.header.policy, dir, manifest.filter_part, chain);
    if (!filter.ok()) return filter.status();
    spill.order = manifest.order;
    state = std::make_unique<State>(*std::move(filter), spill, manifest.header.counters,
                                    internal::SampleOptionsOf(runtime));
    state->filter_chain = std::move(chain);
    std::lock_guard<std::mutex> lock(state->mutex);
    if (absl::Status s = state->queue.Adopt(dir, manifest.lanes); !s.ok()) return s;
    state->lanes.store(state->queue.LaneCount());
  }
  internal::LoadSampleBeside(state->sample, dir, runtime.log_sink);
  return std::unique_ptr<MemorySieve>(new MemorySieve(std::move(state)));
}

}  // namespace sieve
