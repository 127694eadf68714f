// Fuzzes crawler/links.h and crawler/charset.h: ExtractLinks on a fixed page
// URL, and the charset sniffing and decoding it runs first. Input: an HTML
// body, optionally preceded by one line "Content-Type: VALUE\n" (the header
// the page came with; without it, "text/html").
// Checks what the Sieve relies on: every kept link is an http(s) URL without
// a fragment that parses, and the counters add up; and that the text
// collapsed before the parse (LinkOptions::collapse_text) changes no link.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "crawler/charset.h"
#include "crawler/links.h"
#include "crawler/url.h"

namespace {

constexpr std::string_view kHeader = "Content-Type: ";

[[noreturn]] void Fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "invariant broken: %s: '%.*s'\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

void CheckLink(const crawler::ExtractedLink& link) {
  absl::StatusOr<crawler::Url> url = crawler::Url::Parse(link.url);
  if (!url.ok()) Fail("extracted link does not parse", link.url);
  if (!url->IsHttp()) Fail("extracted link is not http(s)", link.url);
  if (url->has_fragment()) Fail("extracted link keeps its fragment", link.url);
  (void)crawler::LinkSourceName(link.source);
}

void CheckCharsetFunctions(std::string_view body, std::string_view content_type) {
  (void)crawler::ContentTypeCharset(content_type);
  (void)crawler::PrescanMetaCharset(body);
  crawler::SniffedCharset sniffed = crawler::SniffHtmlCharset(body, content_type);
  if (sniffed.name.empty()) Fail("no charset sniffed", body.substr(0, 64));
  crawler::Utf8Html html = crawler::DecodeHtml(body, content_type);
  crawler::Utf8Html moved = std::move(html);
  // Touch every byte: ASan catches a view re-pointed at the wrong buffer.
  size_t sum = 0;
  for (char c : moved.utf8) sum += static_cast<unsigned char>(c);
  if (sum == 1) std::fprintf(stderr, " ");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const crawler::Url* const page =
      new crawler::Url(*crawler::Url::Parse("https://fuzz.example/dir/page.html?q=1"));
  std::string_view body(reinterpret_cast<const char*>(data), size);
  std::string_view content_type = "text/html";
  if (body.substr(0, kHeader.size()) == kHeader) {
    const size_t end = body.find('\n');
    content_type =
        body.substr(kHeader.size(),
                    end == std::string_view::npos ? std::string_view::npos : end - kHeader.size());
    body = end == std::string_view::npos ? std::string_view() : body.substr(end + 1);
  }
  CheckCharsetFunctions(body, content_type);

  crawler::LinkOptions options;
  options.max_links = 64;  // small limits so the fuzzer reaches the truncation paths
  options.max_nesting_depth = 256;
  crawler::PageLinks found = crawler::ExtractLinks(body, content_type, *page, options);
  if (found.links.size() > options.max_links) Fail("more links than max_links", "");
  if (found.links.size() + found.rejected + found.nofollow_skipped > found.links_found &&
      !found.truncated) {
    Fail("counters do not add up", body.substr(0, 64));
  }
  for (const crawler::ExtractedLink& link : found.links) CheckLink(link);

  // Collapsing text before the parse must not change what is found.
  options.collapse_text = false;
  const crawler::PageLinks uncollapsed = crawler::ExtractLinks(body, content_type, *page, options);
  bool same = uncollapsed.links.size() == found.links.size() &&
              uncollapsed.links_found == found.links_found &&
              uncollapsed.nofollow_skipped == found.nofollow_skipped &&
              uncollapsed.page_nofollow == found.page_nofollow;
  for (size_t i = 0; same && i < found.links.size(); ++i) {
    same = uncollapsed.links[i].url == found.links[i].url &&
           uncollapsed.links[i].source == found.links[i].source;
  }
  if (!same) Fail("collapsing text changed the links", body.substr(0, 64));
  return 0;
}
