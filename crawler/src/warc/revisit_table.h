// RevisitTable: the payload digests already archived, so that a repeated
// payload becomes a small `revisit` record instead of a second copy. Bounded:
// past `capacity` the oldest digest is forgotten (FIFO), so memory stays at
// about capacity * (100 B + URI) and a repeat of a forgotten payload is simply
// archived again in full. Not thread-safe: WarcWriter calls it under its lock.
//
// Keyed by the raw 20-byte digest in an open-addressing table: a lookup is
// one probe into flat memory. The node-based map of base32 strings it
// replaces chased bucket -> node -> key string, three cache misses per page
// once the table outgrew the cache, plus two allocations per insert.
#ifndef CRAWLER_SRC_WARC_REVISIT_TABLE_H_
#define CRAWLER_SRC_WARC_REVISIT_TABLE_H_

#include <chrono>
#include <cstddef>
#include <deque>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "warc/digest.h"

namespace crawler::warc_internal {

class RevisitTable {
 public:
  struct Original {
    std::string target_uri;
    std::chrono::system_clock::time_point date;  // its WARC-Date (FormatWarcDate)
  };

  explicit RevisitTable(size_t capacity) : capacity_(capacity) {}

  // The original holding `digest` if one is remembered; otherwise records
  // `original` under `digest` and returns nullopt. One call, so two threads
  // with the same payload cannot both decide they are first.
  std::optional<Original> FindOrInsert(const Sha1Bytes& digest, Original original);

  size_t size() const { return by_digest_.size(); }

 private:
  size_t capacity_;
  absl::flat_hash_map<Sha1Bytes, Original> by_digest_;
  std::deque<Sha1Bytes> insertion_order_;
};

}  // namespace crawler::warc_internal

#endif  // CRAWLER_SRC_WARC_REVISIT_TABLE_H_
