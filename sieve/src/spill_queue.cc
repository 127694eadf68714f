#include "spill_queue.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "file_io.h"
#include "log_emit.h"

namespace sieve::internal {
namespace {

namespace fs = std::filesystem;

// Eight segments per budget: small enough that the head being drained and the
// tail being filled add little to the budget, large enough that a spill file is
// written in one sequential burst (512 KiB at a 4 MiB budget, 8 MiB at 64 MiB;
// about a third of that on disk once compressed).
size_t SegmentBytesFor(size_t budget) {
  return std::clamp<size_t>(budget / 8, size_t{4} << 10, size_t{16} << 20);
}

// A checkpoint's name for a segment: its content's checksum, so the same
// segment saved twice is one file, and a name never changes its content.
// (Two different segments with one XXH3-64 have probability ~n^2 / 2^65.)
std::string ContentName(uint64_t checksum) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(checksum));
  return absl::StrCat("sieve-seg-", hex, ".zst");
}

// A file already in the checkpoint under `name` that holds the same records.
std::optional<SegmentFileInfo> ExistingCopy(const fs::path& path, const SegmentFileInfo& info) {
  std::error_code error;
  if (!fs::exists(path, error)) return std::nullopt;
  absl::StatusOr<SegmentFileInfo> header = ReadSegmentFileHeader(path);
  if (!header.ok() || header->records != info.records || header->raw_bytes != info.raw_bytes ||
      header->checksum != info.checksum) {
    return std::nullopt;
  }
  return *header;
}

// Up to this many unsynced spill files, a Save fsyncs each; more, and it
// syncs their whole file system once.
constexpr size_t kFsyncEachUpTo = 4;

std::string TempName(const fs::path& path) {
  return fs::path(path).concat(absl::StrCat(".tmp-", ::getpid())).string();
}

}  // namespace

SpillQueue::SpillQueue(SpillQueueOptions options)
    : options_(std::move(options)), segment_bytes_(SegmentBytesFor(options_.memory_budget_bytes)) {}

SpillQueue::~SpillQueue() {
  if (private_dir_.empty()) return;
  std::error_code ignored;
  fs::remove_all(private_dir_, ignored);
}

size_t SpillQueue::MemoryBytes() const {
  return head_.MemoryBytes() + tail_.MemoryBytes() + spilled_memory_bytes_;
}

void SpillQueue::Push(std::string_view url, std::string_view payload) {
  tail_.Append(url, payload);
  ++size_;
  if (ShouldSpillTail()) SpillTail();
}

bool SpillQueue::ShouldSpillTail() const {
  if (tail_.Bytes().size() < segment_bytes_) return false;
  // Once anything is between head and tail, the tail must go there too, or
  // FIFO order breaks; before that, only memory pressure starts spilling.
  return !spilled_.empty() || MemoryBytes() > options_.memory_budget_bytes;
}

absl::Status SpillQueue::EnsureSpillDir() {
  if (!private_dir_.empty()) return absl::OkStatus();
  std::string pattern = (options_.spill_dir / "sieve-spill-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create a spill directory in ",
                                            options_.spill_dir.string(), ": ",
                                            std::strerror(errno)));
  }
  private_dir_ = pattern;
  return absl::OkStatus();
}

absl::Status SpillQueue::WriteSpillFile(const Segment& segment, Spilled& spilled) {
  if (absl::Status s = EnsureSpillDir(); !s.ok()) return s;
  spilled.file = private_dir_ / absl::StrCat("segment-", next_file_number_++, ".spill");
  absl::StatusOr<std::string> bytes =
      compressor_.Encode(segment.Bytes(), segment.Remaining(), spilled.info);
  if (!bytes.ok()) return bytes.status();
  return WriteWholeFile(spilled.file, *bytes);
}

void SpillQueue::SpillTail() {
  // The first spill finds a tail of about the whole budget: it goes out in
  // segment-sized files, so that a head loaded back (and rewritten by each
  // checkpoint) is never more than one segment.
  if (tail_.Bytes().size() < 2 * segment_bytes_) {
    SpillSegment(std::move(tail_));
  } else {
    Segment piece;
    piece.Reserve(segment_bytes_ + 4096);
    tail_
        .ForEachRemaining([&](std::string_view url, std::string_view payload) {
          piece.Append(url, payload);
          if (piece.Bytes().size() >= segment_bytes_) {
            SpillSegment(std::move(piece));
            piece = Segment();
            piece.Reserve(segment_bytes_ + 4096);
          }
          return absl::OkStatus();
        })
        .IgnoreError();  // the callback never fails
    if (!piece.Empty()) SpillSegment(std::move(piece));
  }
  tail_ = Segment();
  // Reserving the whole segment up front avoids the capacity doubling that
  // would otherwise overshoot the budget by up to one segment.
  tail_.Reserve(segment_bytes_ + 4096);
}

void SpillQueue::SpillSegment(Segment segment) {
  Spilled spilled;
  spilled.count = segment.Remaining();
  if (absl::Status status = WriteSpillFile(segment, spilled); status.ok()) {
    disk_bytes_ += spilled.info.FileBytes();
    ++spilled_files_;
    if (!spill_error_.ok()) {
      Emit(options_.log, LogLevel::kInfo,
           absl::StrCat("sieve: spilling to ", private_dir_.string(), " works again"));
    }
    spill_error_ = absl::OkStatus();
  } else {
    // Keep the segment in memory rather than lose URLs; the budget is exceeded
    // and Health() says so until a spill succeeds again.
    ++spill_failures_;
    if (spill_error_.ok()) {
      Emit(options_.log, LogLevel::kError,
           absl::StrCat("sieve: cannot spill queued URLs to disk, keeping them in memory "
                        "(over queue_memory_budget_bytes): ",
                        status.ToString()));
    }
    spill_error_ = absl::Status(
        status.code(),
        absl::StrCat("cannot spill queued URLs to ", options_.spill_dir.string(), " (",
                     spill_failures_,
                     " segments kept in memory over the budget so far): ", status.message()));
    spilled.file.clear();
    spilled_memory_bytes_ += segment.MemoryBytes();
    spilled.in_memory = std::move(segment);
  }
  spilled_.push_back(std::move(spilled));
}

absl::Status SpillQueue::Health() const {
  if (!load_error_.ok()) return load_error_;
  return spill_error_;
}

absl::Status SpillQueue::RefillHead() {
  if (spilled_.empty()) {
    head_ = std::move(tail_);
    tail_ = Segment();
    return absl::OkStatus();
  }
  Spilled front = std::move(spilled_.front());
  spilled_.pop_front();
  if (front.file.empty()) {
    spilled_memory_bytes_ -= front.in_memory.MemoryBytes();
    head_ = std::move(front.in_memory);
    return absl::OkStatus();
  }
  absl::StatusOr<Segment> loaded = LoadSegmentFile(front.file, front.info);
  std::error_code ignored;
  fs::remove(front.file, ignored);
  disk_bytes_ -= front.info.FileBytes();
  --spilled_files_;
  if (!loaded.ok()) {
    size_ -= front.count;
    absl::Status error = loaded.status();
    if (!front.origin.empty()) {
      error = absl::Status(
          error.code(),
          absl::StrCat(error.message(), " (a link to checkpoint file ", front.origin, ")"));
    }
    if (load_error_.ok()) load_error_ = error;
    return error;
  }
  head_ = *std::move(loaded);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<SieveEntry>> SpillQueue::Pop() {
  if (size_ == 0) return std::nullopt;
  if (head_.Empty()) {
    head_ = Segment();  // release the drained buffer before loading the next
    if (absl::Status s = RefillHead(); !s.ok()) return s;
  }
  --size_;
  return head_.PopFront();
}

absl::Status SpillQueue::ForEach(
    absl::FunctionRef<absl::Status(std::string_view, std::string_view)> fn) const {
  if (absl::Status s = head_.ForEachRemaining(fn); !s.ok()) return s;
  for (const Spilled& spilled : spilled_) {
    if (spilled.file.empty()) {
      if (absl::Status s = spilled.in_memory.ForEachRemaining(fn); !s.ok()) return s;
      continue;
    }
    absl::StatusOr<Segment> loaded = LoadSegmentFile(spilled.file, spilled.info);
    if (!loaded.ok()) return loaded.status();
    if (absl::Status s = loaded->ForEachRemaining(fn); !s.ok()) return s;
  }
  return tail_.ForEachRemaining(fn);
}

absl::Status SpillQueue::SyncSpillFiles() {
  size_t unsynced = 0;
  for (const Spilled& spilled : spilled_) unsynced += !spilled.file.empty() && !spilled.synced;
  if (unsynced == 0) return absl::OkStatus();
  // One fsync per file costs a journal commit each (~15 ms here): a few files
  // are synced one by one, more with one syncfs(2) of the spill file system.
  if (unsynced <= kFsyncEachUpTo) {
    for (Spilled& spilled : spilled_) {
      if (spilled.file.empty() || spilled.synced) continue;
      if (absl::Status s = FsyncFile(spilled.file); !s.ok()) return s;
      spilled.synced = true;
    }
    return absl::OkStatus();
  }
  if (absl::Status s = SyncFileSystemOf(private_dir_); !s.ok()) return s;
  for (Spilled& spilled : spilled_) spilled.synced = true;
  return absl::OkStatus();
}

absl::StatusOr<SpillQueue::FileRef> SpillQueue::WriteIntoCheckpoint(const fs::path& dir,
                                                                    std::string_view raw,
                                                                    uint64_t records) {
  SegmentFileInfo info;
  absl::StatusOr<std::string> bytes = compressor_.Encode(raw, records, info);
  if (!bytes.ok()) return bytes.status();
  FileRef ref{ContentName(info.checksum), info};
  const fs::path path = dir / ref.name;
  if (std::optional<SegmentFileInfo> existing = ExistingCopy(path, info)) {
    ref.info = *existing;
    return ref;
  }
  if (absl::Status s = WriteFileDurably(path, *bytes); !s.ok()) return s;
  return ref;
}

absl::StatusOr<SpillQueue::FileRef> SpillQueue::LinkIntoCheckpoint(const fs::path& dir,
                                                                   Spilled& spilled) {
  if (spilled.file.empty()) {
    return WriteIntoCheckpoint(dir, spilled.in_memory.RemainingBytes(),
                               spilled.in_memory.Remaining());
  }
  FileRef ref{ContentName(spilled.info.checksum), spilled.info};
  const fs::path path = dir / ref.name;
  if (std::optional<SegmentFileInfo> existing = ExistingCopy(path, spilled.info)) {
    ref.info = *existing;
    return ref;
  }
  // Under a temporary name, then renamed: a damaged file of the same name
  // (which no valid checkpoint can be using) is replaced whole.
  const std::string temp = TempName(path);
  std::error_code ignored;
  fs::remove(temp, ignored);
  absl::StatusOr<bool> copied = LinkOrCopy(spilled.file, temp);
  if (!copied.ok()) return copied.status();
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    return absl::InternalError(
        absl::StrCat("cannot rename ", temp, " to ", path.string(), ": ", std::strerror(error)));
  }
  return ref;
}

absl::StatusOr<std::vector<SpillQueue::FileRef>> SpillQueue::SaveTo(const fs::path& dir,
                                                                    const Segment& front) {
  std::vector<FileRef> files;
  auto add_in_memory = [&](std::string_view raw, uint64_t records) -> absl::Status {
    if (records == 0) return absl::OkStatus();
    absl::StatusOr<FileRef> ref = WriteIntoCheckpoint(dir, raw, records);
    if (!ref.ok()) return ref.status();
    files.push_back(*std::move(ref));
    return absl::OkStatus();
  };
  if (absl::Status s = add_in_memory(front.RemainingBytes(), front.Remaining()); !s.ok()) return s;
  if (absl::Status s = add_in_memory(head_.RemainingBytes(), head_.Remaining()); !s.ok()) return s;
  if (absl::Status s = SyncSpillFiles(); !s.ok()) return s;
  for (Spilled& spilled : spilled_) {
    absl::StatusOr<FileRef> ref = LinkIntoCheckpoint(dir, spilled);
    if (!ref.ok()) return ref.status();
    files.push_back(*std::move(ref));
  }
  if (absl::Status s = add_in_memory(tail_.RemainingBytes(), tail_.Remaining()); !s.ok()) return s;
  return files;
}

absl::Status SpillQueue::Adopt(const fs::path& dir, const std::vector<FileRef>& files) {
  if (size_ != 0) return absl::FailedPreconditionError("Adopt needs an empty queue");
  for (const FileRef& ref : files) {
    const fs::path path = dir / ref.name;
    absl::StatusOr<SegmentFileInfo> header = ReadSegmentFileHeader(path);
    if (!header.ok()) return header.status();
    if (!(*header == ref.info)) {
      return absl::DataLossError(absl::StrCat("segment file ", path.string(),
                                              " differs from the checkpoint's record of it"));
    }
    if (absl::Status s = EnsureSpillDir(); !s.ok()) return s;
    Spilled spilled;
    spilled.file = private_dir_ / absl::StrCat("segment-", next_file_number_++, ".spill");
    spilled.count = ref.info.records;
    spilled.info = ref.info;
    spilled.synced = true;
    spilled.origin = path.string();
    absl::StatusOr<bool> copied = LinkOrCopy(path, spilled.file);
    if (!copied.ok()) return copied.status();
    size_ += spilled.count;
    disk_bytes_ += ref.info.FileBytes();
    ++spilled_files_;
    spilled_.push_back(std::move(spilled));
  }
  return absl::OkStatus();
}

}  // namespace sieve::internal
