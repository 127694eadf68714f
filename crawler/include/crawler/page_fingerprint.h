// PageFingerprint: what an HTML page says, as 64 bits, for telling that a host
// serves the same page under many URLs (a session-id trap: every page links
// to itself under fresh random ids). Two copies of a page
// that differ only in their link targets, in the ids they print or in a small
// part of a long text get the same or a near fingerprint; pages with
// different words get far ones.
//
//   uint64_t a = crawler::PageFingerprint(body_a);
//   uint64_t b = crawler::PageFingerprint(body_b);
//   if (crawler::FingerprintDistance(a, b) <= crawler::kNearDuplicateDistance) same_page();
//
// What is read: the page as tokens. A tag gives its name and the names of its
// attributes; attribute values are left out, all of them (href and src are
// where a trap's ids are, and hidden inputs, data-* and onclick hold them
// too). Text gives its words, runs of ASCII letters and digits and of bytes
// >= 0x80, ASCII lower-cased; a word of 8 or more bytes holding a digit (a hex
// or base-36 id, a Unix time) is read as one placeholder word, whatever its
// value. Comments, doctypes and processing instructions are left out. The
// walk is lenient, not the HTML tokenizer: a "<" in a script may read as a
// tag, the same way on every copy. Only the first kMaxFingerprintBytes count.
//
// The fingerprint is a simhash (Charikar 2002; Manku, Jain and Das Sarma,
// WWW 2007, used at 64 bits with distance 3 for 8 billion pages) over
// shingles of 4 consecutive tokens: of the page's shingle hashes, the 512
// smallest (a bottom-k sample, as in MinHash) are kept, repeats dropped, and
// bit i is set when more than half of them have bit i set. Repeats are
// dropped because a navigation list repeats a few shingles dozens of times
// and, counted each time, they outvoted a page's own text. A fraction f of
// shingles changed flips each bit with probability about acos(1 - f) / pi:
// ~0.045 at f = 1% (3 bits expected of 64), ~0.10 at f = 5% (6.5 bits). So
// "near" (<= 3 bits) means about 1% of the page at most: one changed word in
// a 400-word page is 4 shingles of 400. A short page (tens of words) has no
// such slack: a changing word in it (a clock time, a counter) moves the
// fingerprint far; ids are handled by the placeholder above, not by the
// distance. Measured on pages of one template (a title, 20 navigation links,
// a footer: ~150 tokens) that differ in one paragraph of random words, 200
// pages, pairs within 3 bits: 0 of 19 900 with 60 words of their own (closest
// pair 7 bits), 4 with 20 words, 37 with 10, 174 with 5: pages whose own text
// is a few words in a larger template can come out as one page.
//
// Cost: one pass over the bytes, a hash per token and per shingle, a
// linear-time selection of the sample and 8 adds per sampled shingle
// (page_fingerprint.cc): measured on this machine ~23 us of CPU for a 4.7 KB
// page of the synthetic site (13 us of it the token walk), ~1.5 ms for 256
// KiB.
//
// Threading: pure functions, safe from any thread.
#ifndef CRAWLER_PAGE_FINGERPRINT_H_
#define CRAWLER_PAGE_FINGERPRINT_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace crawler {

// Bytes of a page the fingerprint reads; the rest is ignored. Pages that
// differ only past their first 256 KiB come out the same (a trap's pages are
// small; real pages differ well before); a trap page that puts 256 KiB of
// fresh text first escapes the defence, and meets the host budget.
inline constexpr size_t kMaxFingerprintBytes = size_t{256} << 10;

// Fingerprints at most this many bits apart are the same page for the
// duplicate-content defence (Manku et al.'s choice for 64-bit simhashes).
inline constexpr int kNearDuplicateDistance = 3;

// The simhash of `html` described above. A page with no tokens is 0.
uint64_t PageFingerprint(std::string_view html);

// Bits in which `a` and `b` differ (0 to 64).
int FingerprintDistance(uint64_t a, uint64_t b);

}  // namespace crawler

#endif  // CRAWLER_PAGE_FINGERPRINT_H_
