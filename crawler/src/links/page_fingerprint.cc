#include "crawler/page_fingerprint.h"

#include <algorithm>
#include <array>
#include <bit>
#include <utility>
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

// The simhash's votes: how many shingle hashes had each bit set, of how many.
class SimhashVotes {
 public:
  void Add(uint64_t hash) {
    for (size_t bit = 0; bit < 64; ++bit) ones_[bit] += static_cast<uint32_t>((hash >> bit) & 1);
    ++shingles_;
  }
  uint64_t Fingerprint() const {
    uint64_t fingerprint = 0;
    for (size_t bit = 0; bit < 64; ++bit) {
      if (2 * uint64_t{ones_[bit]} > shingles_) fingerprint |= uint64_t{1} << bit;
    }
    return fingerprint;
  }

 private:
  std::array<uint32_t, 64> ones_{};
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

// The kSampleShingles smallest shingle hashes of the page (a bottom-k
// sample, as in MinHash: the same page gives the same sample, and a change to
// a fraction f of its shingles changes about f of the sample). Bounds the
// votes and the memory whatever the page's size; a max-heap, so a hash
// larger than the sample's largest (nearly all, once the sample is full)
// costs one compare. Sorting every shingle took 60% of the time instead.
class BottomShingles {
 public:
  void Offer(uint64_t hash) {
    if (heap_.size() < kSampleShingles) {
      heap_.push_back(hash);
      std::push_heap(heap_.begin(), heap_.end());
    } else if (hash < heap_.front()) {
      std::pop_heap(heap_.begin(), heap_.end());
      heap_.back() = hash;
      std::push_heap(heap_.begin(), heap_.end());
    }
  }
  // The sample without repeats: a navigation list repeats the same few
  // shingles dozens of times, and counted each time they outvoted the
  // page's own text (200 pages of one template, differing in a 60-word
  // paragraph, came out identical).
  std::vector<uint64_t> Distinct() {
    std::sort(heap_.begin(), heap_.end());
    heap_.erase(std::unique(heap_.begin(), heap_.end()), heap_.end());
    return std::move(heap_);
  }

 private:
  std::vector<uint64_t> heap_;
};

}  // namespace

uint64_t PageFingerprint(std::string_view html) {
  if (html.size() > kMaxFingerprintBytes) html = html.substr(0, kMaxFingerprintBytes);
  BottomShingles sample;
  ShingleWindow window;
  links_internal::ForEachContentToken(html, [&](uint64_t token) {
    window.Push(token);
    if (window.Full()) sample.Offer(window.Hash());
  });
  // A page of fewer tokens than a shingle is one shingle of all of them.
  if (!window.Full() && window.Size() > 0) sample.Offer(window.Hash());
  SimhashVotes votes;
  for (const uint64_t shingle : sample.Distinct()) votes.Add(shingle);
  return votes.Fingerprint();
}

int FingerprintDistance(uint64_t a, uint64_t b) { return std::popcount(a ^ b); }

}  // namespace crawler
