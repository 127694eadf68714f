// ExtractLinks: decode -> parse (Gumbo, in an arena) -> find raw links ->
// resolve against the page or its <base href> -> filter.
#include "links/extract_links.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "crawler/charset.h"
#include "crawler/links.h"
#include "links/attribute_guard.h"
#include "links/chunk_boundaries.h"
#include "links/gumbo_arena.h"
#include "links/link_scanner.h"
#include "links/nesting_guard.h"
#include "links/raw_links.h"
#include "links/text_collapse.h"

namespace crawler {
namespace {

using links_internal::GumboArena;
using links_internal::RawLink;
using links_internal::RawPage;

// Gumbo's tree takes roughly this many bytes per byte of HTML on ordinary
// pages (measured by the links bench); sizing the first arena block from it
// makes most parses take one or two blocks.
constexpr size_t kArenaBytesPerHtmlByte = 16;

// <base href> resolved against the page; an unusable one is ignored, as in
// browsers. Null base and no page URL: links must be absolute.
std::optional<Url> EffectiveBase(const RawPage& raw, const Url* page_url) {
  if (raw.base) {
    absl::StatusOr<Url> base = Url::Parse(*raw.base, page_url);
    if (base.ok() && !base->has_opaque_path()) return *std::move(base);
  }
  if (page_url != nullptr) return *page_url;
  return std::nullopt;
}

absl::StatusOr<std::string> Resolve(const std::optional<Url>& base, std::string_view href,
                                    const NormalizeOptions& options) {
  if (base) return ResolveLink(*base, href, options);
  absl::StatusOr<Url> absolute = Url::Parse(href, nullptr);
  if (!absolute.ok()) return absolute.status();
  return NormalizeForSeen(*absolute, options);
}

void ResolveAll(const RawPage& raw, const Url* page_url, const LinkOptions& options,
                PageLinks& page) {
  const std::optional<Url> base = EffectiveBase(raw, page_url);
  const bool page_nofollow = options.honor_nofollow && raw.page_nofollow;
  page.links.reserve(raw.links.size());
  for (const RawLink& link : raw.links) {
    if (page_nofollow || (options.honor_nofollow && link.nofollow)) {
      ++page.nofollow_skipped;
      continue;
    }
    absl::StatusOr<std::string> url = Resolve(base, link.href, options.normalize);
    if (!url.ok()) {
      ++page.rejected;
      continue;
    }
    page.links.push_back({*std::move(url), link.source});
  }
}

RawPage ParseWhole(std::string_view html, size_t max_links, GumboArena& arena) {
  return links_internal::FindRawLinks(arena.Parse(html)->document, max_links);
}

// The raw links of `html` parsed piece by piece (see SafeChunkEnds), each
// piece in its own arena, freed before the next. The hrefs outlive their
// arena as copies in `storage`.
RawPage ParseInPieces(std::string_view html, size_t piece_bytes, size_t max_links,
                      std::deque<std::string>& storage) {
  RawPage page;
  size_t start = 0;
  for (const size_t end : links_internal::SafeChunkEnds(html, piece_bytes)) {
    const std::string_view piece = html.substr(start, end - start);
    start = end;
    GumboArena arena(piece.size() * kArenaBytesPerHtmlByte);
    const RawPage raw = ParseWhole(piece, max_links - page.links.size(), arena);
    for (const RawLink& link : raw.links) {
      page.links.push_back({storage.emplace_back(link.href), link.source, link.nofollow});
    }
    page.links_found += raw.links_found;
    page.page_nofollow = page.page_nofollow || raw.page_nofollow;
    if (!page.base && raw.base) page.base = storage.emplace_back(*raw.base);
  }
  return page;
}

// The Gumbo path: collapse text if asked, then parse whole or in pieces.
RawPage ParseWithGumbo(std::string_view parsed, const LinkOptions& options,
                       std::deque<std::string>& storage, std::optional<GumboArena>& arena) {
  if (options.collapse_text) {
    parsed = storage.emplace_back(links_internal::CollapseText(parsed));
  }
  if (options.parse_chunk_bytes > 0 && parsed.size() > 2 * options.parse_chunk_bytes) {
    return ParseInPieces(parsed, options.parse_chunk_bytes, options.max_links, storage);
  }
  arena.emplace(parsed.size() * kArenaBytesPerHtmlByte);
  return ParseWhole(parsed, options.max_links, *arena);
}

}  // namespace

bool ParseLinkParser(std::string_view name, LinkParser* parser) {
  if (name == "scanner") {
    *parser = LinkParser::kScanner;
  } else if (name == "gumbo") {
    *parser = LinkParser::kGumbo;
  } else {
    return false;
  }
  return true;
}

namespace links_internal {

// ExtractLinks with an optional page URL (null: `crawl links` without --base).
PageLinks ExtractLinksFrom(std::string_view body, std::string_view content_type,
                           const Url* page_url, const LinkOptions& options) {
  PageLinks page;
  if (body.size() > options.max_html_bytes) {
    body = body.substr(0, options.max_html_bytes);
    page.truncated = true;
    page.truncated_reason = "max_html_bytes";
  }
  page.parsed_bytes = body.size();
  const Utf8Html html = DecodeHtml(body, content_type);
  page.charset = html.charset;
  // Without a '<' there is no element, so nothing for Gumbo to find: the
  // check runs at memchr speed and spares plain-text bodies the parse.
  if (html.utf8.find('<') == std::string_view::npos) return page;
  std::string_view parsed = html.utf8;
  // The guards against Gumbo's quadratic cases: each cuts the page before
  // the tag where the work per byte would stop being bounded.
  const size_t nesting_safe = links_internal::NestingSafePrefix(parsed, options.max_nesting_depth);
  const size_t attributes_safe =
      links_internal::AttributeSafePrefix(parsed, options.max_attributes_per_tag);
  const size_t safe = std::min(nesting_safe, attributes_safe);
  if (safe < parsed.size()) {
    parsed = parsed.substr(0, safe);
    page.truncated = true;
    page.truncated_reason = attributes_safe < nesting_safe ? "attributes_per_tag" : "nesting_depth";
    page.parsed_bytes = std::min(page.parsed_bytes, safe);  // UTF-8 bytes: about the raw ones
  }
  // `storage` and `arena` hold what the raw links point into until resolved.
  std::deque<std::string> storage;
  std::optional<GumboArena> arena;
  RawPage raw;
  bool scanned = false;
  if (options.parser == LinkParser::kScanner) {
    std::optional<RawPage> fast =
        links_internal::ScanRawLinks(parsed, options.max_links, storage, &page.fallback_reason);
    if (fast) {
      raw = *std::move(fast);
      scanned = true;
    } else {
      page.parser_fallback = true;
      storage.clear();
    }
  }
  if (!scanned) raw = ParseWithGumbo(parsed, options, storage, arena);
  page.links_found = raw.links_found;
  page.page_nofollow = raw.page_nofollow;
  if (raw.links_found > raw.links.size()) {
    if (!page.truncated) page.truncated_reason = "max_links";
    page.truncated = true;
  }
  ResolveAll(raw, page_url, options, page);
  return page;
}

}  // namespace links_internal

PageLinks ExtractLinks(std::string_view body, std::string_view content_type, const Url& page_url,
                       const LinkOptions& options) {
  return links_internal::ExtractLinksFrom(body, content_type, &page_url, options);
}

}  // namespace crawler
