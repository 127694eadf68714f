// Page generators for the links bench (see synthetic_pages.h).
#include "synthetic_pages.h"

// GCC 12 at -O3 reports a false -Wrestrict inside std::string's operator+ for
// "literal" + std::string (GCC bug 105329), which -Werror turns into a failed
// Release build of this benchmark.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#include <random>
#include <string>

namespace links_bench {
namespace {

const char* const kWords[] = {
    "crawler", "queue", "bloom", "filter", "the",   "of",   "and",   "network",          "page",
    "link",    "sieve", "host",  "fetch",  "parse", "html", "&amp;", "&eacute;t&eacute;"};

std::string Words(std::mt19937_64& rng, int count) {
  std::string text;
  for (int i = 0; i < count; ++i) {
    text += kWords[rng() % std::size(kWords)];
    text += ' ';
  }
  return text;
}

std::string Href(std::mt19937_64& rng) {
  switch (rng() % 5) {
    case 0:
      return "/s" + std::to_string(rng() % 100) + "/p" + std::to_string(rng() % 10000) + ".html";
    case 1:
      return "../g" + std::to_string(rng() % 50) + "/p" + std::to_string(rng() % 1000) + ".html";
    case 2:
      return "https://other" + std::to_string(rng() % 20) +
             ".example/a?b=" + std::to_string(rng() % 100) + "&amp;c=d";
    case 3:
      return "p" + std::to_string(rng() % 1000) + ".html#s" + std::to_string(rng() % 9);
    default:
      return "mailto:someone@example.com";
  }
}

std::string Head(std::mt19937_64& rng) {
  return "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>\n<title>" + Words(rng, 6) +
         "</title>\n<link rel=stylesheet href=/style.css>\n<link rel=canonical href=/self.html>\n"
         "<script>var x = 1 < 2 && \"</p>\";</script>\n</head>\n<body>\n";
}

std::string Paragraph(std::mt19937_64& rng) {
  std::string p = "<p class=\"text\">" + Words(rng, 20);
  p += "<a href=\"" + Href(rng) + "\">" + Words(rng, 3) + "</a> ";
  p += "<b>" + Words(rng, 4) + "</b><em>" + Words(rng, 3) + "</em>";
  p += Words(rng, 15) + "</p>\n";
  return p;
}

std::string NavList(std::mt19937_64& rng) {
  std::string nav = "<nav><ul>\n";
  for (int i = 0; i < 8; ++i) {
    nav += "  <li><a href=\"" + Href(rng) + "\" title=\"" + Words(rng, 2) + "\">" + Words(rng, 2) +
           "</a></li>\n";
  }
  return nav + "</ul></nav>\n";
}

std::string Table(std::mt19937_64& rng) {
  std::string table = "<table><tr><th>name<th>value</tr>\n";
  for (int i = 0; i < 5; ++i) {
    table += "<tr><td>" + Words(rng, 2) + "<td><a href=" + Href(rng) + ">" + Words(rng, 1) +
             "</a></tr>\n";
  }
  return table + "</table>\n<!-- " + Words(rng, 5) + " -->\n";
}

std::string SoupChunk(std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0:
      return "<p><b><i>" + Words(rng, 4) + "</b></i>";
    case 1:
      return "</div></span><td>" + Words(rng, 3);
    case 2:
      return "<a href=" + Href(rng) + " href=dup x=\"unterminated>" + Words(rng, 2) + "</a>";
    case 3:
      return "<table><a href=" + Href(rng) + ">in table</a><tr>x</table>";
    case 4:
      return "&bogus; &#xZZ; <" + Words(rng, 1) + "<< >";
    default:
      return "<li><li><font color=red><center>" + Words(rng, 3);
  }
}

}  // namespace

std::vector<std::string> TypicalPages(int count, size_t page_bytes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> pages;
  for (int i = 0; i < count; ++i) {
    std::string page = Head(rng) + NavList(rng);
    while (page.size() < page_bytes) {
      page += (rng() % 6 == 0) ? Table(rng) : Paragraph(rng);
    }
    pages.push_back(page + "</body></html>\n");
  }
  return pages;
}

std::vector<std::string> TagSoupPages(int count, size_t page_bytes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> pages;
  for (int i = 0; i < count; ++i) {
    std::string page = "<html><body>";
    while (page.size() < page_bytes) page += SoupChunk(rng);
    pages.push_back(std::move(page));
  }
  return pages;
}

}  // namespace links_bench
