// Link extraction: the crawler's HTML parse step. Turns a fetched body into
// the http(s) URLs the crawler may visit next, resolved against the page (and
// its <base href>) and normalized for the Sieve's seen-check.
//
// What counts as a link:
//   a[href], area[href]        (also SVG <a href>/<a xlink:href>)
//   link[href] with rel canonical, alternate, next or prev
//                              (not "alternate stylesheet", not icons)
//   iframe[src], frame[src]
//   meta http-equiv=refresh    content="5; url=..." (quotes allowed)
// <base href> (the first one with an href) changes the base of every link,
// including those before it, as in browsers. <template> contents are inert and
// skipped.
//
// Nofollow: rel=nofollow on a link skips that link, and
// <meta name=robots content=nofollow|none> skips every link of the page,
// unless LinkOptions::honor_nofollow is false (--ignore-nofollow).
//
// Charset: the body is converted to UTF-8 first (see crawler/charset.h: BOM,
// Content-Type charset, <meta> prescan, then UTF-8 if valid else
// windows-1252). A body that is already UTF-8 or pure ASCII is parsed in
// place, without a copy.
//
// Cost and limits: with LinkOptions::parser = kScanner (the default) the
// links are found by a tokenizer-speed scan that hands to Gumbo only the
// pages it cannot decide (docs/links.md; bench/results/links-scan.md);
// Gumbo alone (kGumbo) runs ~10-15 MB/s per core (bench/links). Gumbo records no errors here
// and builds its tree in an arena that is released at once (no per-node
// free, no recursion: pages nested 100 000 deep are fine). Memory is bounded
// by `max_html_bytes` (bytes parsed; the rest of a bigger body is ignored),
// time by `max_nesting_depth` (Gumbo is quadratic in nesting), the output by
// `max_links`.
//
// Example:
//   auto page = crawler::Url::Parse("https://example.org/a/", nullptr);
//   crawler::PageLinks found = crawler::ExtractLinks(body, "text/html", *page);
//   for (const crawler::ExtractedLink& link : found.links) sieve.InsertIfNew(link.url);
//
// Threading: every function here is thread-compatible and keeps no state
// between calls: call it from any number of threads at once.
#ifndef CRAWLER_LINKS_H_
#define CRAWLER_LINKS_H_

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "crawler/url.h"

namespace crawler {

// Which parser finds the raw links. kScanner: a tokenizer-speed scan that
// yields exactly Gumbo's links, and hands the page to Gumbo (counted in
// PageLinks::parser_fallback) when it meets a construct it does not follow
// (src/links/link_scanner.h). kGumbo: always Gumbo's tree (`--parser gumbo`).
enum class LinkParser { kScanner, kGumbo };

// "scanner" or "gumbo" -> the parser; false for anything else.
bool ParseLinkParser(std::string_view name, LinkParser* parser);

// Where a link was found.
enum class LinkSource { kAnchor, kArea, kLink, kIframe, kFrame, kMetaRefresh };

// "a", "area", "link", "iframe", "frame", "meta-refresh".
std::string_view LinkSourceName(LinkSource source);

struct ExtractedLink {
  std::string url;  // absolute http(s) URL, resolved and normalized, ready for the Sieve
  LinkSource source = LinkSource::kAnchor;
};

struct LinkOptions {
  // Skip rel=nofollow links and all links of a page with meta robots
  // nofollow. false = --ignore-nofollow.
  bool honor_nofollow = true;
  // Links kept per page; the rest are counted in links_found but dropped and
  // `truncated` is set. 100 000 keeps a hostile page at ~10 MB of strings
  // while no real page comes near it (a big sitemap page has a few thousand).
  size_t max_links = 100000;
  // Bytes of the body handed to Gumbo; the rest is ignored and `truncated`
  // is set. Gumbo's tree costs ~12 bytes per HTML byte on ordinary pages and
  // up to ~67 on a page of nothing but tags (measured, see bench/links), so
  // 4 MiB bounds one parse at ~50 MB typically and ~280 MB at worst. Few
  // pages are bigger (a 3.9 MB changelog is among the largest of the Python
  // docs).
  size_t max_html_bytes = size_t{4} << 20;
  // Parse only up to the tag where more than this many block or formatting
  // elements are open (estimated by a byte scan; `truncated` is set).
  // Gumbo is quadratic in that depth: 10 000 nested <div> take ~0.4 s,
  // 100 000 take 25 s. Real pages nest a few dozen deep.
  size_t max_nesting_depth = 4096;
  // Parse only up to the first start tag with more attributes than this
  // (`truncated`, reason "attributes_per_tag"). Gumbo checks each attribute
  // against the tag's earlier ones: 100 000 attributes on one tag took 25 s
  // of CPU. With the cap a page costs at most ~this many
  // comparisons per byte; real tags carry a few dozen at most.
  size_t max_attributes_per_tag = 256;
  // A page longer than twice this is parsed in pieces of about this size,
  // cut where the HTML tokenizer is between tags and outside elements whose
  // content depends on context (see src/links/chunk_boundaries.h), each
  // piece's tree freed before the next: Gumbo's tree then costs 1-3 MB per
  // parse instead of ~8-12 bytes per byte of page (31 MB for a 3.9 MB page).
  // The links are those of the whole page, except that a misnested <a href>
  // that Gumbo clones may be listed once more or once less. 0 = never cut.
  // 128 KiB: with 256 KiB the two parsers' trees were 12.6 MB of the Python
  // docs crawl's 21.6 MB heap peak (heaptrack).
  size_t parse_chunk_bytes = size_t{128} << 10;
  // Hand Gumbo the page with each run of text between tags collapsed to one
  // character of its kind (src/links/text_collapse.h): the same elements in
  // the same tree places, so the same links, at a fraction of the parse
  // (text is most of a page's bytes). false = parse the page as it is.
  bool collapse_text = true;
  // How resolved links are normalized (see crawler/url.h).
  NormalizeOptions normalize;
  // Who finds the links (see LinkParser).
  LinkParser parser = LinkParser::kScanner;
};

struct PageLinks {
  // Document order, every occurrence: duplicates within a page are kept (the
  // Sieve removes them, and `crawl links` shows the page as written).
  std::vector<ExtractedLink> links;
  size_t links_found = 0;       // link-bearing attributes seen, before any filtering
  size_t rejected = 0;          // did not resolve to an http(s) URL (or too long)
  size_t nofollow_skipped = 0;  // dropped because of rel=nofollow or page nofollow
  bool page_nofollow = false;   // the page has <meta name=robots content=nofollow|none>
  bool truncated = false;       // hit max_links, max_html_bytes, the nesting or work caps
  // Body bytes parsed: all of it, or the prefix before a cap (max_html_bytes,
  // the nesting guard, the work caps) cut it.
  size_t parsed_bytes = 0;
  // Which cap cut the parse when `truncated`: "max_html_bytes",
  // "nesting_depth", "attributes_per_tag" or "max_links"; "" otherwise.
  std::string truncated_reason;
  std::string charset;  // the charset the body was decoded from, e.g. "UTF-8"
  // LinkParser::kScanner met a construct it does not follow and Gumbo
  // parsed the page instead (the links are Gumbo's either way).
  bool parser_fallback = false;
  std::string fallback_reason;  // then: what it did not follow, e.g. "start tag <svg> in <p>"
};

// body: the raw bytes as received (already content-decoded by the fetcher);
// content_type: the Content-Type header value, may be empty; page_url: the
// URL the body was fetched from (after redirects), the base for relative
// links. Never fails: a broken page yields fewer links.
PageLinks ExtractLinks(std::string_view body, std::string_view content_type, const Url& page_url,
                       const LinkOptions& options = {});

// The `crawl links [--base URL] [FILE]` subcommand: writes the URLs that
// ExtractLinks keeps, one per line, in document order. base_url: the page's
// URL; empty means "none", and then only absolute links (or links under an
// absolute <base href>) are printed. Returns how many links were not printed
// because they did not resolve to an http(s) URL (without a base: every
// relative one); fails only if base_url does not parse.
absl::StatusOr<size_t> PrintLinks(std::string_view html, std::string_view base_url,
                                  std::ostream& out, const LinkOptions& options = {});

}  // namespace crawler

#endif  // CRAWLER_LINKS_H_
