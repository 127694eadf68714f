// Revisit: what a recrawl (--recrawl) makes of one fetch. The verdict (a 304,
// the same digest, another one, a 404/410, a page the previous crawl did not
// have), the URL's next revisit interval, the conditional headers a request
// sends, and the record of a URL not due yet.
//
// Interval rule (Nutch's adaptive schedule, with factor 2): a changed page's
// interval halves, an unchanged one's doubles, clamped into [min, max]; a
// page seen for the first time starts at min. From min = 1 h, a page that
// never changes reaches max = 30 d after 10 revisits (2^10 h = 42 d > 30 d).
//
// Threading: free functions on values; safe from any thread.
#ifndef CRAWLER_APP_REVISIT_H_
#define CRAWLER_APP_REVISIT_H_

#include <string>
#include <vector>

#include "app/previous_crawl.h"
#include "crawler/host_queues.h"
#include "crawler/output.h"

namespace crawler {

// The verdict of a fetch that got `status` (error "" when whole) and a body
// of digest `digest` ("" when none), for a URL with `previous` (or none).
Revisit RevisitOf(const std::optional<PreviousFetch>& previous, int status,
                  const std::string& error, const std::string& digest);

// Whether a page of that verdict is parsed for links: not a 304 nor an
// unchanged 200, whose links are the previous crawl's, all seeds of this one.
inline bool ParsesLinks(Revisit verdict) {
  return verdict != Revisit::kNotModified && verdict != Revisit::kUnchanged;
}

// Sets record->revisit and revisit_s, and for a 304 the previous validators,
// digest and size (a 304 may repeat or update ETag and Last-Modified).
void NoteRevisit(const std::optional<PreviousFetch>& previous, Revisit verdict,
                 const RevisitBounds& bounds, PageRecord* record);

// "If-None-Match: ..." and "If-Modified-Since: ..." for the validators it has.
std::vector<std::string> ConditionalHeaders(const PreviousFetch& previous);

// The record of a URL not due: the previous record's fields, no request.
PageRecord CarriedRecord(const CrawlUrl& url);

}  // namespace crawler

#endif  // CRAWLER_APP_REVISIT_H_
