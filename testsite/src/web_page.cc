#include "web_page.h"

#include <array>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "seeded_random.h"

namespace testsite {
namespace {

constexpr uint64_t kTextStream = 2;
constexpr uint64_t kPageStreamsPerHost = 4;  // as in web_graph.cc
constexpr size_t kBytesPerLink = 64;         // for the reserve only

constexpr std::array<std::string_view, 16> kWebWords = {
    "crawler", "queue", "filter", "host", "page", "link", "fetch", "frontier",
    "the",     "of",    "and",    "a",    "to",   "in",   "is",    "with"};

void AppendFiller(const WebGraph& graph, uint64_t host, uint64_t page, std::string& html) {
  SeededRandom random(graph.options().seed, page, host * kPageStreamsPerHost + kTextStream);
  const auto bytes = static_cast<size_t>(graph.options().page_bytes);
  const size_t end = html.size() + bytes;
  html += "<p>";
  while (html.size() < end) {
    const std::string_view word = kWebWords[random.Below(kWebWords.size())];
    html.append(word.data(), word.size());
    html += ' ';
  }
  html += "</p>\n";
}

}  // namespace

std::string WebPagePath(uint64_t page) {
  return page == 0 ? "/" : absl::StrCat("/p/", page, ".html");
}

std::string RenderWebPage(const WebGraph& graph, uint64_t host, uint64_t page,
                          const std::vector<WebLink>& links, int port) {
  std::string html;
  html.reserve(static_cast<size_t>(graph.options().page_bytes) + kBytesPerLink * links.size() +
               256);
  const std::string address = WebGraph::HostAddress(host);
  absl::StrAppend(&html, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>", address,
                  " page ", page, "</title></head>\n<body>\n<h1>", address, " page ", page,
                  "</h1>\n");
  AppendFiller(graph, host, page, html);
  html += "<ul>\n";
  for (const WebLink& link : links) {
    html += "<li><a href=\"";
    if (link.host != host) {
      absl::StrAppend(&html, "http://", WebGraph::HostAddress(link.host), ":", port);
    }
    absl::StrAppend(&html, WebPagePath(link.page), "\">page ", link.page, "</a></li>\n");
  }
  html += "</ul>\n</body></html>\n";
  return html;
}

}  // namespace testsite
