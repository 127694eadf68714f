#include "spill_queue.h"

#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "file_io.h"
#include "log_emit.h"

namespace sieve::internal {
namespace {

namespace fs = std::filesystem;

// Spill file: "SIEVESG2", u64 record count, u64 body size, u64 XXH3 of the
// body (all little-endian), then the body (Segment bytes: records of URL and
// payload; "SIEVESEG" files, URL-only records, were never read across runs).
constexpr std::string_view kSegmentMagic = "SIEVESG2";
constexpr size_t kHeaderBytes = 32;

// Eight segments per budget: small enough that the head being drained and the
// tail being filled add little to the budget, large enough that a spill file is
// written in one sequential burst (512 KiB at a 4 MiB budget, 8 MiB at 64 MiB).
size_t SegmentBytesFor(size_t budget) {
  return std::clamp<size_t>(budget / 8, size_t{4} << 10, size_t{16} << 20);
}

void PutU64(std::string& out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t GetU64(std::string_view in, size_t at) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(in[at + i]);
  return value;
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

void SpillQueue::SpillTail() {
  Spilled spilled;
  spilled.count = tail_.Remaining();
  absl::Status status = EnsureSpillDir();
  if (status.ok()) {
    spilled.file = private_dir_ / absl::StrCat("segment-", next_file_number_++, ".spill");
    std::string header(kSegmentMagic);
    PutU64(header, spilled.count);
    PutU64(header, tail_.Bytes().size());
    PutU64(header, Checksum(tail_.Bytes()));
    status = WriteWholeFile(spilled.file, {header, tail_.Bytes()});
  }
  if (status.ok()) {
    spilled.file_bytes = kHeaderBytes + tail_.Bytes().size();
    disk_bytes_ += spilled.file_bytes;
    ++spilled_files_;
    spill_failing_ = false;
  } else {
    // Keep the segment in memory rather than lose URLs; the budget is exceeded.
    if (!spill_failing_) {
      Emit(options_.log, LogLevel::kError,
           absl::StrCat("sieve: cannot spill queued URLs to disk, keeping them in memory "
                        "(over queue_memory_budget_bytes): ",
                        status.ToString()));
    }
    spill_failing_ = true;
    spilled.file.clear();
    spilled_memory_bytes_ += tail_.MemoryBytes();
    spilled.in_memory = std::move(tail_);
  }
  spilled_.push_back(std::move(spilled));
  tail_ = Segment();
  // Reserving the whole segment up front avoids the capacity doubling that
  // would otherwise overshoot the budget by up to one segment.
  tail_.Reserve(segment_bytes_ + 4096);
}

absl::StatusOr<Segment> SpillQueue::LoadSegment(const Spilled& spilled) const {
  std::string data;
  if (absl::Status s = ReadWholeFile(spilled.file, data); !s.ok()) return s;
  const std::string name = spilled.file.filename().string();
  if (data.size() < kHeaderBytes || data.compare(0, 8, kSegmentMagic) != 0) {
    return absl::DataLossError(absl::StrCat("spill file ", name, " has no valid header"));
  }
  const uint64_t count = GetU64(data, 8);
  const uint64_t payload_size = GetU64(data, 16);
  const uint64_t checksum = GetU64(data, 24);
  std::string payload = std::move(data);
  payload.erase(0, kHeaderBytes);  // in place: no second segment-sized buffer
  if (payload.size() != payload_size || count != spilled.count || Checksum(payload) != checksum) {
    return absl::DataLossError(absl::StrCat("spill file ", name, " is corrupted"));
  }
  return Segment::FromBytes(std::move(payload), count);
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
  absl::StatusOr<Segment> loaded = LoadSegment(front);
  std::error_code ignored;
  fs::remove(front.file, ignored);
  disk_bytes_ -= front.file_bytes;
  --spilled_files_;
  if (!loaded.ok()) {
    size_ -= front.count;
    return loaded.status();
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
    absl::StatusOr<Segment> loaded = LoadSegment(spilled);
    if (!loaded.ok()) return loaded.status();
    if (absl::Status s = loaded->ForEachRemaining(fn); !s.ok()) return s;
  }
  return tail_.ForEachRemaining(fn);
}

}  // namespace sieve::internal
