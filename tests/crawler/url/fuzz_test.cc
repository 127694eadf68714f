// Robustness: random byte strings (fixed seeds) must never crash the
// parser or trip the sanitizers, and every URL it accepts must be stable:
// parsing its serialization again gives the same serialization.
#include <random>
#include <string>
#include <vector>

#include "crawler/url.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

// Pieces that steer random inputs into the parser's less common states.
const std::vector<std::string> kTokens = {
    "http:", "https:", "file:",     "foo:",  "mailto:",  "/",  "//",       "\\",
    "?",     "#",      "@",         ":",     ".",        "..", "%2e",      "%",
    "%41",   "[",      "]",         "::",    "1",        "0x", "255",      "a",
    "xn--",  "C:",     "C|",        " ",     "\t",       "\n", "\xC3\xA9", "\xE3\x80\x82",
    "\xFF",  "\x00",   "localhost", "[::1]", "127.0.0.1"};

std::string RandomBytes(std::mt19937_64& rng) {
  std::string s(rng() % 48, '\0');
  for (char& c : s) c = static_cast<char>(rng() & 0xFF);
  return s;
}

std::string RandomTokens(std::mt19937_64& rng) {
  std::string s;
  const int count = static_cast<int>(rng() % 12);
  for (int i = 0; i < count; ++i) s += kTokens[rng() % kTokens.size()];
  return s;
}

// Checks one input against every kind of base; returns how many parsed.
int Exercise(const std::string& input, const std::vector<Url>& bases) {
  int parsed = 0;
  std::vector<const Url*> base_ptrs = {nullptr};
  for (const Url& base : bases) base_ptrs.push_back(&base);
  for (const Url* base : base_ptrs) {
    const absl::StatusOr<Url> url = Url::Parse(input, base);
    if (base != nullptr) (void)ResolveLink(*base, input);
    if (!url.ok()) {
      EXPECT_EQ(url.status().code(), absl::StatusCode::kInvalidArgument);
      continue;
    }
    ++parsed;
    const std::string& href = url->href();
    EXPECT_EQ(href.substr(0, url->scheme().size() + 1), std::string(url->scheme()) + ":");
    const absl::StatusOr<Url> again = Url::Parse(href);
    EXPECT_TRUE(again.ok()) << "input " << testing::PrintToString(input) << " href " << href;
    if (again.ok()) {
      EXPECT_EQ(again->href(), href) << "input " << testing::PrintToString(input);
      EXPECT_EQ(again->host(), url->host());
      EXPECT_EQ(again->path(), url->path());
    }
    if (url->IsHttp()) {
      const absl::StatusOr<std::string> key = NormalizeForSeen(*url);
      if (key.ok()) {
        const absl::StatusOr<Url> keyed = Url::Parse(*key);
        EXPECT_TRUE(keyed.ok()) << *key;
      }
    }
  }
  return parsed;
}

std::vector<Url> Bases() {
  std::vector<Url> bases;
  for (const char* base : {"http://example.com/a/b?c#d", "file:///C:/dir/f", "foo://h/p/q",
                           "mailto:x", "https://[::1]:8443/"}) {
    bases.push_back(*Url::Parse(base));
  }
  return bases;
}

TEST(UrlFuzzTest, RandomBytesNeverCrash) {
  std::mt19937_64 rng(20261122);
  const std::vector<Url> bases = Bases();
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) parsed += Exercise(RandomBytes(rng), bases);
  // Relative parsing against an http base accepts most byte strings.
  EXPECT_GT(parsed, 20000);
}

// Every URL that parses becomes a base for the next inputs, so that odd
// bases (file drive letters, "/." paths, opaque paths with queries, empty
// hosts) are exercised too.
TEST(UrlFuzzTest, RandomBasesNeverCrash) {
  std::mt19937_64 rng(77);
  std::vector<Url> bases = Bases();
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string input = RandomTokens(rng);
    parsed += Exercise(input, {bases.back()});
    absl::StatusOr<Url> url = Url::Parse(input, &bases[rng() % bases.size()]);
    if (url.ok()) bases.back() = *std::move(url);
  }
  EXPECT_GT(parsed, 10000);
}

TEST(UrlFuzzTest, RandomUrlLikeInputsNeverCrashAndAreStable) {
  std::mt19937_64 rng(4);
  const std::vector<Url> bases = Bases();
  int parsed = 0;
  for (int i = 0; i < 30000; ++i) parsed += Exercise(RandomTokens(rng), bases);
  EXPECT_GT(parsed, 30000);
}

}  // namespace
}  // namespace crawler
