#include "spill_queue.h"

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

// A file already in the checkpoint under `name` that holds the same records
// at `offset` (and, for a spill file, `file_bytes` in all; 0: any size).
std::optional<SegmentFileInfo> ExistingCopy(const fs::path& path, uint64_t offset,
                                            const SegmentFileInfo& info, uint64_t file_bytes = 0) {
  std::error_code error;
  if (!fs::exists(path, error)) return std::nullopt;
  if (file_bytes != 0 && fs::file_size(path, error) != file_bytes) return std::nullopt;
  absl::StatusOr<SegmentFileInfo> header = ReadSegmentHeaderAt(path, offset);
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

// The records of `segment` in reverse order (a LIFO lane's deferred URLs and
// in-flight URLs as they sit in a stack, bottom first).
Segment ReversedOf(const Segment& segment) {
  std::vector<std::pair<std::string_view, std::string_view>> records;
  records.reserve(segment.Remaining());
  segment
      .ForEachRemaining([&](std::string_view url, std::string_view payload) {
        records.push_back({url, payload});
        return absl::OkStatus();
      })
      .IgnoreError();  // the callback never fails
  Segment reversed;
  for (auto it = records.rbegin(); it != records.rend(); ++it)
    reversed.Append(it->first, it->second);
  return reversed;
}

}  // namespace

size_t SegmentBytesFor(size_t budget) {
  return std::clamp<size_t>(budget / 8, size_t{4} << 10, size_t{16} << 20);
}

size_t MaxUnwrittenBytesFor(size_t budget) {
  return kMaxUnwrittenSegments * SegmentBytesFor(budget);
}

SpillQueue::SpillQueue(SpillQueueOptions options, SpillStore* store)
    : options_(std::move(options)),
      segment_bytes_(SegmentBytesFor(options_.memory_budget_bytes)),
      own_store_(store == nullptr ? std::make_unique<SpillStore>(
                                        options_.spill_dir, options_.log,
                                        MaxUnwrittenBytesFor(options_.memory_budget_bytes))
                                  : nullptr),
      store_(store == nullptr ? own_store_.get() : store) {
  if (options_.order == LaneOrder::kLifo) tail_.EnableBackPops();
}

SpillQueue::~SpillQueue() {
  // Segments still with the writer are taken back (or waited for) first: the
  // writer must not write into a directory being emptied. A shared store
  // outlives its lanes: their remaining files go now (a lane is dropped once
  // empty, so normally there are none). An own store removes the whole
  // private directory.
  // A file goes with the last segment that refers to it (SpillFile).
  for (Spilled& spilled : spilled_) {
    if (spilled.job != nullptr && Settle(spilled, /*cancel=*/true) != nullptr) {
      store_->Release(spilled.job->parts[spilled.part]);
    }
  }
  spilled_.clear();
}

size_t SpillQueue::ResidentBytes() const {
  return head_.MemoryBytes() + tail_.MemoryBytes() + under_.MemoryBytes() + spilled_memory_bytes_;
}

size_t SpillQueue::MemoryBytes() const {
  return ResidentBytes() + (own_store_ != nullptr ? own_store_->HeldBytes() : 0);
}

bool SpillQueue::OverBudget() const {
  // The store's held bytes: with one lane, its own segments with the writer.
  return store_->over_budget() ||
         ResidentBytes() + store_->HeldBytes() > options_.memory_budget_bytes;
}

void SpillQueue::Push(std::string_view url, std::string_view payload) {
  tail_.Append(url, payload);
  ++size_;
  if (options_.order == LaneOrder::kLifo) {
    // Two segments before a spill of one: the half kept is what the next
    // pops take, so pushes and pops at the boundary touch no file.
    if (tail_.Bytes().size() >= 2 * segment_bytes_ && OverBudget()) SpillBottomOfTop();
    return;
  }
  if (ShouldSpillTail()) SpillTail();
}

void SpillQueue::PushUnder(std::string_view url, std::string_view payload) {
  if (options_.order == LaneOrder::kFifo) return Push(url, payload);
  under_.Append(url, payload);
  ++size_;
}

bool SpillQueue::ShouldSpillTail() const {
  if (tail_.Bytes().size() < segment_bytes_) return false;
  // Once anything is between head and tail, the tail must go there too, or
  // FIFO order breaks; before that, only memory pressure starts spilling.
  return !spilled_.empty() || OverBudget();
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
  tail_.Release();
  // Reserving the whole segment up front avoids the capacity doubling that
  // would otherwise overshoot the budget by up to one segment.
  tail_.Reserve(segment_bytes_ + 4096);
}

void SpillQueue::SpillBottomOfTop() {
  const size_t keep_from = tail_.RecordsBefore(tail_.RemainingBytes().size() / 2);
  if (keep_from == 0) return;
  SpillSegment(tail_.SplitFront(keep_from));
}

size_t SpillQueue::ForcedSpillBytes() const {
  const size_t part = std::max(tail_.MemoryBytes(), head_.MemoryBytes());
  return part >= kMinForcedSpillBytes ? part : 0;
}

void SpillQueue::ForceSpill(const SpillTarget* pack) {
  if (tail_.MemoryBytes() >= head_.MemoryBytes()) {
    if (!tail_.Empty()) {
      Segment out = std::move(tail_);
      SpillSegment(std::move(out), /*at_front=*/false, pack);
    }
    tail_.Release();  // an empty tail's capacity, or what the move left
    if (options_.order == LaneOrder::kLifo) tail_.EnableBackPops();
    return;
  }
  // FIFO's head goes back to disk as the segment popped next.
  Segment rest;
  if (!head_.Empty()) {
    absl::StatusOr<Segment> copy =
        Segment::FromBytes(std::string(head_.RemainingBytes()), head_.Remaining());
    if (copy.ok()) rest = *std::move(copy);
  }
  if (rest.Empty() && !head_.Empty()) return;  // cannot happen: head_'s bytes are valid
  head_.Release();
  if (!rest.Empty()) SpillSegment(std::move(rest), /*at_front=*/true, pack);
}

void SpillQueue::SpillSegment(Segment segment, bool at_front, const SpillTarget* pack) {
  Spilled spilled;
  spilled.count = segment.Remaining();
  if (pack != nullptr) {
    spilled.job = pack->job;
    spilled.file = pack->file;
    spilled.part = pack->job->AddPart(std::move(segment));  // submitted by the caller
  } else if (absl::StatusOr<SpillTarget> target = store_->NewTarget(); target.ok()) {
    spilled.job = target->job;
    spilled.file = target->file;
    spilled.part = target->job->AddPart(std::move(segment));
    store_->Submit(std::move(target->job));  // waits only if the writer is full
  } else {
    store_->SpillFailed(target.status());
    spilled_memory_bytes_ += segment.MemoryBytes();
    spilled.in_memory = std::move(segment);
  }
  if (at_front) {
    spilled_.push_front(std::move(spilled));
  } else {
    spilled_.push_back(std::move(spilled));
  }
}

const Segment* SpillQueue::Settle(Spilled& spilled, bool cancel) {
  if (spilled.job == nullptr) return spilled.file == nullptr ? &spilled.in_memory : nullptr;
  SpillJob& job = *spilled.job;
  if (store_->Settle(job, spilled.part, cancel) != SpillJob::State::kWritten) {
    return &job.parts[spilled.part].segment;  // failed or taken back: still in memory
  }
  spilled.file->SetWritten(job.file_bytes, job.name);
  spilled.offset = job.parts[spilled.part].offset;
  spilled.info = job.parts[spilled.part].info;
  spilled.job.reset();
  return nullptr;
}

absl::StatusOr<Segment> SpillQueue::LoadSpilled(Spilled spilled) {
  if (spilled.job != nullptr && Settle(spilled, /*cancel=*/true) != nullptr) {
    SpillJob::Part& part = spilled.job->parts[spilled.part];
    Segment segment = std::move(part.segment);
    store_->Release(part);
    return segment;
  }
  if (spilled.file == nullptr) {
    spilled_memory_bytes_ -= spilled.in_memory.MemoryBytes();
    return std::move(spilled.in_memory);
  }
  absl::StatusOr<Segment> loaded =
      LoadSegmentAt(spilled.file->path(), spilled.offset, spilled.info);
  const std::string origin = spilled.file->origin;
  spilled.file.reset();  // the file goes with the last segment in it
  if (!loaded.ok()) {
    size_ -= spilled.count;
    absl::Status error = loaded.status();
    if (!origin.empty()) {
      error = absl::Status(
          error.code(), absl::StrCat(error.message(), " (a link to checkpoint file ", origin, ")"));
    }
    store_->LoadFailed(error);
    return error;
  }
  return loaded;
}

absl::Status SpillQueue::RefillHead() {
  if (spilled_.empty()) {
    head_ = std::move(tail_);
    tail_.Release();
    return absl::OkStatus();
  }
  Spilled front = std::move(spilled_.front());
  spilled_.pop_front();
  absl::StatusOr<Segment> loaded = LoadSpilled(std::move(front));
  if (!loaded.ok()) return loaded.status();
  head_ = *std::move(loaded);
  return absl::OkStatus();
}

absl::Status SpillQueue::RefillTop() {
  if (spilled_.empty()) {
    // Only deferred URLs are left: stacked so that they come out
    // first-deferred-first, under any URL pushed from now on.
    tail_ = ReversedOf(under_);
    tail_.EnableBackPops();
    under_.Release();
    return absl::OkStatus();
  }
  Spilled top = std::move(spilled_.back());
  spilled_.pop_back();
  absl::StatusOr<Segment> loaded = LoadSpilled(std::move(top));
  if (!loaded.ok()) return loaded.status();
  tail_ = *std::move(loaded);
  tail_.EnableBackPops();
  return absl::OkStatus();
}

absl::StatusOr<std::optional<SieveEntry>> SpillQueue::Pop() {
  if (size_ == 0) return std::nullopt;
  if (options_.order == LaneOrder::kLifo) {
    if (tail_.Empty()) {
      tail_.Release();
      tail_.EnableBackPops();
      if (absl::Status s = RefillTop(); !s.ok()) return s;
    }
    --size_;
    return tail_.PopBack();
  }
  if (head_.Empty()) {
    head_.Release();  // the drained buffer, before loading the next
    if (absl::Status s = RefillHead(); !s.ok()) return s;
  }
  --size_;
  return head_.PopFront();
}

absl::Status SpillQueue::ForEach(
    absl::FunctionRef<absl::Status(std::string_view, std::string_view)> fn) const {
  if (options_.order == LaneOrder::kLifo) {
    if (absl::Status s = ReversedOf(under_).ForEachRemaining(fn); !s.ok()) return s;
  } else {
    if (absl::Status s = head_.ForEachRemaining(fn); !s.ok()) return s;
  }
  for (const Spilled& spilled : spilled_) {
    uint64_t offset = spilled.offset;
    SegmentFileInfo info = spilled.info;
    if (spilled.job != nullptr) {
      // Waited for, not settled (this is const): the job's fields are final.
      const SpillJob::Part& part = spilled.job->parts[spilled.part];
      if (store_->Settle(*spilled.job, spilled.part, /*cancel=*/false) !=
          SpillJob::State::kWritten) {
        if (absl::Status s = part.segment.ForEachRemaining(fn); !s.ok()) return s;
        continue;
      }
      offset = part.offset;
      info = part.info;
    } else if (spilled.file == nullptr) {
      if (absl::Status s = spilled.in_memory.ForEachRemaining(fn); !s.ok()) return s;
      continue;
    }
    absl::StatusOr<Segment> loaded = LoadSegmentAt(spilled.file->path(), offset, info);
    if (!loaded.ok()) return loaded.status();
    if (absl::Status s = loaded->ForEachRemaining(fn); !s.ok()) return s;
  }
  return tail_.ForEachRemaining(fn);
}

absl::Status SpillQueue::SyncSpillFiles() {
  size_t unsynced = 0;
  for (const Spilled& spilled : spilled_) unsynced += spilled.OnDisk() && !spilled.file->synced;
  if (unsynced == 0) return absl::OkStatus();
  // One fsync per file costs a journal commit each (~15 ms here): a few files
  // are synced one by one, more with one syncfs(2) of the spill file system.
  if (unsynced <= kFsyncEachUpTo) {
    for (Spilled& spilled : spilled_) {
      if (!spilled.OnDisk() || spilled.file->synced) continue;
      if (absl::Status s = FsyncFile(spilled.file->path()); !s.ok()) return s;
      spilled.file->synced = true;
    }
    return absl::OkStatus();
  }
  if (absl::Status s = SyncFileSystemOf(store_->private_dir()); !s.ok()) return s;
  for (Spilled& spilled : spilled_) {
    if (spilled.OnDisk()) spilled.file->synced = true;
  }
  return absl::OkStatus();
}

absl::StatusOr<SpillQueue::FileRef> SpillQueue::WriteIntoCheckpoint(const fs::path& dir,
                                                                    std::string_view raw,
                                                                    uint64_t records) {
  SegmentFileInfo info;
  absl::StatusOr<std::string> bytes = store_->compressor().Encode(raw, records, info);
  if (!bytes.ok()) return bytes.status();
  FileRef ref{SegmentFileName(info.checksum), 0, info};
  const fs::path path = dir / ref.name;
  if (std::optional<SegmentFileInfo> existing = ExistingCopy(path, 0, info)) {
    ref.info = *existing;
    return ref;
  }
  if (absl::Status s = WriteFileDurably(path, *bytes); !s.ok()) return s;
  return ref;
}

absl::StatusOr<SpillQueue::FileRef> SpillQueue::LinkIntoCheckpoint(const fs::path& dir,
                                                                   Spilled& spilled,
                                                                   LinkedFiles& linked) {
  if (const Segment* in_memory = Settle(spilled, /*cancel=*/false)) {
    return WriteIntoCheckpoint(dir, in_memory->RemainingBytes(), in_memory->Remaining());
  }
  const SpillFile& file = *spilled.file;
  FileRef ref{file.name(), spilled.offset, spilled.info};
  if (!linked.insert(&file).second) return ref;  // a pack, linked for another segment
  const fs::path path = dir / ref.name;
  if (std::optional<SegmentFileInfo> existing =
          ExistingCopy(path, spilled.offset, spilled.info, file.bytes())) {
    ref.info = *existing;
    return ref;
  }
  // Under a temporary name, then renamed: a damaged file of the same name
  // (which no valid checkpoint can be using) is replaced whole.
  const std::string temp = TempName(path);
  std::error_code ignored;
  fs::remove(temp, ignored);
  absl::StatusOr<bool> copied = LinkOrCopy(file.path(), temp);
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
                                                                    const Segment& front,
                                                                    LinkedFiles* linked) {
  LinkedFiles own_linked;
  if (linked == nullptr) linked = &own_linked;
  std::vector<FileRef> files;
  auto add_in_memory = [&](std::string_view raw, uint64_t records) -> absl::Status {
    if (records == 0) return absl::OkStatus();
    absl::StatusOr<FileRef> ref = WriteIntoCheckpoint(dir, raw, records);
    if (!ref.ok()) return ref.status();
    files.push_back(*std::move(ref));
    return absl::OkStatus();
  };
  const bool lifo = options_.order == LaneOrder::kLifo;
  if (lifo) {
    const Segment under = ReversedOf(under_);
    if (absl::Status s = add_in_memory(under.RemainingBytes(), under.Remaining()); !s.ok()) {
      return s;
    }
  } else {
    if (absl::Status s = add_in_memory(front.RemainingBytes(), front.Remaining()); !s.ok()) {
      return s;
    }
    if (absl::Status s = add_in_memory(head_.RemainingBytes(), head_.Remaining()); !s.ok()) {
      return s;
    }
  }
  // Every segment whole: the writer's jobs are waited for (a written one is
  // then a file like any other, fsynced and linked).
  for (Spilled& spilled : spilled_) Settle(spilled, /*cancel=*/false);
  if (absl::Status s = SyncSpillFiles(); !s.ok()) return s;
  for (Spilled& spilled : spilled_) {
    absl::StatusOr<FileRef> ref = LinkIntoCheckpoint(dir, spilled, *linked);
    if (!ref.ok()) return ref.status();
    files.push_back(*std::move(ref));
  }
  if (absl::Status s = add_in_memory(tail_.RemainingBytes(), tail_.Remaining()); !s.ok()) return s;
  if (lifo) {
    const Segment in_flight = ReversedOf(front);
    if (absl::Status s = add_in_memory(in_flight.RemainingBytes(), in_flight.Remaining());
        !s.ok()) {
      return s;
    }
  }
  return files;
}

absl::Status SpillQueue::Adopt(const fs::path& dir, const std::vector<FileRef>& files,
                               AdoptedFiles* adopted) {
  if (size_ != 0) return absl::FailedPreconditionError("Adopt needs an empty queue");
  AdoptedFiles own_adopted;
  if (adopted == nullptr) adopted = &own_adopted;
  for (const FileRef& ref : files) {
    const fs::path path = dir / ref.name;
    absl::StatusOr<SegmentFileInfo> header = ReadSegmentHeaderAt(path, ref.offset);
    if (!header.ok()) return header.status();
    if (!(*header == ref.info)) {
      return absl::DataLossError(absl::StrCat("segment file ", path.string(), " at offset ",
                                              ref.offset,
                                              " differs from the checkpoint's record of it"));
    }
    std::shared_ptr<SpillFile>& file = (*adopted)[ref.name];
    if (file == nullptr) {
      std::error_code error;
      const uint64_t bytes = fs::file_size(path, error);
      if (error) {
        return absl::DataLossError(
            absl::StrCat("cannot stat segment file ", path.string(), ": ", error.message()));
      }
      absl::StatusOr<fs::path> own_path = store_->NewFilePath();
      if (!own_path.ok()) return own_path.status();
      absl::StatusOr<bool> copied = LinkOrCopy(path, *own_path);
      if (!copied.ok()) return copied.status();
      file = std::make_shared<SpillFile>(*store_, *std::move(own_path));
      file->SetWritten(bytes, ref.name);
      file->synced = true;
      file->origin = path.string();
      store_->FileAdopted(bytes);
    }
    Spilled spilled;
    spilled.file = file;
    spilled.offset = ref.offset;
    spilled.count = ref.info.records;
    spilled.info = ref.info;
    size_ += spilled.count;
    spilled_.push_back(std::move(spilled));
  }
  return absl::OkStatus();
}

}  // namespace sieve::internal
