// PageFingerprint: copies of one page under a session-id
// trap's URLs come out the same; pages with their own words come out far
// apart. Our own choices, not a standard: crawler/page_fingerprint.h.
#include "crawler/page_fingerprint.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "../../../crawler/src/links/content_tokens.h"
#include "absl/strings/str_cat.h"

namespace crawler {
namespace {

// A page of a session-id trap: fixed text, links carrying `id`, and the id
// printed in the text when `id_in_text`.
std::string TrapPage(const std::string& id, bool id_in_text) {
  return absl::StrCat(
      "<!DOCTYPE html><html><head><title>Welcome to the shop</title>",
      "<link rel=stylesheet href=\"/style.css;jsessionid=", id, "\"></head><body>",
      "<h1>Our products</h1><p>We sell garden tools, seeds and pots. Orders ship within two ",
      "days.</p>", id_in_text ? absl::StrCat("<p>Your session: ", id, "</p>") : "", "<a href=\"/s/",
      id, "/index.html\">home</a> <a href=\"/cart?token=", id, "\">cart</a> ",
      "<a href='/page.html;jsessionid=", id, "'>help</a> <a href=/x?PHPSESSID=", id,
      "x>more</a><form action=\"/buy?sid=", id, "\"><input type=hidden name=sid value=", id,
      "></form><!-- served for ", id, " --></body></html>");
}

// Words drawn from a small vocabulary, as the test site's pages are.
std::string RandomWords(std::mt19937_64& random, int count) {
  static const std::vector<std::string> kWords = {
      "crawler", "queue", "filter", "bloom", "sieve", "frontier", "host",  "page",
      "link",    "fetch", "parse",  "robot", "delay", "socket",   "reply", "header",
      "body",    "index", "search", "graph", "node",  "edge",     "depth", "visit",
      "the",     "of",    "and",    "a",     "to",    "in",       "is",    "with"};
  std::string text;
  for (int i = 0; i < count; ++i) {
    absl::StrAppend(&text, kWords[random() % kWords.size()], i + 1 < count ? " " : "");
  }
  return text;
}

// A page of a templated site: the same header, navigation and footer on every
// page, and one paragraph of its own.
std::string TemplatedPage(const std::string& own_paragraph) {
  std::string navigation;
  for (int i = 0; i < 20; ++i) {
    absl::StrAppend(&navigation, "<li><a href=\"/section/", i, ".html\">Section ", i, "</a></li>");
  }
  return absl::StrCat(
      "<html><head><title>The handbook</title></head><body><header><h1>The handbook</h1>",
      "<p>A guide to everything about gardens, for beginners and for experts.</p></header>",
      "<nav><ul>", navigation, "</ul></nav><main><p>", own_paragraph, "</p></main>",
      "<footer><p>Written by the garden club. Corrections welcome by post.</p></footer>",
      "</body></html>");
}

TEST(PageFingerprint, TrapCopiesWithFreshIdsAreTheSame) {
  const uint64_t first = PageFingerprint(TrapPage("9f3a1c2b4d5e6f70", false));
  EXPECT_NE(first, 0u);
  EXPECT_EQ(PageFingerprint(TrapPage("0123456789abcdef", false)), first);
  EXPECT_EQ(PageFingerprint(TrapPage("a", false)), first);  // values are never read
}

TEST(PageFingerprint, IdsPrintedInTheTextAreOnePlaceholder) {
  const uint64_t first = PageFingerprint(TrapPage("9f3a1c2b4d5e6f70", true));
  EXPECT_EQ(PageFingerprint(TrapPage("77e0d1c3b2a49586", true)), first);
  EXPECT_EQ(PageFingerprint(TrapPage("1796000000", true)), first);  // a Unix time
  // A short word is a word: "abc" is not an id.
  EXPECT_NE(PageFingerprint(TrapPage("abc", true)), first);
}

TEST(PageFingerprint, WhatIsReadOfTagsAndText) {
  // Attribute names count, their values do not; case is folded.
  EXPECT_EQ(PageFingerprint("<A HREF=x>Go</A>"), PageFingerprint("<a href='y z'>go</a>"));
  EXPECT_NE(PageFingerprint("<a href=x>go</a>"), PageFingerprint("<a title=x>go</a>"));
  // Comments and doctypes are left out; punctuation is not a word.
  EXPECT_EQ(PageFingerprint("<!doctype html><p>one, two!</p><!-- x 1 -->"),
            PageFingerprint("<p>one two</p>"));
  // The tag and the word of the same letters differ; word order counts.
  EXPECT_NE(PageFingerprint("<p>"), PageFingerprint("p"));
  EXPECT_NE(PageFingerprint("one two three four five"), PageFingerprint("five four three two one"));
  EXPECT_EQ(PageFingerprint(""), 0u);
  EXPECT_EQ(PageFingerprint("<!-- nothing -->"), 0u);
}

TEST(PageFingerprint, OnlyTheFirstBytesAreRead) {
  const std::string head = absl::StrCat("<p>", std::string(kMaxFingerprintBytes, 'x'), " ");
  EXPECT_EQ(PageFingerprint(head + "tail one</p>"), PageFingerprint(head + "another tail</p>"));
}

TEST(PageFingerprint, LooksLikeId) {
  using links_internal::LooksLikeId;
  EXPECT_TRUE(LooksLikeId("9f3a1c2b4d5e6f70"));
  EXPECT_TRUE(LooksLikeId("1796000000"));
  EXPECT_TRUE(LooksLikeId("sess2026x"));
  EXPECT_FALSE(LooksLikeId("abcdefghij"));  // no digit: a word
  EXPECT_FALSE(LooksLikeId("2026"));        // short: a year, a page number
  EXPECT_FALSE(LooksLikeId("page123"));     // 7 bytes: a word
  EXPECT_TRUE(LooksLikeId("page1234"));     // 8 bytes with a digit: read as an id
}

// One changed word of a 1000-word page changes 4 shingles of ~1000 (f =
// 0.4%): acos(1 - f) / pi ~ 2.8% of the bits flip, 1.8 of 64 expected. Over
// 50 fixed-seed pages none may come out past 3 more than a few times, and
// none past 8.
TEST(PageFingerprint, OneChangedWordInALongPageIsNear) {
  std::mt19937_64 random(33);
  int near = 0;
  for (int trial = 0; trial < 50; ++trial) {
    const std::string words = RandomWords(random, 1000);
    const uint64_t page = PageFingerprint("<p>" + words + "</p>");
    const uint64_t changed = PageFingerprint("<p>" + words + " extra</p>");
    const int distance = FingerprintDistance(page, changed);
    EXPECT_LE(distance, 8) << trial;
    if (distance <= kNearDuplicateDistance) ++near;
  }
  EXPECT_GE(near, 40);
}

// Pages of one template that differ in a paragraph of 60 words (a tenth of
// their tokens) are far apart: 200 of them, no two within 3 bits.
TEST(PageFingerprint, TemplatedPagesWithTheirOwnParagraphAreFar) {
  std::mt19937_64 random(2);
  std::vector<uint64_t> fingerprints;
  for (int page = 0; page < 200; ++page) {
    fingerprints.push_back(PageFingerprint(TemplatedPage(RandomWords(random, 60))));
  }
  int closest = 64;
  for (size_t i = 0; i < fingerprints.size(); ++i) {
    for (size_t j = i + 1; j < fingerprints.size(); ++j) {
      closest = std::min(closest, FingerprintDistance(fingerprints[i], fingerprints[j]));
    }
  }
  EXPECT_GT(closest, kNearDuplicateDistance);
}

TEST(PageFingerprint, DistanceCountsDifferentBits) {
  EXPECT_EQ(FingerprintDistance(0, 0), 0);
  EXPECT_EQ(FingerprintDistance(0b1011, 0b0001), 2);
  EXPECT_EQ(FingerprintDistance(0, ~uint64_t{0}), 64);
}

}  // namespace
}  // namespace crawler
