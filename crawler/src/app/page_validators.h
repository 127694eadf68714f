// PageValidators: what a page's response lets a later crawl ask "has it
// changed?" with (--recrawl): its ETag and Last-Modified header values, sent
// back as If-None-Match / If-Modified-Since, and the body's SHA-1, compared
// when a server answers 200 anyway. pages.jsonl records all three.
//
//   PageValidators v = ValidatorsOf(result);   // once, on the parser thread
//   exchange.payload_sha1 = v.sha1;             // the WARC writer hashes no more
//   NoteValidators(v, &record);
//
// Threading: free functions on values; safe from any thread.
#ifndef CRAWLER_APP_PAGE_VALIDATORS_H_
#define CRAWLER_APP_PAGE_VALIDATORS_H_

#include <string>
#include <string_view>

#include "crawler/fetch.h"
#include "crawler/output.h"

namespace crawler {

struct PageValidators {
  std::string etag;           // "" when the response has none
  std::string last_modified;  // "" when the response has none
  std::string sha1;           // 20 raw bytes of SHA-1(body); "" when not computed
};

// For a 2xx response whose body arrived whole (no error): its validators and
// body digest. Anything else (redirects, errors, bodies cut at --max-body,
// which are not the page): nothing, so the digest is never computed for them.
PageValidators ValidatorsOf(const FetchResult& result);

// The value of the first header named `name` (case-insensitive) in a raw
// response header block (status line first, CRLF or LF line ends), without
// the surrounding blanks; "" when there is none.
std::string ResponseHeader(std::string_view block, std::string_view name);

// Sets the record's etag, last_modified and digest ("sha1:" + base32).
void NoteValidators(const PageValidators& validators, PageRecord* record);

}  // namespace crawler

#endif  // CRAWLER_APP_PAGE_VALIDATORS_H_
