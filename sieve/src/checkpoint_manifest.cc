#include "checkpoint_manifest.h"

#include "absl/strings/str_cat.h"

namespace sieve::internal {
namespace {

// Bounds that tell corruption from data: a segment name is ~30 bytes, a
// filter part a name or a small table, and a queue of 1e10 URLs at 8 MiB per
// segment is ~1e5 segments.
constexpr uint32_t kMaxNameBytes = 4096;
constexpr uint32_t kMaxFilterPartBytes = 1 << 20;
constexpr uint32_t kMaxSegments = 1 << 24;

void WriteBytes(std::ostream& out, std::string_view bytes) {
  WriteU32(out, static_cast<uint32_t>(bytes.size()));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

absl::Status ReadBytes(BodyReader& in, uint32_t max, absl::string_view what, std::string& out) {
  uint32_t length = 0;
  if (absl::Status s = in.ReadU32(length); !s.ok()) return s;
  if (length > max) {
    return absl::DataLossError(absl::StrCat("manifest's ", what, " claims ", length, " bytes"));
  }
  return in.ReadBytes(length, out);
}

}  // namespace

void WriteManifest(const Manifest& manifest, std::ostream& out) {
  const CheckpointHeader& header = manifest.header;
  out.write(kCheckpointMagic.data(), kCheckpointMagic.size());
  WriteU32(out, kManifestVersion);
  WriteU32(out, header.policy == OverflowPolicy::kGrow ? 1 : 0);
  const SieveCounters& c = header.counters;
  for (uint64_t counter : {c.accepted, c.dropped, c.popped, c.done, c.lost, c.overflow_warnings}) {
    WriteU64(out, counter);
  }
  WriteBytes(out, manifest.filter_part);
  WriteU32(out, manifest.order == LaneOrder::kLifo ? 1 : 0);
  WriteU64(out, manifest.queued);
  WriteU32(out, static_cast<uint32_t>(manifest.lanes.size()));
  for (const LaneFiles& lane : manifest.lanes) {
    WriteU32(out, static_cast<uint32_t>(lane.priority));
    WriteU32(out, static_cast<uint32_t>(lane.files.size()));
    for (const SpillQueue::FileRef& segment : lane.files) {
      WriteBytes(out, segment.name);
      WriteU64(out, segment.offset);
      for (uint64_t field : {segment.info.records, segment.info.raw_bytes,
                             segment.info.stored_bytes, segment.info.checksum}) {
        WriteU64(out, field);
      }
    }
  }
}

absl::Status ReadCheckpointHeader(BodyReader& in, CheckpointHeader& header) {
  std::string magic;
  if (absl::Status s = in.ReadBytes(kCheckpointMagic.size(), magic); !s.ok()) return s;
  if (magic != kCheckpointMagic) return absl::DataLossError("not a sieve checkpoint (bad magic)");
  if (absl::Status s = in.ReadU32(header.version); !s.ok()) return s;
  if (header.version != kManifestVersion && header.version != kVersionWithoutOffsets &&
      header.version != kVersionWithoutLanes && header.version != kVersionWithPayloads &&
      header.version != kVersionWithoutPayloads) {
    return absl::UnimplementedError(absl::StrCat("checkpoint version ", header.version,
                                                 " is not supported (this build reads 1 to ",
                                                 kManifestVersion, ")"));
  }
  uint32_t policy_code = 0;
  if (absl::Status s = in.ReadU32(policy_code); !s.ok()) return s;
  if (policy_code > 1) return absl::DataLossError("checkpoint has an unknown overflow policy");
  header.policy = policy_code == 1 ? OverflowPolicy::kGrow : OverflowPolicy::kWarn;
  SieveCounters& c = header.counters;
  for (uint64_t* counter :
       {&c.accepted, &c.dropped, &c.popped, &c.done, &c.lost, &c.overflow_warnings}) {
    if (absl::Status s = in.ReadU64(*counter); !s.ok()) return s;
  }
  return absl::OkStatus();
}

namespace {

// Each entry takes at least its name's length, one name byte and four u64s:
// a count the body cannot hold is corruption, refused before a vector is
// sized from it (the sieve fuzzer's 1 GiB allocation).
constexpr uint64_t kMinSegmentEntryBytes = 4 + 1 + 4 * 8;
// A lane's entry: its priority and segment count.
constexpr uint64_t kMinLaneEntryBytes = 4 + 4;

absl::Status ReadSegments(BodyReader& in, uint32_t version, uint32_t count,
                          uint64_t& total_segments, uint64_t& records,
                          std::vector<SpillQueue::FileRef>& segments) {
  total_segments += count;
  if (total_segments > kMaxSegments || count * kMinSegmentEntryBytes > in.Remaining()) {
    return absl::DataLossError(absl::StrCat("manifest claims ", count, " segments"));
  }
  segments.resize(count);
  for (SpillQueue::FileRef& segment : segments) {
    if (absl::Status s = ReadBytes(in, kMaxNameBytes, "segment name", segment.name); !s.ok()) {
      return s;
    }
    if (segment.name.find('/') != std::string::npos || segment.name.empty() ||
        segment.name[0] == '.') {
      return absl::DataLossError(
          absl::StrCat("manifest names a bad segment file '", segment.name, "'"));
    }
    segment.offset = 0;  // before version 5: a file per segment
    if (version > kVersionWithoutOffsets) {
      if (absl::Status s = in.ReadU64(segment.offset); !s.ok()) return s;
    }
    for (uint64_t* field : {&segment.info.records, &segment.info.raw_bytes,
                            &segment.info.stored_bytes, &segment.info.checksum}) {
      if (absl::Status s = in.ReadU64(*field); !s.ok()) return s;
    }
    records += segment.info.records;
  }
  return absl::OkStatus();
}

absl::Status ReadLanes(BodyReader& in, uint64_t& total_segments, uint64_t& records,
                       Manifest& manifest) {
  uint32_t count = 0;
  if (absl::Status s = in.ReadU32(count); !s.ok()) return s;
  if (count * kMinLaneEntryBytes > in.Remaining()) {
    return absl::DataLossError(absl::StrCat("manifest claims ", count, " lanes"));
  }
  manifest.lanes.resize(count);
  for (size_t i = 0; i < manifest.lanes.size(); ++i) {
    LaneFiles& lane = manifest.lanes[i];
    uint32_t priority = 0;
    uint32_t segments = 0;
    if (absl::Status s = in.ReadU32(priority); !s.ok()) return s;
    lane.priority = static_cast<int32_t>(priority);
    if (i > 0 && lane.priority >= manifest.lanes[i - 1].priority) {
      return absl::DataLossError("manifest's lanes are not in descending priority");
    }
    if (absl::Status s = in.ReadU32(segments); !s.ok()) return s;
    if (absl::Status s = ReadSegments(in, manifest.header.version, segments, total_segments,
                                      records, lane.files);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadManifestBody(BodyReader& in, Manifest& manifest) {
  if (absl::Status s = ReadBytes(in, kMaxFilterPartBytes, "filter part", manifest.filter_part);
      !s.ok()) {
    return s;
  }
  const bool lanes = manifest.header.version >= kVersionWithoutOffsets;
  if (lanes) {
    uint32_t order = 0;
    if (absl::Status s = in.ReadU32(order); !s.ok()) return s;
    if (order > 1) return absl::DataLossError("checkpoint has an unknown lane order");
    manifest.order = order == 1 ? LaneOrder::kLifo : LaneOrder::kFifo;
  }
  if (absl::Status s = in.ReadU64(manifest.queued); !s.ok()) return s;
  uint64_t total_segments = 0;
  uint64_t records = 0;
  if (lanes) {
    if (absl::Status s = ReadLanes(in, total_segments, records, manifest); !s.ok()) return s;
  } else {
    // Version 3: one FIFO queue, which is the lane of priority 0.
    uint32_t count = 0;
    if (absl::Status s = in.ReadU32(count); !s.ok()) return s;
    manifest.lanes.resize(1);
    if (absl::Status s = ReadSegments(in, manifest.header.version, count, total_segments, records,
                                      manifest.lanes[0].files);
        !s.ok()) {
      return s;
    }
    if (count == 0) manifest.lanes.clear();
  }
  if (records != manifest.queued) {
    return absl::DataLossError(absl::StrCat("manifest's segments hold ", records,
                                            " URLs, its count says ", manifest.queued));
  }
  return absl::OkStatus();
}

}  // namespace sieve::internal
