#include "url_generator.h"

#include <array>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace sieve_bench {
namespace {

constexpr std::array<std::string_view, 24> kSyllables = {
    "ka",  "lo",  "mer", "tex", "vi",  "na", "sol", "tri", "pa",  "ron", "del", "qui",
    "zen", "bar", "mo",  "lin", "gra", "fu", "cor", "ta",  "nix", "ve",  "dra", "sun"};
constexpr std::array<std::string_view, 8> kTlds = {".com",   ".org", ".net", ".de",
                                                   ".co.uk", ".io",  ".fr",  ".com"};
constexpr std::array<std::string_view, 6> kSubdomains = {"www.",  "",      "blog.",
                                                         "shop.", "news.", "www."};
constexpr std::array<std::string_view, 40> kWords = {
    "news",    "article", "product", "category", "blog",    "post",    "item",    "garden",
    "chair",   "review",  "sports",  "politics", "tech",    "science", "travel",  "food",
    "recipes", "world",   "local",   "opinion",  "video",   "gallery", "events",  "archive",
    "shop",    "catalog", "sale",    "men",      "women",   "kids",    "home",    "tools",
    "music",   "movies",  "books",   "health",   "finance", "markets", "weather", "jobs"};
constexpr std::array<std::string_view, 8> kQueryKeys = {"page", "ref",   "sort", "utm_source",
                                                        "lang", "color", "size", "session"};

// SplitMix64: a fast, well-mixed function of i, so choices look random but
// are reproducible.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

void AppendHost(uint64_t host, std::string& out) {
  uint64_t h = Mix(host * 7919 + 1);
  out.append(kSubdomains[h % kSubdomains.size()]);
  h /= kSubdomains.size();
  const int syllables = 2 + static_cast<int>(h % 3);
  h /= 3;
  for (int s = 0; s < syllables; ++s) {
    out.append(kSyllables[h % kSyllables.size()]);
    h /= kSyllables.size();
  }
  out.append(kTlds[h % kTlds.size()]);  // hosts may share a name: fine, as on the web
}

void AppendBase36(uint64_t value, std::string& out) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdefghijklmnopqrstuvwxyz"[value % 36];
    value /= 36;
  } while (value > 0);
  while (n > 0) out.push_back(digits[--n]);
}

}  // namespace

void UrlGenerator::Generate(uint64_t i, std::string& out) const {
  uint64_t r = Mix(i);
  out.assign(r % 10 == 0 ? "http://" : "https://");
  r /= 10;
  // Zipf-like host popularity: a few hosts get many URLs, most get few.
  const uint64_t host = (r % 1000 < 300) ? r % 50 : r % kHosts;
  r = Mix(r);
  AppendHost(host, out);
  const int depth = 1 + static_cast<int>(r % 4);
  r /= 4;
  for (int d = 0; d < depth; ++d) {
    out.push_back('/');
    if (d == 1 && r % 3 == 0) {
      absl::StrAppend(&out, 2005 + r % 20);
    } else {
      out.append(kWords[r % kWords.size()]);
    }
    r /= kWords.size();
  }
  // Final slug: 2-4 words, then the unique id.
  out.push_back('/');
  r = Mix(r + i);
  const int slug_words = 2 + static_cast<int>(r % 3);
  r /= 3;
  for (int w = 0; w < slug_words; ++w) {
    out.append(kWords[r % kWords.size()]);
    out.push_back('-');
    r /= kWords.size();
  }
  AppendBase36(i, out);
  if (r % 3 == 0) out.append(".html");
  r /= 3;
  if (r % 5 < 2) {  // 40% carry a query
    r /= 5;
    const int params = 1 + static_cast<int>(r % 3);
    r /= 3;
    for (int p = 0; p < params; ++p) {
      out.push_back(p == 0 ? '?' : '&');
      out.append(kQueryKeys[r % kQueryKeys.size()]);
      absl::StrAppend(&out, "=", (r >> 8) % 1000);
      r = Mix(r);
    }
  }
}

}  // namespace sieve_bench
