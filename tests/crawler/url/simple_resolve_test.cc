// ResolveSimpleLink, ResolveLink's fast path: for every href it accepts, the
// same bytes as the WHATWG parser's serialization (fragment dropped), checked
// against Url::Parse over every short href of an alphabet that reaches each
// state the fast path must leave to the parser.
#include "../../../crawler/src/url/simple_resolve.h"

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "crawler/url.h"
#include "gtest/gtest.h"

namespace crawler::url_internal {
namespace {

// The parser's answer: href() without the fragment, or nullopt if it fails.
std::optional<std::string> ParsedWithoutFragment(const Url& base, std::string_view href) {
  absl::StatusOr<Url> url = Url::Parse(href, &base);
  if (!url.ok()) return std::nullopt;
  std::string out = url->href();
  if (url->has_fragment()) out.resize(out.size() - url->fragment().size() - 1);
  return out;
}

// Every string of `alphabet` of length 1..max_length.
std::vector<std::string> AllStrings(std::string_view alphabet, size_t max_length) {
  std::vector<std::string> out;
  std::vector<std::string> previous = {""};
  for (size_t length = 1; length <= max_length; ++length) {
    std::vector<std::string> next;
    for (const std::string& prefix : previous) {
      for (const char c : alphabet) next.push_back(prefix + c);
    }
    out.insert(out.end(), next.begin(), next.end());
    previous = std::move(next);
  }
  return out;
}

const char* const kBases[] = {
    "http://a.com/b/c/d.html",
    "http://a.com",
    "https://x.org:8443/dir/",
    "http://a.com/b/c/d;p?q#f",
    "http://a.com/%7e/x.html",
    "http://[::1]:81/a//b/",
    "http://u:p@a.com/b/c",
    "ftp://a.com/b/c",
    "file:///b/c",
};

// Returns how many hrefs the fast path took; fails on any difference.
size_t CompareAll(const std::vector<std::string>& hrefs) {
  size_t taken = 0;
  for (const char* base_text : kBases) {
    const Url base = *Url::Parse(base_text);
    // Each href also after the page's origin ("http://a.com" + href).
    const std::string origin(base.href(), 0, base.path().data() - base.href().data());
    for (const std::string& href : hrefs) {
      for (const std::string& link : {href, origin + href}) {
        const std::optional<std::string> fast = ResolveSimpleLink(base, link);
        if (!fast) continue;
        ++taken;
        const std::optional<std::string> parsed = ParsedWithoutFragment(base, link);
        EXPECT_EQ(fast, parsed) << "base '" << base_text << "', href '" << link << "'";
        if (fast != parsed) return taken;
      }
    }
  }
  return taken;
}

TEST(SimpleResolve, AgreesWithTheParserOnEveryShortHref) {
  // Dots and slashes make the dot segments; the rest must send it to the parser.
  const size_t taken = CompareAll(AllStrings("a./#?%:\\@ ", 5));
  EXPECT_GT(taken, 10000u);  // not a test that passes by declining everything
}

TEST(SimpleResolve, AgreesWithTheParserOnLongRandomHrefs) {
  std::mt19937 random(2026);
  const std::string_view alphabet = "ab.-_~/Z9#?%:;\\@\t ";
  std::vector<std::string> hrefs;
  for (int i = 0; i < 20000; ++i) {
    std::string href;
    const size_t length = 1 + random() % 24;
    for (size_t k = 0; k < length; ++k) {
      // Mostly path bytes, so most hrefs are simple and reach the fast path.
      const size_t pick = random() % 100;
      href.push_back(pick < 90 ? alphabet[pick % 7] : alphabet[random() % alphabet.size()]);
    }
    hrefs.push_back(std::move(href));
  }
  EXPECT_GT(CompareAll(hrefs), 20000u);
}

TEST(SimpleResolve, LeavesEverythingElseToTheParser) {
  const Url page = *Url::Parse("http://a.com/b/c.html");
  for (const char* href :
       {"//g/h", "g?x", "%41", "a:b", "g\\h", " g", "g h", "a@b", "\xc3\xa9", "http://a.com:80/g",
        "HTTP://a.com/g", "http://a.comx/g", "http://a.com?x", "https://a.com/g"}) {
    EXPECT_EQ(ResolveSimpleLink(page, href), std::nullopt) << href;
  }
  EXPECT_EQ(ResolveSimpleLink(*Url::Parse("http://u@a.com/"), "g"), std::nullopt);
  EXPECT_EQ(ResolveSimpleLink(*Url::Parse("mailto:x@a.com"), "g"), std::nullopt);
  EXPECT_EQ(ResolveSimpleLink(*Url::Parse("ftp://a.com/b/"), "g"), std::nullopt);
}

TEST(SimpleResolve, ResolvesDotSegmentsAndKeepsEmptyOnes) {
  const Url page = *Url::Parse("http://a.com/b/c/d.html");
  EXPECT_EQ(ResolveSimpleLink(page, "../../../g"), "http://a.com/g");
  EXPECT_EQ(ResolveSimpleLink(page, ".."), "http://a.com/b/");
  EXPECT_EQ(ResolveSimpleLink(page, "./"), "http://a.com/b/c/");
  EXPECT_EQ(ResolveSimpleLink(page, "g//h/./"), "http://a.com/b/c/g//h/");
  EXPECT_EQ(ResolveSimpleLink(page, "/s0/g00/../g00/p1.html#x"), "http://a.com/s0/g00/p1.html");
  EXPECT_EQ(ResolveSimpleLink(page, "http://a.com/x/../y"), "http://a.com/y");
  EXPECT_EQ(ResolveSimpleLink(page, "http://a.com"), "http://a.com/");
  EXPECT_EQ(ResolveSimpleLink(page, "#top"), "http://a.com/b/c/d.html");
  EXPECT_EQ(ResolveSimpleLink(*Url::Parse("http://a.com/b?q=1#f"), ""), "http://a.com/b?q=1");
}

// ResolveLink through either path is the parser's result normalized.
TEST(SimpleResolve, ResolveLinkAgreesWithNormalizeForSeen) {
  const Url page = *Url::Parse("http://a.com/b/%7e/c.html");
  for (const std::string& href : AllStrings("a./#%", 4)) {
    const absl::StatusOr<std::string> link = ResolveLink(page, href);
    absl::StatusOr<Url> parsed = Url::Parse(href, &page);  // "//" fails: no host
    const absl::StatusOr<std::string> key =
        parsed.ok() ? NormalizeForSeen(*parsed) : absl::StatusOr<std::string>(parsed.status());
    ASSERT_EQ(link.ok(), key.ok()) << href;
    if (link.ok()) {
      EXPECT_EQ(*link, *key) << href;
    }
  }
}

}  // namespace
}  // namespace crawler::url_internal
