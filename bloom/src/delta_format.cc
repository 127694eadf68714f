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
#include "probes.h"

namespace bloom {
namespace {

constexpr size_t kRecordsPerChunk = (size_t{1} << 20) / DeltaFormat::kRecordBytes;

struct DeltaHeader {
  uint32_t version = 0;
  uint32_t layout = 0;
  uint32_t hash_id = 0;
  uint32_t hash_count = 0;
  uint64_t bits = 0;
  uint64_t expected_count = 0;
  double fp_rate = 0;
  uint64_t block_count = 0;
};

std::string EncodeDeltaHeader(const DeltaHeader& h) {
  std::string bytes(DeltaFormat::kMagic, sizeof(DeltaFormat::kMagic));
  byte_io::Put(bytes, h.version);
  byte_io::Put(bytes, h.layout);
  byte_io::Put(bytes, h.hash_id);
  byte_io::Put(bytes, h.hash_count);
  byte_io::Put(bytes, h.bits);
  byte_io::Put(bytes, h.expected_count);
  byte_io::Put(bytes, h.fp_rate);
  byte_io::Put(bytes, h.block_count);
  byte_io::Put(bytes, byte_io::Checksum(bytes.data(), bytes.size()));
  return bytes;
}

absl::Status DeltaDataLoss(absl::string_view what) {
  return absl::DataLossError(absl::StrCat("bloom: cannot apply filter delta: ", what));
}

// Reads and checks the header: foreign file, newer version, corruption,
// then parameters that no filter could have.
absl::StatusOr<DeltaHeader> ReadDeltaHeader(std::istream& in) {
  char bytes[DeltaFormat::kHeaderBytes];
  if (!byte_io::ReadExactly(in, bytes, 12)) return DeltaDataLoss("truncated header");
  if (std::memcmp(bytes, DeltaFormat::kMagic, sizeof(DeltaFormat::kMagic)) != 0) {
    return absl::InvalidArgumentError(
        "bloom: cannot apply filter delta: not a crawl filter delta (bad magic)");
  }
  size_t offset = 8;
  DeltaHeader h;
  h.version = byte_io::Get<uint32_t>(bytes, &offset);
  if (h.version > DeltaFormat::kVersion) {
    return absl::UnimplementedError(absl::StrCat("bloom: cannot apply filter delta: version ",
                                                 h.version, " is newer than this library reads (",
                                                 DeltaFormat::kVersion, ")"));
  }
  if (!byte_io::ReadExactly(in, bytes + 12, DeltaFormat::kHeaderBytes - 12)) {
    return DeltaDataLoss("truncated header");
  }
  h.layout = byte_io::Get<uint32_t>(bytes, &offset);
  h.hash_id = byte_io::Get<uint32_t>(bytes, &offset);
  h.hash_count = byte_io::Get<uint32_t>(bytes, &offset);
  h.bits = byte_io::Get<uint64_t>(bytes, &offset);
  h.expected_count = byte_io::Get<uint64_t>(bytes, &offset);
  h.fp_rate = byte_io::Get<double>(bytes, &offset);
  h.block_count = byte_io::Get<uint64_t>(bytes, &offset);
  const uint64_t stored_checksum = byte_io::Get<uint64_t>(bytes, &offset);
  if (h.version == 0) return DeltaDataLoss("version 0");
  if (stored_checksum != byte_io::Checksum(bytes, DeltaFormat::kHeaderBytes - 8)) {
    return DeltaDataLoss("header checksum mismatch (corrupted file)");
  }
  if (h.hash_id != kHashId) {
    return absl::InvalidArgumentError(absl::StrCat("bloom: cannot apply filter delta: hash id ",
                                                   h.hash_id, " is not this library's (", kHashId,
                                                   ")"));
  }
  const uint64_t unit = h.layout == static_cast<uint32_t>(Layout::kBlocked) ? kBlockBits : 64;
  const bool layout_ok = h.layout == static_cast<uint32_t>(Layout::kBlocked) ||
                         h.layout == static_cast<uint32_t>(Layout::kClassic);
  if (!layout_ok || h.hash_count < 1 || h.hash_count > kMaxHashCount || h.bits == 0 ||
      h.bits > kMaxBits || h.bits % unit != 0 ||
      h.block_count > (h.bits / 64 + kWordsPerDirtyBlock - 1) / kWordsPerDirtyBlock) {
    return DeltaDataLoss("inconsistent parameters in header");
  }
  return h;
}

// Reads the records into `words` (OR), checking order, range and checksum.
// Returns the number of bits turned on.
absl::StatusOr<uint64_t> ApplyRecords(std::istream& in, const DeltaHeader& h, uint64_t* words,
                                      uint64_t word_count) {
  const int64_t remaining = byte_io::RemainingBytes(in);
  const uint64_t declared = h.block_count * DeltaFormat::kRecordBytes + 8;
  if (remaining >= 0 && static_cast<uint64_t>(remaining) < declared) {
    return DeltaDataLoss(
        absl::StrCat("truncated: header declares ", declared, " more bytes, file has ", remaining));
  }
  std::vector<char> chunk(std::min<uint64_t>(h.block_count, kRecordsPerChunk) *
                          DeltaFormat::kRecordBytes);
  byte_io::StreamChecksum checksum;
  uint64_t turned_on = 0;
  int64_t previous = -1;
  for (uint64_t done = 0; done < h.block_count;) {
    const uint64_t records = std::min<uint64_t>(kRecordsPerChunk, h.block_count - done);
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
  DeltaHeader h;
  h.version = kVersion;
  h.layout = static_cast<uint32_t>(filter.layout_);
  h.hash_id = kHashId;
  h.hash_count = filter.hash_count_;
  h.bits = filter.bits_;
  h.expected_count = filter.expected_count_;
  h.fp_rate = filter.fp_rate_;
  h.block_count = dirty.Count();
  const std::string header = EncodeDeltaHeader(h);
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
  return BloomFilter::DeltaBytes(h.block_count);
}

absl::Status DeltaFormat::Apply(BloomFilter& filter, std::istream& in) {
  absl::StatusOr<DeltaHeader> h = ReadDeltaHeader(in);
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
  absl::StatusOr<DeltaHeader> h = ReadDeltaHeader(in);
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
