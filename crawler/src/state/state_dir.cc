// CrawlStateDir: CURRENT names the checkpoint folder; a new checkpoint is a
// new folder, made whole and durable before CURRENT is switched to it.
#include <chrono>
#include <cstdio>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "crawler/crawl_state.h"
#include "crawler/options_text.h"
#include "sieve/sieve.h"
#include "state/checkpoint_codec.h"
#include "state/state_files.h"

namespace crawler {

using state_internal::FileCheck;
using state_internal::Manifest;
using state_internal::PreviousCheckpoint;
namespace fs = std::filesystem;

namespace {

constexpr absl::string_view kCurrentName = "CURRENT";
constexpr absl::string_view kCheckpointPrefix = "ckpt-";
// Files smaller than this are written again even when unchanged: a link
// saves nothing worth a read-back to compare.
constexpr size_t kLinkUnchangedFromBytes = 64 << 10;

std::string CheckpointName(int64_t sequence) {
  return absl::StrFormat("%s%06d", kCheckpointPrefix, sequence);
}

// Ours: CURRENT, its temporary, and checkpoint folders.
bool IsStateEntry(const fs::path& entry) {
  const std::string name = entry.filename().string();
  return name == kCurrentName || name == absl::StrCat(kCurrentName, ".tmp") ||
         absl::StartsWith(name, kCheckpointPrefix);
}

absl::Status Damaged(const fs::path& path, absl::string_view what) {
  return absl::DataLossError(
      absl::StrCat(path.string(), ": ", what, " (damaged checkpoint; --fresh starts over)"));
}

// Deletes our entries in `dir`; anything else there is an error (a --state
// pointed at the wrong folder must not be wiped).
absl::Status DeleteState(const fs::path& dir) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (!IsStateEntry(entry.path())) {
      return absl::InvalidArgumentError(
          absl::StrCat("--fresh: ", dir.string(), " holds ", entry.path().filename().string(),
                       ", which is not part of a crawl state; not deleting it"));
    }
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    fs::remove_all(entry.path(), ec);
    if (ec) {
      return absl::UnavailableError(
          absl::StrCat("--fresh: cannot delete ", entry.path().string(), ": ", ec.message()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ReadCurrent(const fs::path& dir, std::string* name) {
  const fs::path current = dir / std::string(kCurrentName);
  absl::StatusOr<std::string> text = state_internal::ReadWholeFile(current);
  if (absl::IsNotFound(text.status())) {
    return absl::InvalidArgumentError(absl::StrCat("--resume: no checkpoint in ", dir.string(),
                                                   " (", current.string(), " is missing)"));
  }
  if (!text.ok()) return text.status();
  *name = std::string(absl::StripAsciiWhitespace(*text));
  int64_t sequence = 0;
  if (!absl::StartsWith(*name, kCheckpointPrefix) ||
      !absl::SimpleAtoi(name->substr(kCheckpointPrefix.size()), &sequence) || sequence < 1) {
    return Damaged(current, "does not name a checkpoint");
  }
  return sequence;
}

// The file's bytes after checking them against the manifest.
absl::StatusOr<std::string> ReadChecked(const fs::path& folder, std::string_view name,
                                        const Manifest& manifest) {
  const fs::path path = folder / name;
  auto listed = manifest.files.find(std::string(name));
  if (listed == manifest.files.end()) {
    return Damaged(folder / "MANIFEST",
                   absl::StrCat("file list incomplete (no ", std::string(name), ")"));
  }
  absl::StatusOr<std::string> bytes = state_internal::ReadWholeFile(path);
  if (absl::IsNotFound(bytes.status())) return Damaged(path, "missing");
  if (!bytes.ok()) return bytes.status();
  if (bytes->size() != listed->second.bytes) {
    return Damaged(path,
                   absl::StrCat(bytes->size(), " bytes, the manifest says ", listed->second.bytes));
  }
  if (state_internal::Crc32(*bytes) != listed->second.crc32) {
    return Damaged(path, "checksum mismatch");
  }
  return bytes;
}

absl::StatusOr<CrawlCheckpoint> ReadCheckpoint(const fs::path& folder, const Manifest& manifest) {
  CrawlCheckpoint checkpoint;
  checkpoint.log_bytes = manifest.log_bytes;
  absl::StatusOr<std::string> options = ReadChecked(folder, state_internal::kOptionsName, manifest);
  if (!options.ok()) return options.status();
  absl::StatusOr<CrawlOptions> parsed =
      LoadConfigFile((folder / state_internal::kOptionsName).string(), CrawlOptions{});
  if (!parsed.ok()) return parsed.status();
  checkpoint.options = *std::move(parsed);
  checkpoint.options.config_file.clear();

  absl::StatusOr<std::string> seeds = ReadChecked(folder, state_internal::kSeedsName, manifest);
  if (!seeds.ok()) return seeds.status();
  checkpoint.seeds =
      std::make_shared<const std::vector<std::string>>(state_internal::DecodeSeeds(*seeds));

  const std::string frontier_path = (folder / state_internal::kFrontierName).string();
  absl::StatusOr<std::string> frontier =
      ReadChecked(folder, state_internal::kFrontierName, manifest);
  if (!frontier.ok()) return frontier.status();
  absl::StatusOr<FrontierSnapshot> snapshot =
      state_internal::DecodeFrontier(*frontier, frontier_path);
  if (!snapshot.ok()) return snapshot.status();
  checkpoint.frontier = *std::move(snapshot);

  const std::string counters_path = (folder / state_internal::kCountersName).string();
  absl::StatusOr<std::string> counters =
      ReadChecked(folder, state_internal::kCountersName, manifest);
  if (!counters.ok()) return counters.status();
  absl::StatusOr<CrawlSummary> decoded = state_internal::DecodeCounters(*counters, counters_path);
  if (!decoded.ok()) return decoded.status();
  checkpoint.counters = *std::move(decoded);

  if (manifest.version >= 3) {  // version 2 predates the jar: resumed with an empty one
    absl::StatusOr<std::string> cookies =
        ReadChecked(folder, state_internal::kCookiesName, manifest);
    if (!cookies.ok()) return cookies.status();
    checkpoint.cookies = *std::move(cookies);
  }
  if (manifest.version >= 4) {  // versions 2 and 3 predate it: resumed with no trap counts
    absl::StatusOr<std::string> traps = ReadChecked(folder, state_internal::kTrapsName, manifest);
    if (!traps.ok()) return traps.status();
    checkpoint.traps = *std::move(traps);
  }

  std::error_code ec;
  if (!fs::exists(sieve::Sieve::CheckpointPath(folder), ec)) {
    return Damaged(sieve::Sieve::CheckpointPath(folder), "missing");
  }
  return checkpoint;
}

// Writes one file of the checkpoint and records its check in the manifest.
absl::Status WriteListed(const fs::path& folder, std::string_view name, const std::string& bytes,
                         Manifest* manifest) {
  absl::Status written = state_internal::WriteFileSynced(folder / name, bytes);
  if (!written.ok()) return written;
  manifest->files[std::string(name)] = FileCheck{bytes.size(), state_internal::Crc32(bytes)};
  return absl::OkStatus();
}

// The file `name` of the previous checkpoint, when it holds exactly `bytes`:
// its manifest entry has their size and CRC and its content compares equal
// (read back from the page cache: a CRC alone could collide).
bool PreviousHolds(const PreviousCheckpoint& previous, std::string_view name,
                   const std::string& bytes, const FileCheck& check) {
  const auto listed = previous.manifest.files.find(std::string(name));
  if (listed == previous.manifest.files.end() || listed->second.bytes != check.bytes ||
      listed->second.crc32 != check.crc32) {
    return false;
  }
  absl::StatusOr<std::string> stored = state_internal::ReadWholeFile(previous.folder / name);
  return stored.ok() && *stored == bytes;
}

// WriteListed, but a file the previous checkpoint holds unchanged (the seeds,
// all of them, in every checkpoint of a crawl) is hard-linked from it: it
// was made durable when first written, and the checkpoint's cost follows what
// changed. A link that fails falls back to writing.
absl::Status WriteOrLinkListed(const fs::path& folder, std::string_view name,
                               const std::string& bytes, const PreviousCheckpoint* previous,
                               Manifest* manifest) {
  const FileCheck check{bytes.size(), state_internal::Crc32(bytes)};
  if (previous != nullptr && bytes.size() >= kLinkUnchangedFromBytes &&
      PreviousHolds(*previous, name, bytes, check)) {
    std::error_code ec;
    fs::create_hard_link(previous->folder / name, folder / name, ec);
    if (!ec) {
      manifest->files[std::string(name)] = check;
      return absl::OkStatus();
    }
  }
  return WriteListed(folder, name, bytes, manifest);
}

// Bytes of the files in `folder` this checkpoint wrote: those with one link.
// Only metadata is read (one stat per file): the Sieve's segment files are
// never opened.
int64_t NewlyWrittenBytes(const fs::path& folder) {
  int64_t bytes = 0;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(folder, ec)) {
    std::error_code file_ec;
    if (!entry.is_regular_file(file_ec) || entry.hard_link_count(file_ec) != 1) continue;
    const uintmax_t size = entry.file_size(file_ec);
    if (!file_ec) bytes += static_cast<int64_t>(size);
  }
  return bytes;
}

// The seeds are the one file that is large and never changes in a crawl: a
// list the previous checkpoint wrote from (the same SeedList) is linked
// without encoding it (~50 MB for a million seeds) or reading the old file.
bool LinkedSameSeeds(const fs::path& folder, const SeedList& seeds,
                     const PreviousCheckpoint* previous, Manifest* manifest) {
  if (previous == nullptr || previous->seeds == nullptr || previous->seeds != seeds) return false;
  const std::string name(state_internal::kSeedsName);
  const auto listed = previous->manifest.files.find(name);
  if (listed == previous->manifest.files.end()) return false;
  std::error_code ec;
  fs::create_hard_link(previous->folder / name, folder / name, ec);
  if (ec) return false;
  manifest->files[name] = listed->second;
  return true;
}

absl::Status WriteFolder(const fs::path& folder, int64_t sequence, CrawlCheckpoint checkpoint,
                         const PreviousCheckpoint* previous, Manifest* written) {
  checkpoint.options.resume = false;
  checkpoint.options.fresh = false;
  Manifest manifest;
  manifest.version = kCrawlStateVersion;
  manifest.sequence = sequence;
  manifest.log_bytes = checkpoint.log_bytes;
  if (!LinkedSameSeeds(folder, checkpoint.seeds, previous, &manifest)) {
    absl::Status status =
        WriteOrLinkListed(folder, state_internal::kSeedsName,
                          state_internal::EncodeSeeds(*checkpoint.seeds), previous, &manifest);
    if (!status.ok()) return status;
  }
  const std::pair<std::string_view, std::string> files[] = {
      {state_internal::kOptionsName, CrawlOptionsToToml(checkpoint.options)},
      {state_internal::kFrontierName, state_internal::EncodeFrontier(checkpoint.frontier)},
      {state_internal::kCountersName, state_internal::EncodeCounters(checkpoint.counters)},
      {state_internal::kCookiesName, checkpoint.cookies},
      {state_internal::kTrapsName, checkpoint.traps},
  };
  for (const auto& [name, bytes] : files) {
    absl::Status status = WriteOrLinkListed(folder, name, bytes, previous, &manifest);
    if (!status.ok()) return status;
  }
  absl::Status status = state_internal::WriteFileSynced(folder / state_internal::kManifestName,
                                                        state_internal::EncodeManifest(manifest));
  if (!status.ok()) return status;
  status = state_internal::SyncDirectory(folder);
  if (status.ok()) *written = std::move(manifest);
  return status;
}

}  // namespace

CrawlStateDir::CrawlStateDir(fs::path dir, int64_t sequence)
    : dir_(std::move(dir)), sequence_(sequence) {}

CrawlStateDir::~CrawlStateDir() = default;

absl::StatusOr<std::unique_ptr<CrawlStateDir>> CrawlStateDir::Create(const std::string& dir,
                                                                     bool fresh) {
  std::error_code ec;
  if (fs::is_directory(dir, ec) && !fs::is_empty(dir, ec)) {
    if (!fresh) {
      return absl::InvalidArgumentError(
          absl::StrCat("state directory ", dir,
                       " is not empty (a previous crawl's checkpoint?): pass --resume to "
                       "continue it or --fresh to delete it and start over"));
    }
    absl::Status deleted = DeleteState(dir);
    if (!deleted.ok()) return deleted;
  }
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    return absl::UnavailableError(absl::StrCat("cannot create state directory ", dir, ": ",
                                               ec ? ec.message() : "not a directory"));
  }
  return std::unique_ptr<CrawlStateDir>(new CrawlStateDir(dir, 0));
}

absl::StatusOr<std::unique_ptr<CrawlStateDir>> CrawlStateDir::Open(const std::string& dir) {
  std::string name;
  absl::StatusOr<int64_t> sequence = ReadCurrent(dir, &name);
  if (!sequence.ok()) return sequence.status();
  const fs::path folder = fs::path(dir) / name;
  const fs::path manifest_path = folder / state_internal::kManifestName;
  absl::StatusOr<std::string> bytes = state_internal::ReadWholeFile(manifest_path);
  if (absl::IsNotFound(bytes.status())) return Damaged(manifest_path, "missing");
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<Manifest> manifest =
      state_internal::DecodeManifest(*bytes, manifest_path.string());
  if (!manifest.ok()) return manifest.status();
  absl::StatusOr<CrawlCheckpoint> checkpoint = ReadCheckpoint(folder, *manifest);
  if (!checkpoint.ok()) return checkpoint.status();
  auto state = std::unique_ptr<CrawlStateDir>(new CrawlStateDir(dir, *sequence));
  state->loaded_ = *std::move(checkpoint);
  state->checkpoint_dir_ = folder;
  state->previous_ =
      std::make_unique<PreviousCheckpoint>(PreviousCheckpoint{folder, *std::move(manifest), {}});
  return state;
}

absl::Status CrawlStateDir::Write(const Capture& capture) {
  const auto started = std::chrono::steady_clock::now();
  const int64_t sequence = sequence_ + 1;
  const std::string name = CheckpointName(sequence);
  const fs::path folder = dir_ / name;
  std::error_code ec;
  fs::remove_all(folder, ec);  // a leftover of a failed attempt
  if (!fs::create_directory(folder, ec) || ec) {
    return absl::UnavailableError(absl::StrCat("checkpoint: cannot create ", folder.string(), ": ",
                                               ec ? ec.message() : "it exists"));
  }
  absl::Status status;
  SeedList seeds;  // the list this checkpoint's seeds.txt encodes
  absl::StatusOr<CrawlCheckpoint> checkpoint = capture(folder);
  if (!checkpoint.ok()) status = checkpoint.status();
  Manifest written;
  if (status.ok()) {
    seeds = checkpoint->seeds;
    status = WriteFolder(folder, sequence, *std::move(checkpoint), previous_.get(), &written);
  }
  if (status.ok()) {
    status = state_internal::ReplaceFileAtomically(dir_ / std::string(kCurrentName), name + "\n");
  }
  if (!status.ok()) {
    fs::remove_all(folder, ec);  // frees the space a full disk needs back
    return absl::Status(status.code(), absl::StrCat("checkpoint: ", status.message()));
  }
  sequence_ = sequence;
  previous_ = std::make_unique<PreviousCheckpoint>(
      PreviousCheckpoint{folder, std::move(written), std::move(seeds)});
  ++written_;
  last_write_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - started)
                       .count();
  last_write_bytes_ = NewlyWrittenBytes(folder);
  for (const fs::directory_entry& entry : fs::directory_iterator(dir_, ec)) {
    const std::string entry_name = entry.path().filename().string();
    if (absl::StartsWith(entry_name, kCheckpointPrefix) && entry_name != name) {
      fs::remove_all(entry.path(), ec);  // best effort: the next checkpoint retries
    }
  }
  return absl::OkStatus();
}

}  // namespace crawler
