// Save/load of a ScalableBloomFilter (version 1), little-endian:
//   magic "CRAWLSBF", u32 version, u32 layout, u64 initial capacity, f64 rate,
//   f64 growth factor, f64 tightening ratio, u32 max stages, u32 stage count,
//   then per stage u64 capacity and u64 inserted count, then XXH3-64 of all
//   the preceding bytes; then each stage in BloomFilter's own format.
// A delta (scalable_delta.cc) has the same header under magic "CRAWLSBD",
// then each stage's BloomFilter delta.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bloom/scalable_filter.h"
#include "byte_io.h"
#include "file_save.h"
#include "scalable_stage.h"

namespace bloom {
namespace {

constexpr char kMagic[8] = {'C', 'R', 'A', 'W', 'L', 'S', 'B', 'F'};
constexpr uint32_t kVersion = 1;
constexpr size_t kFixedBytes = 56;  // magic through stage count
constexpr size_t kPerStageBytes = 16;

absl::Status DataLoss(absl::string_view what) {
  return absl::DataLossError(absl::StrCat("bloom: cannot load scalable filter: ", what));
}

}  // namespace

std::string ScalableBloomFilter::EncodeHeader(const char (&magic)[8]) const {
  std::string header(magic, 8);
  byte_io::Put(header, kVersion);
  byte_io::Put(header, static_cast<uint32_t>(options_.layout));
  byte_io::Put(header, options_.expected_count);
  byte_io::Put(header, options_.fp_rate);
  byte_io::Put(header, growth_.growth_factor);
  byte_io::Put(header, growth_.tightening_ratio);
  byte_io::Put(header, growth_.max_stages);
  byte_io::Put(header, static_cast<uint32_t>(stages_.size()));
  for (const auto& s : stages_) {
    byte_io::Put(header, s->capacity);
    byte_io::Put(header, s->inserted.load(std::memory_order_relaxed));
  }
  byte_io::Put(header, byte_io::Checksum(header.data(), header.size()));
  return header;
}

absl::Status ScalableBloomFilter::Save(std::ostream& out) const {
  std::shared_lock lock(*mutex_);
  const std::string header = EncodeHeader(kMagic);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  for (const auto& s : stages_) {
    if (absl::Status status = s->filter.Save(out); !status.ok()) return status;
  }
  if (!out) return absl::DataLossError("bloom: cannot save scalable filter: write failed");
  return absl::OkStatus();
}

absl::StatusOr<ScalableBloomFilter::Header> ScalableBloomFilter::DecodeHeader(
    std::istream& in, const char (&magic)[8]) {
  std::string header(kFixedBytes, '\0');
  if (!byte_io::ReadExactly(in, header.data(), 12)) return DataLoss("truncated header");
  if (std::memcmp(header.data(), magic, 8) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bloom: cannot load scalable filter: not a crawl scalable filter (bad magic, want ",
        absl::string_view(magic, 8), ")"));
  }
  size_t offset = 8;
  const uint32_t version = byte_io::Get<uint32_t>(header.data(), &offset);
  if (version > kVersion) {
    return absl::UnimplementedError(absl::StrCat("bloom: cannot load scalable filter: version ",
                                                 version, " is newer than this library reads (",
                                                 kVersion, ")"));
  }
  if (!byte_io::ReadExactly(in, header.data() + 12, kFixedBytes - 12)) {
    return DataLoss("truncated header");
  }
  Header decoded;
  FilterOptions& options = decoded.options;
  GrowthOptions& growth = decoded.growth;
  options.layout = static_cast<Layout>(byte_io::Get<uint32_t>(header.data(), &offset));
  options.expected_count = byte_io::Get<uint64_t>(header.data(), &offset);
  options.fp_rate = byte_io::Get<double>(header.data(), &offset);
  growth.growth_factor = byte_io::Get<double>(header.data(), &offset);
  growth.tightening_ratio = byte_io::Get<double>(header.data(), &offset);
  growth.max_stages = byte_io::Get<uint32_t>(header.data(), &offset);
  const uint32_t stage_count = byte_io::Get<uint32_t>(header.data(), &offset);
  if (stage_count < 1 || stage_count > kMaxScalableStages || stage_count > growth.max_stages) {
    return DataLoss("bad stage count");
  }
  header.resize(kFixedBytes + stage_count * kPerStageBytes + 8);
  if (!byte_io::ReadExactly(in, header.data() + kFixedBytes, header.size() - kFixedBytes)) {
    return DataLoss("truncated header");
  }
  size_t checksum_offset = header.size() - 8;
  if (byte_io::Get<uint64_t>(header.data(), &checksum_offset) !=
      byte_io::Checksum(header.data(), header.size() - 8)) {
    return DataLoss("header checksum mismatch (corrupted file)");
  }
  // The stage table must follow from the header before anything is allocated.
  for (uint32_t i = 0; i < stage_count; ++i) {
    const uint64_t capacity = byte_io::Get<uint64_t>(header.data(), &offset);
    const uint64_t inserted = byte_io::Get<uint64_t>(header.data(), &offset);
    const uint64_t expected = StageCapacity(options.expected_count, growth.growth_factor, i);
    if (capacity != expected) {
      return DataLoss(
          absl::StrCat("stage ", i, " has capacity ", capacity, ", the header implies ", expected));
    }
    decoded.stages.push_back({capacity, inserted});
  }
  return decoded;
}

absl::StatusOr<ScalableBloomFilter> ScalableBloomFilter::Load(std::istream& in) {
  absl::StatusOr<Header> header = DecodeHeader(in, kMagic);
  if (!header.ok()) return header.status();
  const FilterOptions& options = header->options;
  absl::StatusOr<ScalableBloomFilter> filter = Create(options, header->growth);  // validates
  if (!filter.ok()) return DataLoss(filter.status().message());
  filter->stages_.clear();
  for (size_t i = 0; i < header->stages.size(); ++i) {
    const auto [capacity, inserted] = header->stages[i];
    absl::StatusOr<BloomFilter> stage = BloomFilter::Load(in);
    if (!stage.ok()) return stage.status();
    if (stage->layout() != options.layout) return DataLoss("stage layout differs");
    if (stage->Capacity() != capacity) {
      return DataLoss(absl::StrCat("stage ", i, "'s filter has capacity ", stage->Capacity(),
                                   ", its table entry says ", capacity));
    }
    filter->stages_.push_back(std::make_unique<Stage>(*std::move(stage), capacity, inserted));
  }
  return filter;
}

absl::Status ScalableBloomFilter::SaveFile(const std::string& path) const {
  return file_save::SaveAtomically(path, [this](std::ostream& out) { return Save(out); });
}

absl::StatusOr<ScalableBloomFilter> ScalableBloomFilter::LoadFile(const std::string& path) {
  return file_save::LoadFromFile<ScalableBloomFilter>(path,
                                                      [](std::istream& in) { return Load(in); });
}

}  // namespace bloom
