#include "queue_partitions.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "batch_codec.h"
#include "bloom/hash.h"

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

std::string PartitionPrefix(const std::string& name, uint32_t part) {
  if (part == 0) return absl::StrCat("{", name, "}:");
  return absl::StrCat("{", name, ":q", part, "}:");
}

uint32_t PartitionOfHost(std::string_view host, uint32_t partitions) {
  if (host.empty() || partitions <= 1) return 0;
  return static_cast<uint32_t>(bloom::HashKey(host).low % partitions);
}

}  // namespace sieve::internal
