// crawler/sitemap.h: the URLs of a sitemap (sitemaps.org protocol 0.9), for
// the crawl's --sitemaps option: a <urlset> lists pages (<url><loc>), a
// <sitemapindex> lists further sitemaps (<sitemap><loc>).
//
// The parser is a small <loc> extractor, not an XML parser: it finds the root
// element's name, then every <loc>...</loc> (namespace prefixes and CDATA
// accepted, the five predefined entities and numeric references decoded,
// surrounding whitespace trimmed). Bodies starting with the gzip magic bytes
// (1f 8b) are inflated first whatever the Content-Type said, since servers
// label .xml.gz files every which way.
//
// Bounds (the protocol's own: 50,000 URLs and 50 MB uncompressed per file):
// inflation stops at `max_decoded_bytes`, extraction at `max_urls`; either
// sets `truncated`, and what was read up to there is kept.
//
// Example:
//   absl::StatusOr<crawler::Sitemap> map = crawler::ParseSitemap(body);
//   if (map.ok()) {
//     for (const std::string& page : map->urls) Offer(page);
//     for (const std::string& child : map->sitemaps) FetchLater(child);
//   }
//
// Threading: a pure function, safe from any thread.
#ifndef CRAWLER_SITEMAP_H_
#define CRAWLER_SITEMAP_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace crawler {

struct SitemapLimits {
  // Bytes of XML examined after decompression (protocol: 50 MB). A gzip bomb
  // costs at most this much memory.
  size_t max_decoded_bytes = 50u << 20;
  // <loc> entries kept per file (protocol: 50,000).
  size_t max_urls = 50'000;
};

struct Sitemap {
  std::vector<std::string> urls;      // pages, from a <urlset>
  std::vector<std::string> sitemaps;  // child sitemaps, from a <sitemapindex>
  bool gzipped = false;               // the body was gzip data
  bool truncated = false;             // a limit cut the file short
};

// InvalidArgument when the body is neither a <urlset> nor a <sitemapindex>
// (HTML error pages, text sitemaps, garbage) or its gzip data is corrupt
// before anything could be read.
absl::StatusOr<Sitemap> ParseSitemap(std::string_view body, const SitemapLimits& limits = {});

}  // namespace crawler

#endif  // CRAWLER_SITEMAP_H_
