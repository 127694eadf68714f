// Differential fuzzing of the link scanner: ExtractLinks with
// LinkParser::kScanner and with LinkParser::kGumbo on the same input must
// agree on every link (URL, source, order) and every counter, whether the
// scanner decided the page or handed it to Gumbo. Any difference is a
// scanner bug (crawler/src/links/link_scanner.h). Input: an HTML body, as
// the crawler_links target's (an optional "Content-Type: VALUE\n" first).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "crawler/links.h"
#include "crawler/url.h"

namespace {

constexpr std::string_view kHeader = "Content-Type: ";

[[noreturn]] void Differ(const char* what, std::string_view gumbo, std::string_view scanner) {
  std::fprintf(stderr,
               "invariant broken: scanner and gumbo differ: %s\n  gumbo:   '%.*s'\n"
               "  scanner: '%.*s'\n",
               what, static_cast<int>(gumbo.size()), gumbo.data(), static_cast<int>(scanner.size()),
               scanner.data());
  std::abort();
}

void Compare(const crawler::PageLinks& g, const crawler::PageLinks& s) {
  for (size_t i = 0; i < g.links.size() && i < s.links.size(); ++i) {
    if (g.links[i].url != s.links[i].url) Differ("link url", g.links[i].url, s.links[i].url);
    if (g.links[i].source != s.links[i].source) {
      Differ("link source", crawler::LinkSourceName(g.links[i].source),
             crawler::LinkSourceName(s.links[i].source));
    }
  }
  const auto counters = [](const crawler::PageLinks& p) {
    return std::to_string(p.links.size()) + "/" + std::to_string(p.links_found) + "/" +
           std::to_string(p.rejected) + "/" + std::to_string(p.nofollow_skipped) + "/" +
           std::to_string(p.page_nofollow) + "/" + p.truncated_reason;
  };
  if (counters(g) != counters(s))
    Differ("kept/found/rejected/nofollow/page/cut", counters(g), counters(s));
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
  crawler::LinkOptions options;
  options.max_links = 64;
  options.max_nesting_depth = 256;
  options.parser = crawler::LinkParser::kGumbo;
  const crawler::PageLinks gumbo = crawler::ExtractLinks(body, content_type, *page, options);
  options.parser = crawler::LinkParser::kScanner;
  const crawler::PageLinks scanner = crawler::ExtractLinks(body, content_type, *page, options);
  Compare(gumbo, scanner);
  return 0;
}
