// links-bench: what each step of the link extractor costs, measured on
// generated pages (typical, tag soup, one big page), one thread.
//
// The steps, each a row, each the one before plus one change:
//   gumbo defaults     gumbo_parse + link walk + gumbo_destroy_output
//   max_errors=0       Gumbo stops recording parse errors
//   arena              all Gumbo memory from a bump arena, no destroy
//   arena, no walk     the parse alone (what the walk costs is the difference)
//   ExtractLinks       the whole thing: charset sniff, nesting guard, parse,
//                      walk, resolve + normalize
// and the cheap passes before the parse (UTF-8 validation, charset sniffing,
// the nesting guard, the '<' check), then the arena's footprint.
//
// Theory: Gumbo's tokenizer and tree builder touch every byte several times
// and allocate per node (~10-15 MB/s/core measured here); error records,
// malloc/free and the recursive destroy are overhead on top that the options
// remove. The pre-passes run at memory speed (GB/s) and should not show.
//
// The bench includes private headers of crawler/src/links (it measures them).
#include <gumbo.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "../../crawler/src/links/gumbo_arena.h"
#include "../../crawler/src/links/nesting_guard.h"
#include "../../crawler/src/links/raw_links.h"
#include "../../crawler/src/links/utf8.h"
#include "crawler/charset.h"
#include "crawler/links.h"
#include "synthetic_pages.h"

namespace {

using crawler::links_internal::FindRawLinks;
using crawler::links_internal::GumboArena;

constexpr size_t kMaxLinks = 100000;

struct Corpus {
  const char* name;
  std::vector<std::string> pages;
  size_t bytes = 0;
};

Corpus MakeCorpus(const char* name, std::vector<std::string> pages) {
  Corpus corpus{name, std::move(pages)};
  for (const std::string& page : corpus.pages) corpus.bytes += page.size();
  return corpus;
}

// This thread's CPU time: the machine is shared, and wall time would measure
// the neighbours.
double ThreadCpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec + now.tv_nsec * 1e-9;
}

// One pass of `step` over the corpus, in CPU seconds; adds the links it
// found to `links`, a checksum that keeps the work from being optimized away.
double PassSeconds(const Corpus& corpus, const std::function<size_t(const std::string&)>& step,
                   size_t& links) {
  links = 0;
  const double start = ThreadCpuSeconds();
  for (const std::string& page : corpus.pages) links += step(page);
  return ThreadCpuSeconds() - start;
}

size_t GumboWithOptions(const std::string& page, const GumboOptions& options) {
  GumboOutput* output = gumbo_parse_with_options(&options, page.data(), page.size());
  const size_t links = FindRawLinks(output->document, kMaxLinks).links_found;
  gumbo_destroy_output(&options, output);
  return links;
}

size_t GumboDefaults(const std::string& page) {
  return GumboWithOptions(page, kGumboDefaultOptions);
}

size_t GumboNoErrors(const std::string& page) {
  GumboOptions options = kGumboDefaultOptions;
  options.max_errors = 0;
  return GumboWithOptions(page, options);
}

size_t ArenaParseAndWalk(const std::string& page) {
  GumboArena arena(page.size() * 4);
  return FindRawLinks(arena.Parse(page)->document, kMaxLinks).links_found;
}

size_t ArenaParseOnly(const std::string& page) {
  GumboArena arena(page.size() * 4);
  return arena.Parse(page)->root != nullptr ? 1 : 0;
}

const crawler::Url& PageUrl() {
  static const crawler::Url url = *crawler::Url::Parse("http://bench.example/s1/g2/page.html");
  return url;
}

size_t FullExtract(const std::string& page) {
  return crawler::ExtractLinks(page, "text/html", PageUrl()).links.size();
}

size_t Utf8Validation(const std::string& page) {
  return crawler::links_internal::IsValidUtf8(page) ? 1 : 0;
}

size_t SniffAndDecode(const std::string& page) { return crawler::DecodeHtml(page, "").utf8.size(); }

size_t NestingScan(const std::string& page) {
  return crawler::links_internal::NestingSafePrefix(page, 4096);
}

size_t LessThanCheck(const std::string& page) {
  return page.find('<') == std::string::npos ? 0 : 1;
}

struct Step {
  const char* name;
  std::function<size_t(const std::string&)> run;
};

void RunCorpus(const Corpus& corpus, int runs) {
  const Step steps[] = {
      {"gumbo defaults", GumboDefaults},
      {"max_errors=0", GumboNoErrors},
      {"arena", ArenaParseAndWalk},
      {"arena, no walk", ArenaParseOnly},
      {"ExtractLinks", FullExtract},
      {"pre: IsValidUtf8", Utf8Validation},
      {"pre: DecodeHtml (sniff)", SniffAndDecode},
      {"pre: nesting guard", NestingScan},
      {"pre: find '<'", LessThanCheck},
  };
  constexpr size_t kSteps = std::size(steps);
  double best[kSteps];
  size_t links[kSteps];
  std::fill(best, best + kSteps, 1e30);
  // Interleaved runs: a burst of load from other processes hits every step
  // alike instead of one.
  for (int run = 0; run < runs; ++run) {
    for (size_t i = 0; i < kSteps; ++i) {
      best[i] = std::min(best[i], PassSeconds(corpus, steps[i].run, links[i]));
    }
  }
  std::printf("\n%s: %zu pages, %.1f MB\n", corpus.name, corpus.pages.size(), corpus.bytes / 1e6);
  std::printf("  %-24s %10s %10s %10s %8s\n", "step", "MB/s", "pages/s", "links", "vs first");
  for (size_t i = 0; i < kSteps; ++i) {
    std::printf("  %-24s %10.1f %10.0f %10zu %7.2fx\n", steps[i].name, corpus.bytes / best[i] / 1e6,
                corpus.pages.size() / best[i], links[i], best[0] / best[i]);
  }
}

void PrintArenaFootprint(const Corpus& corpus) {
  size_t reserved = 0;
  size_t largest = 0;
  for (const std::string& page : corpus.pages) {
    GumboArena arena(64 << 10);  // smallest first block: measures the need, not the guess
    arena.Parse(page);
    reserved += arena.reserved_bytes();
    largest = std::max(largest, arena.reserved_bytes());
  }
  std::printf("  arena: %.1f bytes reserved per HTML byte (largest parse %.1f MB)\n",
              static_cast<double>(reserved) / corpus.bytes, largest / 1e6);
}

// Every *.html file under `dir` (for a corpus of real pages, e.g. /usr/share).
std::vector<std::string> HtmlFilesUnder(const char* dir) {
  std::vector<std::string> pages;
  std::error_code error;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           dir, std::filesystem::directory_options::skip_permission_denied, error)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".html") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    pages.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return pages;
}

}  // namespace

// links-bench [DIR]: the generated corpora, plus the *.html files under DIR.
int main(int argc, char** argv) {
  constexpr int kRuns = 5;
  std::printf(
      "links-bench: one thread, best of %d interleaved passes in thread CPU time; build type %s, "
      "Gumbo 0.10.1\n",
      kRuns, CRAWL_BUILD_TYPE);
#ifndef NDEBUG
  std::printf("WARNING: built without NDEBUG; numbers are not representative\n");
#endif
  const Corpus typical =
      MakeCorpus("typical pages (~40 KB)", links_bench::TypicalPages(100, 40000, 1));
  const Corpus small = MakeCorpus("small pages (~5 KB)", links_bench::TypicalPages(400, 5000, 2));
  const Corpus soup = MakeCorpus("tag soup (~40 KB)", links_bench::TagSoupPages(50, 40000, 3));
  // Just under LinkOptions::max_html_bytes, so ExtractLinks parses it all.
  const Corpus big = MakeCorpus("one big page (4 MB)", links_bench::TypicalPages(1, 4000000, 4));
  std::vector<const Corpus*> corpora = {&typical, &small, &soup, &big};
  Corpus real;
  if (argc > 1) {
    real = MakeCorpus(argv[1], HtmlFilesUnder(argv[1]));
    corpora.push_back(&real);
  }
  for (const Corpus* corpus : corpora) {
    RunCorpus(*corpus, kRuns);
    PrintArenaFootprint(*corpus);
  }
  return 0;
}
