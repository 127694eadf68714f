// SeededRandom: the site's only source of randomness. SplitMix64 (Steele, Lea,
// Flood 2014) is fully specified, so the site is the same on every compiler and
// standard library, unlike std::uniform_int_distribution. Not for crypto.
// Threading: a value type; one instance per thread.
#ifndef TESTSITE_SRC_SEEDED_RANDOM_H_
#define TESTSITE_SRC_SEEDED_RANDOM_H_

#include <cstdint>

namespace testsite {

class SeededRandom {
 public:
  // `stream` separates independent sequences drawn from one seed (page links
  // vs. page text), so adding draws to one never shifts the other.
  SeededRandom(uint64_t seed, uint64_t item, uint64_t stream)
      : state_(Mix(seed ^ Mix(item ^ Mix(stream)))) {}

  uint64_t Next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return Mix(state_);
  }

  // Uniform in [0, bound) for bound >= 1. Modulo bias is below bound / 2^64,
  // invisible at the site's sizes.
  uint64_t Below(uint64_t bound) { return Next() % bound; }

  // True with probability 1 / n.
  bool OneIn(uint64_t n) { return Below(n) == 0; }

 private:
  static uint64_t Mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  uint64_t state_;
};

}  // namespace testsite

#endif  // TESTSITE_SRC_SEEDED_RANDOM_H_
