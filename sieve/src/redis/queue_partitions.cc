#include "queue_partitions.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "batch_codec.h"
#include "bloom/hash.h"
#include "cluster/key_slot.h"
#include "lane_queue.h"

namespace sieve::internal {

std::string ComposeMeta(const std::string& filter, uint32_t partitions, bool packed) {
  std::string meta = filter;
  if (partitions > 1) absl::StrAppend(&meta, kPartitionsMetaField, partitions);
  if (packed) meta += crawlsieve_wire::kPackedMetaField;
  return meta;
}

std::optional<MetaFields> SplitMeta(std::string_view stored) {
  MetaFields fields;
  absl::string_view rest(stored.data(), stored.size());
  fields.packed = absl::ConsumeSuffix(&rest, crawlsieve_wire::kPackedMetaField);
  const size_t at = rest.rfind(kPartitionsMetaField);
  if (at != absl::string_view::npos) {
    const absl::string_view number =
        rest.substr(at + absl::string_view(kPartitionsMetaField).size());
    if (!absl::SimpleAtoi(number, &fields.partitions) || fields.partitions < 2 ||
        fields.partitions > kMaxQueuePartitions) {
      return std::nullopt;
    }
    rest = rest.substr(0, at);
  }
  fields.filter = std::string(rest);
  return fields;
}

namespace {

// The slot range (of `partitions` equal ones) slot `slot` falls in.
uint32_t SlotRange(int slot, uint32_t partitions) {
  return static_cast<uint32_t>(static_cast<uint64_t>(slot) * partitions / kClusterSlots);
}

// The hash tag of partition `part` (> 0), placed in slot range `range`.
std::string PlacedTag(const std::string& name, uint32_t part, uint32_t range, uint32_t partitions) {
  const std::string base = absl::StrCat(name, ":q", part);
  // ~partitions tries on average; the bound is never reached in practice
  // (each try lands in the range with probability 1 / partitions).
  constexpr uint32_t kMaxTries = 1u << 24;
  for (uint32_t j = 0; j < kMaxTries; ++j) {
    std::string tag = j == 0 ? base : absl::StrCat(base, ".", j);
    if (SlotRange(KeySlot(absl::StrCat("{", tag, "}")), partitions) == range) return tag;
  }
  return base;
}

}  // namespace

std::vector<std::string> PartitionPrefixes(const std::string& name, uint32_t partitions) {
  std::vector<std::string> prefixes = {absl::StrCat("{", name, "}:")};
  const uint32_t home = SlotRange(KeySlot(prefixes.front()), partitions);
  uint32_t range = 0;
  for (uint32_t part = 1; part < partitions; ++part, ++range) {
    if (range == home) ++range;
    prefixes.push_back(absl::StrCat("{", PlacedTag(name, part, range, partitions), "}:"));
  }
  return prefixes;
}

uint32_t PartitionOfHost(std::string_view host, uint32_t partitions) {
  host = HostOfLaneQueue(host);  // a host's lanes share its partition
  if (host.empty() || partitions <= 1) return 0;
  return static_cast<uint32_t>(bloom::HashKey(host).low % partitions);
}

}  // namespace sieve::internal
