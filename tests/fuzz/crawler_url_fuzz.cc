// Fuzzes crawler/url.h: Url::Parse with and without a base, ResolveLink and
// NormalizeForSeen. Input: "BASE\nHREF" (no newline: the whole input is both).
// Beyond "no crash, no UB", it checks the invariants the crawler relies on:
//   - a parsed URL's href() parses again to the same href (WHATWG idempotence);
//   - ResolveLink's result parses, and normalizing it again changes nothing
//     (the Sieve's key is a fixed point, or the same page would be two keys);
//   - ResolveLink (with its fast path for plain relative links) gives what
//     Url::Parse(href, base) and NormalizeForSeen give;
//   - normalization never changes what a server receives beyond decoding
//     unreserved escapes: every stray '%' (not starting an escape) keeps its
//     shape, bare ("%" + a non-hex or the end) or half ("%A" + a non-hex or
//     the end); "/%%41" -> "/%A" turned a bare one into a half.
// A broken invariant aborts with both strings on stderr.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "crawler/url.h"

namespace {

[[noreturn]] void Fail(const char* what, std::string_view a, std::string_view b) {
  std::fprintf(stderr, "invariant broken: %s\n  first:  '%.*s'\n  second: '%.*s'\n", what,
               static_cast<int>(a.size()), a.data(), static_cast<int>(b.size()), b.data());
  std::abort();
}

// Parses `input` and checks that the serialization is a fixed point.
void CheckReparse(const crawler::Url& url) {
  absl::StatusOr<crawler::Url> again = crawler::Url::Parse(url.href());
  if (!again.ok())
    Fail("href does not re-parse", url.href(), std::string(again.status().message()));
  if (again->href() != url.href()) Fail("href re-parses differently", url.href(), again->href());
}

// A normalized key (made from `source`) must parse and normalize to itself.
void CheckNormalizedKey(std::string_view source, std::string_view key,
                        const crawler::NormalizeOptions& options) {
  absl::StatusOr<crawler::Url> parsed = crawler::Url::Parse(key);
  if (!parsed.ok())
    Fail("normalized URL does not parse", key, std::string(parsed.status().message()));
  absl::StatusOr<std::string> again = crawler::NormalizeForSeen(*parsed, options);
  if (!again.ok())
    Fail("normalized URL does not normalize", key, std::string(again.status().message()));
  // tests/fuzz/crashes/crawler_url/ holds the inputs that once broke this.
  if (*again != key) {
    std::fprintf(stderr, "source: '%.*s'\n", static_cast<int>(source.size()), source.data());
    Fail("normalization is not idempotent", key, *again);
  }
}

bool Hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The shapes of the stray '%'s of `s`, in order: 'b' bare, 'h' half.
std::string StrayShapes(std::string_view s) {
  std::string shapes;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') continue;
    const bool first = i + 1 < s.size() && Hex(s[i + 1]);
    const bool second = first && i + 2 < s.size() && Hex(s[i + 2]);
    if (!first) shapes += 'b';
    if (first && !second) shapes += 'h';
  }
  return shapes;
}

void CheckStraysKept(const crawler::Url& url, std::string_view key) {
  std::string_view href = url.href();
  if (url.has_fragment()) href.remove_suffix(url.fragment().size() + 1);
  const std::string sent = crawler::WithoutUserinfo(href);  // userinfo is dropped on purpose
  if (StrayShapes(sent) != StrayShapes(key)) Fail("normalization changed a stray '%'", sent, key);
}

void CheckUrl(const crawler::Url& url) {
  CheckReparse(url);
  (void)url.Authority();
  (void)url.EffectivePort();
  (void)url.query();
  (void)url.fragment();
  if (!url.IsHttp()) return;
  for (bool aggressive : {false, true}) {
    crawler::NormalizeOptions options;
    options.sort_query = aggressive;
    options.strip_session_ids = aggressive;
    absl::StatusOr<std::string> key = crawler::NormalizeForSeen(url, options);
    if (key.ok()) CheckNormalizedKey(url.href(), *key, options);
    if (key.ok() && !aggressive) CheckStraysKept(url, *key);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view base_text = input.substr(0, newline);
  const std::string_view href =
      newline == std::string_view::npos ? input : input.substr(newline + 1);

  absl::StatusOr<crawler::Url> whole = crawler::Url::Parse(input);
  if (whole.ok()) CheckUrl(*whole);

  absl::StatusOr<crawler::Url> base = crawler::Url::Parse(base_text);
  if (!base.ok()) return 0;
  CheckUrl(*base);
  absl::StatusOr<crawler::Url> joined = crawler::Url::Parse(href, &*base);
  if (joined.ok()) CheckUrl(*joined);
  absl::StatusOr<std::string> link = crawler::ResolveLink(*base, href);
  if (link.ok()) CheckNormalizedKey(base->href() + " " + std::string(href), *link, {});
  // ResolveLink's fast path for plain relative links must give the parser's
  // key exactly: the same link resolved as the full parser does, normalized.
  absl::StatusOr<std::string> key =
      joined.ok() ? crawler::NormalizeForSeen(*joined) : joined.status();
  if (link.ok() != key.ok()) {
    Fail("ResolveLink and Parse + NormalizeForSeen disagree on success",
         link.ok() ? *link : std::string(link.status().message()),
         key.ok() ? *key : std::string(key.status().message()));
  }
  if (link.ok() && *link != *key)
    Fail("ResolveLink differs from Parse + NormalizeForSeen", *link, *key);
  return 0;
}
