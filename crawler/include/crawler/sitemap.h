// crawler/sitemap.h: the URLs of a sitemap (sitemaps.org protocol 0.9), for
// the crawl's --sitemaps option: a <urlset> lists pages (<url><loc>), a
// <sitemapindex> lists further sitemaps (<sitemap><loc>).
//
// The reader is expat, streaming (crawler/src/robots/sitemap_xml.h): the
// root must be <urlset> or <sitemapindex>, and only <urlset><url><loc> and
// <sitemapindex><sitemap><loc> count, each in the root's namespace (the
// sitemaps.org one, an old one, or none). A <loc> inside a comment, an
// <image:loc> or any other namespace's loc is not a URL; `<loc >` is one.
// CDATA is unwrapped, entities and character references decoded, surrounding
// whitespace trimmed. Entity declarations (<!ENTITY>) are refused. Bodies
// starting with the gzip magic bytes (1f 8b) are inflated as they are read
// whatever the Content-Type said, since servers label .xml.gz files every
// which way; memory is one 64 KiB chunk plus the URLs kept.
//
// A malformed file (cut short, an undefined entity such as &nbsp;) is read
// up to its first XML error: what came before is kept, `truncated` is set.
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
  std::vector<std::string> urls;  // pages, from a <urlset>
  // One per url: its <priority> (sitemaps.org: 0.0 to 1.0), or 0.5 (the
  // protocol's default) when the entry has none or a value that is not a
  // number in that range.
  std::vector<double> priorities;
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
