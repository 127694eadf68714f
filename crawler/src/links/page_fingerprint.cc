#include "crawler/page_fingerprint.h"

#include <algorithm>
#include <array>
#include <bit>
#include <vector>

#include "links/content_tokens.h"

namespace crawler {
namespace {

constexpr size_t kShingleTokens = 4;
constexpr size_t kSampleShingles = 512;

// splitmix64's finalizer: every input bit moves about half the output bits,
// which the simhash's per-bit vote needs (FNV's low bits alone are weak).
uint64_t Mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// kSpread[b]: the 8 bits of b, one per byte (bit i in byte i), so that one
// 64-bit add counts 8 bits of a hash at once.
constexpr std::array<uint64_t, 256> kSpread = [] {
  std::array<uint64_t, 256> table{};
  for (size_t b = 0; b < 256; ++b) {
    for (size_t i = 0; i < 8; ++i) table[b] |= uint64_t{(b >> i) & 1} << (8 * i);
  }
  return table;
}();

// The simhash's votes: how many shingle hashes had each bit set, of how many.
// Counted 8 bits per add in byte-wide counters (8 adds a hash, not 64: the
// per-bit loop was most of the fingerprint's time on 5 KB pages), moved to
// the wide counts before a byte can overflow.
class SimhashVotes {
 public:
  void Add(uint64_t hash) {
    for (size_t byte = 0; byte < 8; ++byte) narrow_[byte] += kSpread[(hash >> (8 * byte)) & 0xff];
    if (++pending_ == 255) Flush();
    ++shingles_;
  }
  uint64_t Fingerprint() {
    Flush();
    uint64_t fingerprint = 0;
    for (size_t bit = 0; bit < 64; ++bit) {
      if (2 * uint64_t{ones_[bit]} > shingles_) fingerprint |= uint64_t{1} << bit;
    }
    return fingerprint;
  }

 private:
  void Flush() {
    for (size_t byte = 0; byte < 8; ++byte) {
      for (size_t i = 0; i < 8; ++i) ones_[8 * byte + i] += (narrow_[byte] >> (8 * i)) & 0xff;
      narrow_[byte] = 0;
    }
    pending_ = 0;
  }

  std::array<uint64_t, 8> narrow_{};  // byte i of narrow_[b]: votes for bit 8b + i
  std::array<uint32_t, 64> ones_{};
  uint32_t pending_ = 0;
  uint64_t shingles_ = 0;
};

// The hash of the last kShingleTokens tokens (or of all, while fewer), in
// order: a shingle is a sequence, "a b c d" and "d c b a" differ.
class ShingleWindow {
 public:
  void Push(uint64_t token) {
    tokens_[next_ % kShingleTokens] = token;
    ++next_;
  }
  bool Full() const { return next_ >= kShingleTokens; }
  size_t Size() const { return next_ < kShingleTokens ? next_ : kShingleTokens; }
  uint64_t Hash() const {
    // Tokens are FNV hashes, mixed into one value by position (odd
    // multipliers, so no token is lost), then mixed once: one finalizer per
    // shingle rather than one per token of it.
    static constexpr std::array<uint64_t, kShingleTokens> kPositions = {
        0x9e3779b97f4a7c15ULL, 0xc2b2ae3d27d4eb4fULL, 0x165667b19e3779f9ULL, 0x27d4eb2f165667c5ULL};
    uint64_t sum = 0;
    const size_t size = Size();
    for (size_t k = 0; k < size; ++k) {
      sum += kPositions[k] * tokens_[(next_ - size + k) % kShingleTokens];
    }
    return Mix(sum);
  }

 private:
  std::array<uint64_t, kShingleTokens> tokens_{};
  size_t next_ = 0;
};

// Votes once for each distinct hash of `sample` (at most kSampleShingles):
// a navigation list repeats the same few shingles dozens of times, and
// counted each time they outvoted the page's own text (200 pages of one
// template, differing in a 60-word paragraph, came out identical). An open
// addressing set of twice the sample's size, 8 KiB: a sort of the sample was
// a fifth of the fingerprint's time.
void VoteDistinct(const std::vector<uint64_t>& sample, SimhashVotes* votes) {
  constexpr size_t kSlots = 2 * kSampleShingles;
  std::array<uint64_t, kSlots> seen{};  // 0: empty; a hash of 0 is stored as 1
  for (const uint64_t hash : sample) {
    const uint64_t key = hash == 0 ? 1 : hash;
    size_t slot = key & (kSlots - 1);
    while (seen[slot] != 0 && seen[slot] != key) slot = (slot + 1) & (kSlots - 1);
    if (seen[slot] == key) continue;
    seen[slot] = key;
    votes->Add(hash);
  }
}

}  // namespace

uint64_t PageFingerprint(std::string_view html) {
  if (html.size() > kMaxFingerprintBytes) html = html.substr(0, kMaxFingerprintBytes);
  std::vector<uint64_t> shingles;
  shingles.reserve(html.size() / 6 + kShingleTokens);  // ~7 bytes a token on real pages
  ShingleWindow window;
  links_internal::ForEachContentToken(html, [&](uint64_t token) {
    window.Push(token);
    if (window.Full()) shingles.push_back(window.Hash());
  });
  // A page of fewer tokens than a shingle is one shingle of all of them.
  if (!window.Full() && window.Size() > 0) shingles.push_back(window.Hash());
  // The kSampleShingles smallest hashes (a bottom-k sample, as in MinHash:
  // the same page gives the same sample, and a change to a fraction f of its
  // shingles changes about f of the sample), found in linear time. Bounds
  // the votes whatever the page's size.
  if (shingles.size() > kSampleShingles) {
    std::nth_element(shingles.begin(), shingles.begin() + kSampleShingles, shingles.end());
    shingles.resize(kSampleShingles);
  }
  SimhashVotes votes;
  VoteDistinct(shingles, &votes);
  return votes.Fingerprint();
}

int FingerprintDistance(uint64_t a, uint64_t b) { return std::popcount(a ^ b); }

}  // namespace crawler
