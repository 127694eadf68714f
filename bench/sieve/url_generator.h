// Deterministic, distinct, realistic URLs for the Sieve benchmark: URL i is a
// pure function of i (so any N is generated streaming, never held), mean
// length ~75 bytes, spread over 20000 hosts with varied paths and queries.
// Distinctness: the path's last segment is "<words>-<i in base 36>" (then
// maybe ".html", maybe a query); words hold no '-' and base 36 no '.', so i
// can be read back from the URL: distinct i give distinct URLs.
//
//   UrlGenerator urls;
//   std::string url;
//   urls.Generate(42, url);  // e.g. "https://shop.kalomertex.de/catalog/garden-chair-16"
//
// Threading: const methods, safe from any thread.
#ifndef BENCH_SIEVE_URL_GENERATOR_H_
#define BENCH_SIEVE_URL_GENERATOR_H_

#include <cstdint>
#include <string>

namespace sieve_bench {

class UrlGenerator {
 public:
  static constexpr uint64_t kHosts = 20000;
  // Writes URL number i into `out` (replacing its contents).
  void Generate(uint64_t i, std::string& out) const;
};

}  // namespace sieve_bench

#endif  // BENCH_SIEVE_URL_GENERATOR_H_
