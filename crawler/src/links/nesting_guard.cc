// NestingSafePrefix: memchr from '<' to '<', then a short look at the tag name.
#include "links/nesting_guard.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string_view>

#include "links/ascii.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace crawler::links_internal {
namespace {

// Tags whose nesting makes Gumbo walk its stacks: the block containers that
// close a <p> in button scope, and the formatting elements. (Void elements,
// and elements that close their predecessor such as <p>, <li>, <td>, do not
// nest when left unclosed, so they are not counted; nor are <a>, <nobr> and
// <form>, which Gumbo closes or drops when a second one starts.)
constexpr std::string_view kNestingTags[] = {
    "address",  "article",    "aside",  "b",       "big",    "blockquote", "center",
    "code",     "details",    "dialog", "dir",     "div",    "dl",         "em",
    "fieldset", "figcaption", "figure", "font",    "footer", "header",     "hgroup",
    "i",        "main",       "menu",   "nav",     "ol",     "s",          "section",
    "small",    "strike",     "strong", "summary", "tt",     "u",          "ul",
};

bool IsTagNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// kNestingTags' index range for each first letter (the list is sorted), so a
// tag name is compared with the one to six names that share its first letter
// instead of all 35: this check runs for every tag of every page, and the
// whole-list walk was ~9% of a crawl's CPU on the Python docs.
struct LetterRanges {
  uint8_t begin[26] = {};
  uint8_t end[26] = {};
  constexpr LetterRanges() {
    for (size_t i = 0; i < std::size(kNestingTags); ++i) {
      const int letter = kNestingTags[i][0] - 'a';
      if (end[letter] == 0) begin[letter] = static_cast<uint8_t>(i);
      end[letter] = static_cast<uint8_t>(i + 1);
    }
  }
};
constexpr LetterRanges kRanges;

bool IsNestingTag(std::string_view name) {
  char lowered[12];
  if (name.empty() || name.size() > sizeof(lowered)) return false;
  for (size_t i = 0; i < name.size(); ++i) lowered[i] = AsciiLower(name[i]);
  if (lowered[0] < 'a' || lowered[0] > 'z') return false;
  const std::string_view key(lowered, name.size());
  const int letter = lowered[0] - 'a';
  for (size_t i = kRanges.begin[letter]; i < kRanges.end[letter]; ++i) {
    if (kNestingTags[i] == key) return true;
  }
  return false;
}

// Whether `html` holds more than `limit` start tags ('<' then an ASCII
// letter), 16 bytes at a time: far cheaper than the tag-by-tag walk below,
// which it lets most pages skip (each level of depth is such a '<').
bool MoreStartTagsThan(std::string_view html, size_t limit) {
  size_t count = 0;
  size_t i = 0;
#ifdef __SSE2__
  const __m128i lt = _mm_set1_epi8('<');
  const __m128i lower_bit = _mm_set1_epi8(0x20);
  const __m128i before_a = _mm_set1_epi8('a' - 1);
  const __m128i after_z = _mm_set1_epi8('z' + 1);
  // Each byte lane of `lanes` counts the start tags at its position; a block
  // of at most 255 steps cannot overflow a lane, and one sum of absolute
  // differences per block adds the lanes up. (A popcount per step was a
  // libgcc call: x86-64's baseline has no POPCNT instruction.)
  constexpr size_t kStepsPerBlock = 255;
  while (i + 17 <= html.size()) {
    __m128i lanes = _mm_setzero_si128();
    const size_t block_end = std::min(html.size() - 16, i + (kStepsPerBlock - 1) * 16);
    for (; i + 1 <= block_end; i += 16) {
      const char* at = html.data() + i;
      const __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
      const __m128i next =
          _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at + 1)), lower_bit);
      // Bytes >= 0x80 are negative here, so never letters.
      const __m128i letter =
          _mm_and_si128(_mm_cmpgt_epi8(next, before_a), _mm_cmplt_epi8(next, after_z));
      // A start tag's lane is 0xFF (-1): subtracting it adds one.
      lanes = _mm_sub_epi8(lanes, _mm_and_si128(_mm_cmpeq_epi8(here, lt), letter));
    }
    const __m128i sums = _mm_sad_epu8(lanes, _mm_setzero_si128());  // two 64-bit halves
    count += static_cast<size_t>(_mm_cvtsi128_si32(sums)) +
             static_cast<size_t>(_mm_extract_epi16(sums, 4));
    if (count > limit) return true;
  }
#endif
  for (; i + 1 < html.size(); ++i) count += html[i] == '<' && IsAsciiLetter(html[i + 1]);
  return count > limit;
}

}  // namespace

size_t NestingSafePrefix(std::string_view html, size_t max_depth) {
  // A start tag takes two bytes at least ('<' and a letter), so a page this
  // short holds at most max_depth of them: the count below would say so
  // after a pass over the page (~2% of a crawl's instructions on 5 KB pages).
  if (html.size() / 2 <= max_depth) return html.size();
  // Each level of depth is a '<' before a letter (a nesting tag's name): a
  // page with at most max_depth of them cannot pass it, and the walk would
  // return html.size() anyway.
  if (!MoreStartTagsThan(html, max_depth)) return html.size();
  const char* const begin = html.data();
  const char* const end = begin + html.size();
  size_t depth = 0;
  const char* p = begin;
  while (true) {
    p = static_cast<const char*>(std::memchr(p, '<', static_cast<size_t>(end - p)));
    if (p == nullptr || end - p < 2) return html.size();
    const char* tag = p;
    ++p;
    if (*p == '!' && end - p >= 3 && p[1] == '-' && p[2] == '-') {
      const std::string_view rest(p + 3, static_cast<size_t>(end - p - 3));
      const size_t close = rest.find("-->");
      if (close == std::string_view::npos) return html.size();
      p += 3 + close + 3;
      continue;
    }
    const bool closing = *p == '/';
    if (closing) ++p;
    const char* name_end = p;
    while (name_end < end && IsTagNameChar(*name_end)) ++name_end;
    const std::string_view name(p, static_cast<size_t>(name_end - p));
    if (name.empty() || !IsNestingTag(name)) continue;
    if (closing) {
      depth -= depth > 0 ? 1 : 0;
    } else if (++depth > max_depth) {
      return static_cast<size_t>(tag - begin);
    }
  }
}

}  // namespace crawler::links_internal
