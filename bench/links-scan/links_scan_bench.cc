// links-scan-bench: the link scanner against Gumbo on the same pages, one
// core: is every page's ExtractLinks result identical (links in order,
// sources, counters), how often does the scanner hand a page to Gumbo, and
// how many MB/s does each path extract.
//
// Usage: links-scan-bench [--quiet] [--repeat N] [--profile-scanner] [PATH...]
//   PATH: an HTML file or a directory searched recursively for *.html,
//   *.htm and *.xhtml. Without paths: generated pages only. Generated pages
//   (bench/links' typical and tag-soup sets) are always included.
// Prints one row per corpus and a total; lists every page whose results
// differ and exits 1 if there is one (the differential test over pages on
// disk: any difference is a scanner bug).
//
// Timing: ExtractLinks as the crawler calls it (charset sniffing, guards,
// parse, resolution), and the parse step alone (scanner vs Gumbo + walk on
// the decoded text); wall time of one thread, best of --repeat runs (default
// 3) per corpus, after one warm-up pass that also does the comparison.
// Includes private headers of crawler/src/links (it measures them).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../../crawler/src/links/gumbo_arena.h"
#include "../../crawler/src/links/link_scanner.h"
#include "../../crawler/src/links/raw_links.h"
#include "../links/synthetic_pages.h"
#include "crawler/charset.h"
#include "crawler/links.h"
#include "crawler/url.h"

namespace {

struct Page {
  std::string path;
  std::string body;
};

struct Corpus {
  std::string name;
  std::vector<Page> pages;
};

bool IsHtmlFile(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".html" || ext == ".htm" || ext == ".xhtml";
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

Corpus LoadCorpus(const std::string& root) {
  Corpus corpus{root, {}};
  std::error_code ec;
  if (std::filesystem::is_regular_file(root, ec)) {
    corpus.pages.push_back({root, ReadFile(root)});
    return corpus;
  }
  std::vector<std::filesystem::path> files;
  for (auto it = std::filesystem::recursive_directory_iterator(
           root, std::filesystem::directory_options::skip_permission_denied, ec);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->is_regular_file(ec) && IsHtmlFile(it->path())) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) corpus.pages.push_back({file.string(), ReadFile(file)});
  return corpus;
}

Corpus Generated(const std::string& name, std::vector<std::string> bodies) {
  Corpus corpus{name, {}};
  for (size_t i = 0; i < bodies.size(); ++i) {
    corpus.pages.push_back({name + "#" + std::to_string(i), std::move(bodies[i])});
  }
  return corpus;
}

std::string Describe(const crawler::PageLinks& p) {
  std::string s =
      "found=" + std::to_string(p.links_found) + " kept=" + std::to_string(p.links.size()) +
      " rejected=" + std::to_string(p.rejected) +
      " nofollow=" + std::to_string(p.nofollow_skipped) +
      " page_nofollow=" + std::to_string(p.page_nofollow) + " truncated=" + p.truncated_reason;
  return s;
}

// The first difference between the two results, or "" when identical.
std::string Difference(const crawler::PageLinks& gumbo, const crawler::PageLinks& scan) {
  const size_t n = std::min(gumbo.links.size(), scan.links.size());
  for (size_t i = 0; i < n; ++i) {
    if (gumbo.links[i].url != scan.links[i].url || gumbo.links[i].source != scan.links[i].source) {
      return "link " + std::to_string(i) + ": gumbo " + gumbo.links[i].url + " (" +
             std::string(crawler::LinkSourceName(gumbo.links[i].source)) + "), scanner " +
             scan.links[i].url + " (" + std::string(crawler::LinkSourceName(scan.links[i].source)) +
             ")";
    }
  }
  if (gumbo.links.size() != scan.links.size() || gumbo.links_found != scan.links_found ||
      gumbo.rejected != scan.rejected || gumbo.nofollow_skipped != scan.nofollow_skipped ||
      gumbo.page_nofollow != scan.page_nofollow || gumbo.truncated != scan.truncated ||
      gumbo.truncated_reason != scan.truncated_reason || gumbo.charset != scan.charset ||
      gumbo.parsed_bytes != scan.parsed_bytes) {
    return "gumbo " + Describe(gumbo) + "; scanner " + Describe(scan);
  }
  return "";
}

double SecondsFor(const Corpus& corpus, const crawler::Url& base,
                  const crawler::LinkOptions& options, int repeat) {
  double best = 1e100;
  size_t sink = 0;
  for (int r = 0; r < repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (const Page& page : corpus.pages) {
      sink += crawler::ExtractLinks(page.body, "text/html", base, options).links.size();
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  if (sink == 1) std::fprintf(stderr, " ");
  return best;
}

// The parse step alone on the decoded page: the scanner's ScanRawLinks
// (Gumbo where it falls back) against a Gumbo parse (arena, no error
// records, as the crawler runs it) plus FindRawLinks.
double RawSecondsFor(const std::vector<std::string>& utf8_pages, bool scanner, int repeat) {
  double best = 1e100;
  size_t sink = 0;
  for (int r = 0; r < repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (const std::string& html : utf8_pages) {
      std::deque<std::string> storage;
      std::optional<crawler::links_internal::RawPage> raw;
      if (scanner) raw = crawler::links_internal::ScanRawLinks(html, 100000, storage);
      if (!raw) {
        crawler::links_internal::GumboArena arena(html.size() * 16);
        raw = crawler::links_internal::FindRawLinks(arena.Parse(html)->document, 100000);
      }
      sink += raw->links_found;
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  if (sink == 1) std::fprintf(stderr, " ");
  return best;
}

struct Row {
  size_t pages = 0;
  size_t bytes = 0;
  size_t fallbacks = 0;
  size_t differences = 0;
  double gumbo_seconds = 0;
  double scanner_seconds = 0;
  double gumbo_raw_seconds = 0;
  double scanner_raw_seconds = 0;
};

void PrintRow(const std::string& name, const Row& row) {
  const double mb = static_cast<double>(row.bytes) / 1e6;
  std::printf(
      "| %-28s | %6zu | %6.1f | %5zu (%5.2f%%) | %5zu | %6.1f | %7.1f | %5.1fx | %6.1f | %7.1f | "
      "%5.1fx "
      "|\n",
      name.c_str(), row.pages, mb, row.fallbacks,
      row.pages ? 100.0 * static_cast<double>(row.fallbacks) / row.pages : 0.0, row.differences,
      mb / row.gumbo_seconds, mb / row.scanner_seconds, row.gumbo_seconds / row.scanner_seconds,
      mb / row.gumbo_raw_seconds, mb / row.scanner_raw_seconds,
      row.gumbo_raw_seconds / row.scanner_raw_seconds);
}

// The last two path components, for a short row name.
std::string ShortName(const std::string& path) {
  const size_t last = path.find_last_of('/', path.size() > 1 ? path.size() - 2 : 0);
  if (last == std::string::npos || last == 0) return path;
  const size_t before = path.find_last_of('/', last - 1);
  return before == std::string::npos ? path : path.substr(before + 1);
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 3;
  bool quiet = false;
  bool profile_scanner = false;
  std::vector<Corpus> corpora;
  corpora.push_back(Generated("generated: typical 5 KB", links_bench::TypicalPages(400, 5000, 1)));
  corpora.push_back(Generated("generated: typical 96 KB", links_bench::TypicalPages(40, 96000, 2)));
  corpora.push_back(Generated("generated: tag soup 5 KB", links_bench::TagSoupPages(400, 5000, 3)));
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--profile-scanner") == 0) {
      profile_scanner = true;  // time the scanner path only (for perf)
    } else if (std::strcmp(argv[i], "--quiet") == 0) {
      quiet = true;
    } else {
      corpora.push_back(LoadCorpus(argv[i]));
    }
  }
  const crawler::Url base = *crawler::Url::Parse("https://bench.example/dir/page.html");
  crawler::LinkOptions gumbo;
  gumbo.parser = crawler::LinkParser::kGumbo;
  crawler::LinkOptions scanner;
  scanner.parser = crawler::LinkParser::kScanner;

  std::printf("links-scan-bench (%s build), one thread, best of %d\n\n", CRAWL_BUILD_TYPE, repeat);
  if (profile_scanner) {
    double seconds = 0;
    size_t bytes = 0;
    for (const Corpus& corpus : corpora) {
      seconds += SecondsFor(corpus, base, scanner, repeat);
      for (const Page& page : corpus.pages) bytes += page.body.size();
    }
    std::printf("scanner path: %.1f MB/s\n", static_cast<double>(bytes) / 1e6 / seconds);
    return 0;
  }
  std::printf("| %-28s | %6s | %6s | %13s | %5s | %6s | %7s | %6s | %6s | %7s | %6s |\n", "corpus",
              "pages", "MB", "fallback", "diffs", "gumbo", "scanner", "ratio", "gumbo", "scanner",
              "ratio");
  std::printf("|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n", std::string(30, '-').c_str(),
              std::string(8, '-').c_str(), std::string(8, '-').c_str(),
              std::string(15, '-').c_str(), std::string(7, '-').c_str(),
              std::string(8, '-').c_str(), std::string(9, '-').c_str(), std::string(8, '-').c_str(),
              std::string(8, '-').c_str(), std::string(9, '-').c_str(),
              std::string(8, '-').c_str());
  Row total;
  std::vector<std::string> report;
  std::map<std::string, size_t> reasons;
  for (const Corpus& corpus : corpora) {
    Row row;
    for (const Page& page : corpus.pages) {
      const crawler::PageLinks a = crawler::ExtractLinks(page.body, "text/html", base, gumbo);
      const crawler::PageLinks b = crawler::ExtractLinks(page.body, "text/html", base, scanner);
      ++row.pages;
      row.bytes += page.body.size();
      if (b.parser_fallback) {
        ++row.fallbacks;
        ++reasons[b.fallback_reason];
        if (!quiet) report.push_back("fallback: " + page.path + ": " + b.fallback_reason);
      }
      const std::string diff = Difference(a, b);
      if (!diff.empty()) {
        ++row.differences;
        report.push_back("DIFFERENT: " + page.path + ": " + diff);
      }
    }
    if (row.pages == 0) continue;
    row.gumbo_seconds = SecondsFor(corpus, base, gumbo, repeat);
    row.scanner_seconds = SecondsFor(corpus, base, scanner, repeat);
    std::vector<std::string> utf8_pages;
    for (const Page& page : corpus.pages) {
      utf8_pages.emplace_back(crawler::DecodeHtml(page.body, "text/html").utf8);
    }
    row.gumbo_raw_seconds = RawSecondsFor(utf8_pages, false, repeat);
    row.scanner_raw_seconds = RawSecondsFor(utf8_pages, true, repeat);
    PrintRow(ShortName(corpus.name), row);
    total.pages += row.pages;
    total.bytes += row.bytes;
    total.fallbacks += row.fallbacks;
    total.differences += row.differences;
    total.gumbo_seconds += row.gumbo_seconds;
    total.scanner_seconds += row.scanner_seconds;
    total.gumbo_raw_seconds += row.gumbo_raw_seconds;
    total.scanner_raw_seconds += row.scanner_raw_seconds;
  }
  PrintRow("total", total);
  std::printf(
      "\nMB/s of page bytes. Columns 6-8: ExtractLinks per path (decode, guards, parse,\n"
      "resolve); 9-11: the parse step alone on the decoded text (ScanRawLinks, Gumbo where it\n"
      "falls back, against a Gumbo parse + FindRawLinks). fallback: pages the scanner handed\n"
      "to Gumbo. diffs: pages whose ExtractLinks results differ (must be 0).\n");
  std::vector<std::pair<size_t, std::string>> by_count;
  for (const auto& [reason, count] : reasons) by_count.push_back({count, reason});
  std::sort(by_count.rbegin(), by_count.rend());
  if (!by_count.empty()) std::printf("\nWhy the scanner handed pages to Gumbo (pages):\n");
  for (size_t i = 0; i < by_count.size() && i < 15; ++i) {
    std::printf("  %6zu  %s\n", by_count[i].first, by_count[i].second.c_str());
  }
  for (const std::string& line : report) std::printf("%s\n", line.c_str());
  if (total.differences > 0) {
    std::printf("\n%zu page(s) differ: the scanner is wrong on them\n", total.differences);
    return 1;
  }
  return 0;
}
