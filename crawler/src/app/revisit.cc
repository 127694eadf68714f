#include "app/revisit.h"

#include <algorithm>

namespace crawler {

Revisit RevisitOf(const std::optional<PreviousFetch>& previous, int status,
                  const std::string& error, const std::string& digest) {
  const bool page = status >= 200 && status < 300 && error.empty();
  if (!previous.has_value()) return page ? Revisit::kNew : Revisit::kNone;
  if (status == 304) return Revisit::kNotModified;
  if (status == 404 || status == 410) return Revisit::kGone;
  if (!page) return Revisit::kNone;
  return !digest.empty() && digest == previous->digest ? Revisit::kUnchanged : Revisit::kChanged;
}

void NoteRevisit(const std::optional<PreviousFetch>& previous, Revisit verdict,
                 const RevisitBounds& bounds, PageRecord* record) {
  record->revisit = verdict;
  const int64_t before = previous.has_value() ? previous->revisit_s : bounds.min_s;
  switch (verdict) {
    case Revisit::kNew:
      record->revisit_s = bounds.min_s;
      return;
    case Revisit::kChanged:
      record->revisit_s = std::clamp(before / 2, bounds.min_s, bounds.max_s);
      return;
    case Revisit::kNotModified:
      if (record->etag.empty()) record->etag = previous->etag;
      if (record->last_modified.empty()) record->last_modified = previous->last_modified;
      record->digest = previous->digest;
      record->bytes = previous->bytes;  // what it stands for; not downloaded
      [[fallthrough]];
    case Revisit::kUnchanged:
      record->revisit_s = std::clamp(before * 2, bounds.min_s, bounds.max_s);
      return;
    case Revisit::kNone:
      // A first crawl's page: its interval starts at the minimum.
      if (record->status >= 200 && record->status < 300 && !record->digest.empty()) {
        record->revisit_s = bounds.min_s;
      }
      return;
    case Revisit::kGone:
    case Revisit::kCarried:
      return;
  }
}

std::vector<std::string> ConditionalHeaders(const PreviousFetch& previous) {
  std::vector<std::string> headers;
  if (!previous.etag.empty()) headers.push_back("If-None-Match: " + previous.etag);
  if (!previous.last_modified.empty()) {
    headers.push_back("If-Modified-Since: " + previous.last_modified);
  }
  return headers;
}

PageRecord CarriedRecord(const CrawlUrl& url) {
  PageRecord record;
  record.url = url.url;
  record.depth = url.depth;
  record.parent = url.parent;
  record.attempts = 0;  // no request
  record.revisit = Revisit::kCarried;
  if (!url.previous.has_value()) return record;
  const PreviousFetch& previous = *url.previous;
  record.status = previous.status;
  record.bytes = previous.bytes;
  record.fetched_at = previous.fetched_at;
  record.etag = previous.etag;
  record.last_modified = previous.last_modified;
  record.digest = previous.digest;
  record.revisit_s = previous.revisit_s;
  return record;
}

}  // namespace crawler
