// Streaming save and load of a BloomFilter (format in filter_format.h). The bit
// array goes through a 1 MiB buffer on save and straight into the new filter's
// memory on load: a multi-GB filter is never held twice.
#include "filter_format.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bit_storage.h"
#include "byte_io.h"
#include "file_save.h"
#include "filter_header.h"
#include "probes.h"

namespace bloom {
namespace {

constexpr FilterHeaderKind kImage{
    FilterFormat::kMagic, FilterFormat::kVersion,
    "bloom: cannot load filter: ", "not a crawl Bloom filter (bad magic)"};

absl::Status DataLoss(absl::string_view what) { return FilterHeaderDataLoss(kImage, what); }

absl::Status ValidateShape(const FilterHeader& h) {
  if (!FilterHeaderShapeIsPlausible(h) || h.count != h.bits / 8) {
    return DataLoss("inconsistent parameters in header");
  }
  return absl::OkStatus();
}

// Refuses before allocating when a seekable input is shorter than declared.
absl::Status CheckDeclaredSize(std::istream& in, const FilterHeader& h) {
  const int64_t remaining = byte_io::RemainingBytes(in);
  if (remaining >= 0 && static_cast<uint64_t>(remaining) < h.count + 8) {
    return DataLoss(absl::StrCat("truncated: header declares ", h.count + 8,
                                 " more bytes, file has ", remaining));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status FilterFormat::Save(const BloomFilter& filter, std::ostream& out) {
  FilterHeader h;
  h.version = kVersion;
  h.layout = static_cast<uint32_t>(filter.layout_);
  h.hash_id = kHashId;
  h.hash_count = filter.hash_count_;
  h.bits = filter.bits_;
  h.expected_count = filter.expected_count_;
  h.fp_rate = filter.fp_rate_;
  h.count = filter.bits_ / 8;
  const std::string header = EncodeFilterHeader(kImage, h);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));

  // Copy each chunk once (atomically, word by word) so that the checksum and
  // the written bytes agree even if another thread is adding.
  const uint64_t* words = filter.storage_->words();
  const uint64_t word_count = filter.storage_->word_count();
  std::vector<uint64_t> chunk(std::min<uint64_t>(word_count, kChunkBytes / 8));
  byte_io::StreamChecksum checksum;
  for (uint64_t start = 0; start < word_count && out; start += chunk.size()) {
    const uint64_t size = std::min<uint64_t>(chunk.size(), word_count - start);
    for (uint64_t i = 0; i < size; ++i) chunk[i] = probes::LoadWord(words + start + i);
    checksum.Update(chunk.data(), size * 8);
    out.write(reinterpret_cast<const char*>(chunk.data()), static_cast<std::streamsize>(size * 8));
  }
  std::string trailer;
  byte_io::Put(trailer, checksum.Digest());
  out.write(trailer.data(), static_cast<std::streamsize>(trailer.size()));
  out.flush();
  if (!out) return absl::DataLossError("bloom: cannot save filter: write failed");
  return absl::OkStatus();
}

absl::StatusOr<BloomFilter> FilterFormat::Load(std::istream& in) {
  absl::StatusOr<FilterHeader> h = ReadFilterHeader(kImage, in);
  if (!h.ok()) return h.status();
  if (absl::Status s = ValidateShape(*h); !s.ok()) return s;
  if (absl::Status s = CheckDeclaredSize(in, *h); !s.ok()) return s;
  absl::StatusOr<BloomFilter> filter = BloomFilter::CreateWithShape(
      static_cast<Layout>(h->layout), FilterShape{h->bits, h->hash_count}, h->expected_count,
      h->fp_rate);
  if (!filter.ok()) return filter.status();

  char* bytes = reinterpret_cast<char*>(filter->storage_->words());
  byte_io::StreamChecksum checksum;
  for (uint64_t start = 0; start < h->count; start += kChunkBytes) {
    const uint64_t size = std::min<uint64_t>(kChunkBytes, h->count - start);
    if (!byte_io::ReadExactly(in, bytes + start, size)) return DataLoss("truncated bit array");
    checksum.Update(bytes + start, size);
  }
  char trailer[8];
  if (!byte_io::ReadExactly(in, trailer, sizeof(trailer))) return DataLoss("truncated checksum");
  size_t offset = 0;
  if (byte_io::Get<uint64_t>(trailer, &offset) != checksum.Digest()) {
    return DataLoss("bit array checksum mismatch (corrupted file)");
  }
  filter->RecountBitsSet();
  return filter;
}

absl::Status BloomFilter::Save(std::ostream& out) const { return FilterFormat::Save(*this, out); }

absl::StatusOr<BloomFilter> BloomFilter::Load(std::istream& in) { return FilterFormat::Load(in); }

absl::Status BloomFilter::SaveFile(const std::string& path) const {
  return file_save::SaveAtomically(path, [this](std::ostream& out) { return Save(out); });
}

absl::StatusOr<BloomFilter> BloomFilter::LoadFile(const std::string& path) {
  return file_save::LoadFromFile<BloomFilter>(path, [](std::istream& in) { return Load(in); });
}

}  // namespace bloom
