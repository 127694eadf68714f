// Streaming save and apply of filter deltas (format in delta_format.h).
// Records go through a buffer of ~1 MiB on both sides: a delta as large as
// the filter is never held whole in memory.
#include "delta_format.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bit_storage.h"
#include "bits_set_counter.h"
#include "byte_io.h"
#include "dirty_blocks.h"
#include "filter_header.h"
#include "probes.h"

namespace bloom {
namespace {

constexpr size_t kRecordsPerChunk = (size_t{1} << 20) / DeltaFormat::kRecordBytes;

constexpr FilterHeaderKind kDelta{
    DeltaFormat::kMagic, DeltaFormat::kVersion,
    "bloom: cannot apply filter delta: ", "not a crawl filter delta (bad magic)"};

absl::Status DeltaDataLoss(absl::string_view what) { return FilterHeaderDataLoss(kDelta, what); }

// The header, its shape checked too: a block count no filter of its size has
// is damage.
absl::StatusOr<FilterHeader> ReadDeltaHeader(std::istream& in) {
  absl::StatusOr<FilterHeader> h = ReadFilterHeader(kDelta, in);
  if (!h.ok()) return h;
  const uint64_t most_blocks = (h->bits / 64 + kWordsPerDirtyBlock - 1) / kWordsPerDirtyBlock;
  if (!FilterHeaderShapeIsPlausible(*h) || h->count > most_blocks) {
    return DeltaDataLoss("inconsistent parameters in header");
  }
  return h;
}

// Reads the records into `words` (OR), checking order, range and checksum.
// Returns the number of bits turned on.
absl::StatusOr<uint64_t> ApplyRecords(std::istream& in, const FilterHeader& h, uint64_t* words,
                                      uint64_t word_count) {
  const int64_t remaining = byte_io::RemainingBytes(in);
  const uint64_t declared = h.count * DeltaFormat::kRecordBytes + 8;
  if (remaining >= 0 && static_cast<uint64_t>(remaining) < declared) {
    return DeltaDataLoss(
        absl::StrCat("truncated: header declares ", declared, " more bytes, file has ", remaining));
  }
  std::vector<char> chunk(std::min<uint64_t>(h.count, kRecordsPerChunk) *
                          DeltaFormat::kRecordBytes);
  byte_io::StreamChecksum checksum;
  uint64_t turned_on = 0;
  int64_t previous = -1;
  for (uint64_t done = 0; done < h.count;) {
    const uint64_t records = std::min<uint64_t>(kRecordsPerChunk, h.count - done);
    if (!byte_io::ReadExactly(in, chunk.data(), records * DeltaFormat::kRecordBytes)) {
      return DeltaDataLoss("truncated records");
    }
    checksum.Update(chunk.data(), records * DeltaFormat::kRecordBytes);
    for (uint64_t r = 0; r < records; ++r) {
      size_t offset = r * DeltaFormat::kRecordBytes;
      const uint32_t block = byte_io::Get<uint32_t>(chunk.data(), &offset);
      const uint64_t first = uint64_t{block} * kWordsPerDirtyBlock;
      if (static_cast<int64_t>(block) <= previous || first >= word_count) {
        return DeltaDataLoss(absl::StrCat("block index ", block, " out of order or out of range"));
      }
      previous = block;
      for (uint64_t w = 0; w < kWordsPerDirtyBlock; ++w) {
        const uint64_t mask = byte_io::Get<uint64_t>(chunk.data(), &offset);
        if (first + w >= word_count) {
          if (mask != 0) return DeltaDataLoss("bits set past the end of the filter");
          continue;
        }
        if (mask != 0) turned_on += probes::SetBits(words + first + w, mask);
      }
    }
    done += records;
  }
  char trailer[8];
  if (!byte_io::ReadExactly(in, trailer, sizeof(trailer)))
    return DeltaDataLoss("truncated checksum");
  size_t offset = 0;
  if (byte_io::Get<uint64_t>(trailer, &offset) != checksum.Digest()) {
    return DeltaDataLoss("records checksum mismatch (corrupted file)");
  }
  return turned_on;
}

}  // namespace

absl::StatusOr<uint64_t> DeltaFormat::Save(const BloomFilter& filter, std::ostream& out) {
  if (filter.dirty_ == nullptr) {
    return absl::FailedPreconditionError("bloom: cannot save a delta: dirty tracking is off");
  }
  const DirtyBlocks& dirty = *filter.dirty_;
  FilterHeader h;
  h.version = kVersion;
  h.layout = static_cast<uint32_t>(filter.layout_);
  h.hash_id = kHashId;
  h.hash_count = filter.hash_count_;
  h.bits = filter.bits_;
  h.expected_count = filter.expected_count_;
  h.fp_rate = filter.fp_rate_;
  h.count = dirty.Count();
  const std::string header = EncodeFilterHeader(kDelta, h);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));

  const uint64_t* words = filter.storage_->words();
  const uint64_t word_count = filter.storage_->word_count();
  std::string chunk;
  chunk.reserve(kRecordsPerChunk * kRecordBytes);
  byte_io::StreamChecksum checksum;
  const auto flush = [&] {
    checksum.Update(chunk.data(), chunk.size());
    out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    chunk.clear();
  };
  dirty.ForEach([&](uint64_t block) {
    byte_io::Put(chunk, static_cast<uint32_t>(block));
    const uint64_t first = block * kWordsPerDirtyBlock;
    for (uint64_t w = first; w < first + kWordsPerDirtyBlock; ++w) {
      byte_io::Put(chunk, w < word_count ? probes::LoadWord(words + w) : uint64_t{0});
    }
    if (chunk.size() + kRecordBytes > kRecordsPerChunk * kRecordBytes) flush();
  });
  flush();
  std::string trailer;
  byte_io::Put(trailer, checksum.Digest());
  out.write(trailer.data(), static_cast<std::streamsize>(trailer.size()));
  out.flush();
  if (!out) return absl::DataLossError("bloom: cannot save filter delta: write failed");
  return BloomFilter::DeltaBytes(h.count);
}

absl::Status DeltaFormat::Apply(BloomFilter& filter, std::istream& in) {
  absl::StatusOr<FilterHeader> h = ReadDeltaHeader(in);
  if (!h.ok()) return h.status();
  if (h->layout != static_cast<uint32_t>(filter.layout_) || h->hash_count != filter.hash_count_ ||
      h->bits != filter.bits_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bloom: cannot apply filter delta: its shape (layout ", h->layout, ", m ", h->bits, ", k ",
        h->hash_count, ") is not this filter's (layout ", static_cast<uint32_t>(filter.layout_),
        ", m ", filter.bits_, ", k ", filter.hash_count_, ")"));
  }
  absl::StatusOr<uint64_t> turned_on =
      ApplyRecords(in, *h, filter.storage_->words(), filter.storage_->word_count());
  if (!turned_on.ok()) return turned_on.status();
  filter.bits_set_->Add(0, *turned_on);
  return absl::OkStatus();
}

absl::StatusOr<BloomFilter> DeltaFormat::LoadFresh(std::istream& in) {
  absl::StatusOr<FilterHeader> h = ReadDeltaHeader(in);
  if (!h.ok()) return h.status();
  absl::StatusOr<BloomFilter> filter = BloomFilter::CreateWithShape(
      static_cast<Layout>(h->layout), FilterShape{h->bits, h->hash_count}, h->expected_count,
      h->fp_rate);
  if (!filter.ok()) return filter.status();
  absl::StatusOr<uint64_t> turned_on =
      ApplyRecords(in, *h, filter->storage_->words(), filter->storage_->word_count());
  if (!turned_on.ok()) return turned_on.status();
  filter->bits_set_->Add(0, *turned_on);
  return filter;
}

absl::StatusOr<uint64_t> BloomFilter::SaveDirtyBlocks(std::ostream& out) const {
  return DeltaFormat::Save(*this, out);
}

absl::Status BloomFilter::ApplyBlocks(std::istream& in) { return DeltaFormat::Apply(*this, in); }

absl::StatusOr<BloomFilter> BloomFilter::LoadDelta(std::istream& in) {
  return DeltaFormat::LoadFresh(in);
}

}  // namespace bloom
