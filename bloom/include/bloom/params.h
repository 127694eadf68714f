// bloom/params.h: sizing a Bloom filter, and its false-positive rate, in both
// layouts. The math is here, next to the functions that apply it.
//
//   absl::StatusOr<bloom::FilterShape> s =
//       bloom::ShapeFor(bloom::Layout::kBlocked, 1'000'000'000, 0.01);
//   // s->bits / 8 is about 1.25e9 bytes: a 1e9-URL filter at 1% is ~1.2 GB.
//
// Threading: pure functions, safe from any thread.
//
// ## Classic layout (the textbook filter)
// k bit positions anywhere in an array of m bits. For n keys and target rate p:
//   m = -n ln p / (ln 2)^2        (9.59 bits/key at p = 1%, 19.2 at 0.01%)
//   k = round((m / n) ln 2)       (7 at 1%, 13 at 0.01%)
//   rate(m, n, k) = (1 - e^(-kn/m))^k
// Worked numbers: n = 1e9 at p = 1% gives m = 9.59e9 bits = 1.20 GB; at 0.01%,
// 1.92e10 bits = 2.40 GB. (The often repeated "1e9 URLs at 0.01% in 18 MB" is
// 0.14 bits per key: wrong by a factor of about 130.)
// ClassicShape() rounds m up to whole 64-bit words, then grows it until
// rate(m, n, k) <= p, so the formula itself never exceeds the target.
//
// ## Blocked layout (the default)
// The m bits are cut into B = 512-bit blocks (one 64-byte cache line). A key
// picks one block with the high hash half and sets all its k bits inside it:
// one cache miss per operation instead of k. The price: blocks do not receive
// equal loads. With b = m / B blocks, a block's key count j is Poisson with
// mean lambda = n / b, and a block with j keys has each bit set with
// probability f(j) = 1 - (1 - 1/B)^(jk). A query's k positions are D <= k
// distinct bits (k draws from B may repeat; P(D = d) by the occupancy
// recursion). So
//   rate_blocked(m, n, k) = sum_j Poisson(j; lambda) * E_D[ f(j)^D ]
// Because f is convex in j, overloaded blocks dominate and the rate exceeds
// the classic one at equal m: at 10 bits/key and k = 7, 0.99% instead of
// 0.82%. BlockedShape() therefore searches (number of blocks, k) for the
// smallest m with rate_blocked <= p. Worked numbers (bits/key, k; classic in
// brackets): p = 10%: 4.85, 3 (4.81, 3); 1%: 9.97, 6 (9.59, 7), 1.04x;
// 0.1%: 15.7, 9 (14.4, 10), 1.09x; 0.01%: 22.3, 12 (19.2, 13), 1.16x.
// The cost grows as p shrinks because k bits must share one 512-bit line.
// The formula was checked against measurement (tests/bloom/fp_rate_test.cc):
// measured rates are within ~3% of it (count noise) for p in {10%, 1%, 0.1%}.
// The model stops being exact when k approaches B / 4 (probe positions then
// collide often and are not independent); kMaxHashCount keeps k far below.
#ifndef BLOOM_PARAMS_H_
#define BLOOM_PARAMS_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace bloom {

// Where a key's k bits go.
enum class Layout : uint32_t {
  kBlocked = 1,  // all k bits in one 64-byte line: one cache miss per operation
  kClassic = 2,  // k bits anywhere: the textbook filter, k cache misses
};

const char* LayoutName(Layout layout);  // "blocked" / "classic"

inline constexpr uint64_t kBlockBits = 512;  // one 64-byte cache line
// The largest filter this library builds: 2^40 bits = 128 GiB. Anything larger
// is refused (OutOfRange) rather than attempted.
inline constexpr uint64_t kMaxBits = uint64_t{1} << 40;
inline constexpr uint32_t kMaxHashCount = 32;

// The size of a filter: bit count and hash count.
struct FilterShape {
  uint64_t bits = 0;        // m; a multiple of 64 (of kBlockBits when blocked)
  uint32_t hash_count = 0;  // k
  uint64_t MemoryBytes() const { return bits / 8; }
};

// The smallest shape whose theoretical rate at `expected_count` keys is at most
// `fp_rate`. InvalidArgument if expected_count < 1 or fp_rate is not in (0, 1);
// OutOfRange if the filter would exceed kMaxBits.
absl::StatusOr<FilterShape> ClassicShape(uint64_t expected_count, double fp_rate);
absl::StatusOr<FilterShape> BlockedShape(uint64_t expected_count, double fp_rate);
absl::StatusOr<FilterShape> ShapeFor(Layout layout, uint64_t expected_count, double fp_rate);

// Theoretical false-positive rate of a filter of `bits` bits and `hash_count`
// hashes holding `count` keys (formulas above). 0 when count is 0; 1 for a
// degenerate shape (bits or hash_count 0).
// `count` is a double so that an estimated count can be passed.
double ClassicFpRate(uint64_t bits, double count, uint32_t hash_count);
double BlockedFpRate(uint64_t bits, double count, uint32_t hash_count);
double FpRateFor(Layout layout, uint64_t bits, double count, uint32_t hash_count);

// Bits per key the classic formula needs for rate p: -ln p / (ln 2)^2.
double ClassicBitsPerKey(double fp_rate);

}  // namespace bloom

#endif  // BLOOM_PARAMS_H_
