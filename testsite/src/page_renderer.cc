#include "page_renderer.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "seeded_random.h"
#include "site_paths.h"

namespace testsite {
namespace {

// Random streams per item; see SeededRandom.
constexpr uint64_t kPageTextStream = 2;
constexpr uint64_t kNofollowTextStream = 3;
constexpr uint64_t kFileTextStream = 4;

constexpr std::array<std::string_view, 48> kWords = {
    "crawler", "queue",  "filter", "bloom",   "sieve",  "frontier", "host",   "page",
    "link",    "anchor", "fetch",  "parse",   "robots", "polite",   "delay",  "socket",
    "request", "reply",  "header", "body",    "index",  "search",   "engine", "graph",
    "node",    "edge",   "depth",  "breadth", "visit",  "seen",     "false",  "positive",
    "hash",    "bit",    "array",  "memory",  "disk",   "spill",    "batch",  "merge",
    "the",     "of",     "and",    "a",       "to",     "in",       "is",     "with"};

// Words per paragraph: about 400 bytes, like a short paragraph of prose.
constexpr int kWordsPerParagraph = 60;

std::string_view AnchorText(const Link& link) {
  switch (link.kind) {
    case LinkKind::kTextFile:
      return "plain text notes";
    case LinkKind::kPdfFile:
      return "the PDF version";
    case LinkKind::kNofollow:
      return "a sponsored page";
    case LinkKind::kStall:
    case LinkKind::kStallBody:
      return "the slow archive";
    default:
      return "";
  }
}

std::string AnchorTag(const std::string& href, const Link& link) {
  std::string text(AnchorText(link));
  if (text.empty()) text = link.target == 0 ? "Home" : absl::StrCat("Page ", link.target);
  const char* rel = link.kind == LinkKind::kNofollow ? " rel=\"nofollow\"" : "";
  return absl::StrCat("<a href=\"", href, "\"", rel, ">", text, "</a>");
}

}  // namespace

PageRenderer::PageRenderer(const SiteOptions& options, const SiteGraph& graph, std::string base_url,
                           std::string root_extra_html)
    : options_(options),
      graph_(graph),
      base_url_(std::move(base_url)),
      root_extra_html_(std::move(root_extra_html)) {}

std::string PageRenderer::Href(const Link& link, bool resolves_against_root) const {
  const std::string path = LinkPath(link);
  std::string href;
  // Relative spelling from the page's directory ("/" or "/p/").
  std::string relative;
  if (resolves_against_root) {
    relative = path == "/" ? "./" : path.substr(1);
  } else {
    relative = path.rfind("/p/", 0) == 0 ? path.substr(3) : absl::StrCat("../", path.substr(1));
  }
  switch (link.form) {
    case LinkForm::kRelative:
      href = relative;
      break;
    case LinkForm::kDotRelative:
      href = relative[0] == '.' ? relative : absl::StrCat("./", relative);
      break;
    case LinkForm::kParentRelative:
      // From "/" the ".." is clamped at the root (RFC 3986, 5.2.4).
      href = absl::StrCat("../", path.substr(1));
      break;
    case LinkForm::kRootRelative:
      href = path;
      break;
    case LinkForm::kAbsolute:
      href = absl::StrCat(base_url_, path);
      break;
  }
  if (link.fragment) absl::StrAppend(&href, "#s", link.target % 7);
  return href;
}

std::string PageRenderer::Filler(uint64_t item, uint64_t stream, size_t bytes) const {
  SeededRandom random(options_.seed, item, stream);
  std::string text;
  text.reserve(bytes + 16);
  while (text.size() < bytes) {
    if (!text.empty()) text += ' ';
    const std::string_view word = kWords[random.Below(kWords.size())];
    text.append(word.data(), word.size());
  }
  return text;
}

std::string PageRenderer::Page(uint64_t page) const {
  const PageLayout layout = graph_.Layout(page);
  std::string html;
  html.reserve(static_cast<size_t>(options_.page_bytes) + 128 * layout.links.size() + 1024);
  absl::StrAppend(&html, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
                  "<title>Page ", page, " - testsite</title>\n");
  if (layout.base_href) absl::StrAppend(&html, "<base href=\"", base_url_, "/\">\n");
  absl::StrAppend(&html, "<meta name=\"description\" content=\"Generated page ", page, " of ",
                  graph_.pages(), "\">\n</head>\n<body>\n");
  AppendBody(page, layout, html);
  if (page == 0) html += root_extra_html_;
  absl::StrAppend(&html, "<footer><p>testsite seed ", options_.seed,
                  " <a href=\"mailto:webmaster@example.invalid\">webmaster</a>",
                  " <a href=\"#top\">top</a></p></footer>\n</body>\n</html>\n");
  return html;
}

// Half of the links go in the nav list, the rest inline, one per paragraph
// (the last paragraph takes any left over).
void PageRenderer::AppendBody(uint64_t page, const PageLayout& layout, std::string& html) const {
  const bool against_root = page == 0 || layout.base_href;
  const size_t in_nav = layout.links.size() / 2;
  absl::StrAppend(&html, "<header id=\"top\"><h1>Page ", page, "</h1></header>\n<nav><ul>\n");
  for (size_t i = 0; i < in_nav; ++i) {
    absl::StrAppend(&html, "<li>", AnchorTag(Href(layout.links[i], against_root), layout.links[i]),
                    "</li>\n");
  }
  absl::StrAppend(&html, "</ul></nav>\n<main>\n");
  SeededRandom random(options_.seed, page, kPageTextStream);
  const auto text_bytes = static_cast<size_t>(options_.page_bytes);
  size_t written = 0;
  size_t next_link = in_nav;
  for (size_t section = 0; written < text_bytes; ++section) {
    absl::StrAppend(&html, "<h2 id=\"s", section, "\">Section ", section, "</h2>\n<p>");
    for (int word = 0; word < kWordsPerParagraph && written < text_bytes; ++word) {
      const std::string_view next = kWords[random.Below(kWords.size())];
      if (word > 0) html += ' ';
      html.append(next.data(), next.size());
      written += next.size() + 1;
    }
    const bool last = written >= text_bytes;
    while (next_link < layout.links.size()) {
      const Link& link = layout.links[next_link++];
      absl::StrAppend(&html, " ", AnchorTag(Href(link, against_root), link));
      if (!last) break;
    }
    html += ".</p>\n";
  }
  for (; next_link < layout.links.size(); ++next_link) {  // page_bytes == 0: no paragraphs
    const Link& link = layout.links[next_link];
    absl::StrAppend(&html, "<p>", AnchorTag(Href(link, against_root), link), "</p>\n");
  }
  absl::StrAppend(&html, "</main>\n");
}

std::string PageRenderer::NofollowPage(uint64_t number) const {
  return absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Sponsored ",
      number, " - testsite</title>\n</head>\n<body>\n<p>", Filler(number, kNofollowTextStream, 512),
      " <a href=\"/trap/nofollow/", number, "\">more</a>.</p>\n</body>\n</html>\n");
}

std::string PageRenderer::TextFile(uint64_t number) const {
  return absl::StrCat("Notes ", number, "\n\nThis is text/plain; a crawler must not parse it.\n",
                      "<a href=\"/trap/txt/", number, "\">not a link</a>\n",
                      Filler(number, kFileTextStream, 1024), "\n");
}

std::string PageRenderer::PdfFile(uint64_t number) const {
  return absl::StrCat("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\n",
                      "endobj\n% <a href=\"/trap/pdf/", number, "\">not a link</a>\n",
                      "2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n% ",
                      Filler(number, kFileTextStream, 1024),
                      "\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n");
}

}  // namespace testsite
