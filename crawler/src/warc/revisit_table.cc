#include "warc/revisit_table.h"

#include <utility>

namespace crawler::warc_internal {

std::optional<RevisitTable::Original> RevisitTable::FindOrInsert(const Sha1Bytes& digest,
                                                                 Original original) {
  if (capacity_ == 0) return std::nullopt;
  if (auto it = by_digest_.find(digest); it != by_digest_.end()) return it->second;
  if (by_digest_.size() >= capacity_) {
    by_digest_.erase(insertion_order_.front());
    insertion_order_.pop_front();
  }
  by_digest_.emplace(digest, std::move(original));
  insertion_order_.push_back(digest);
  return std::nullopt;
}

}  // namespace crawler::warc_internal
