// SafeChunkEnds: cuts before the first safe tag (WalkMarkup) once a piece is
// long enough. When the walk stops unsure, no further cut is made.
#include "links/chunk_boundaries.h"

#include "links/markup_walk.h"

namespace crawler::links_internal {

std::vector<size_t> SafeChunkEnds(std::string_view html, size_t target_bytes) {
  const size_t target = target_bytes == 0 ? 1 : target_bytes;
  std::vector<size_t> ends;
  size_t piece_start = 0;
  WalkMarkup(html, [&](const MarkupItem& item) {
    if (item.safe_cut && item.begin - piece_start >= target) {
      ends.push_back(item.begin);
      piece_start = item.begin;
    }
  });
  ends.push_back(html.size());
  return ends;
}

}  // namespace crawler::links_internal
