// RevisitTable: the payload digests already archived, so that a repeated
// payload becomes a small `revisit` record instead of a second copy. Bounded:
// past `capacity` the oldest digest is forgotten (FIFO), so memory stays at
// about capacity * (100 B + URI) and a repeat of a forgotten payload is simply
// archived again in full. Not thread-safe: WarcWriter calls it under its lock.
#ifndef CRAWLER_SRC_WARC_REVISIT_TABLE_H_
#define CRAWLER_SRC_WARC_REVISIT_TABLE_H_

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>

namespace crawler::warc_internal {

class RevisitTable {
 public:
  struct Original {
    std::string target_uri;
    std::string date;  // WARC-Date of the original response
  };

  explicit RevisitTable(size_t capacity) : capacity_(capacity) {}

  // The original holding `digest` if one is remembered; otherwise records
  // `original` under `digest` and returns nullopt. One call, so two threads
  // with the same payload cannot both decide they are first.
  std::optional<Original> FindOrInsert(const std::string& digest, Original original);

  size_t size() const { return by_digest_.size(); }

 private:
  size_t capacity_;
  std::unordered_map<std::string, Original> by_digest_;
  std::deque<std::string> insertion_order_;
};

}  // namespace crawler::warc_internal

#endif  // CRAWLER_SRC_WARC_REVISIT_TABLE_H_
