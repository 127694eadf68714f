// Synthetic exchanges for the WARC tests: deterministic bodies (seeded), so a
// test can recompute what each record must hold.
#ifndef TESTS_CRAWLER_WARC_TEST_EXCHANGES_H_
#define TESTS_CRAWLER_WARC_TEST_EXCHANGES_H_

#include <cstdint>
#include <string>

#include "crawler/warc.h"

namespace crawler_test {

// Exchange number `i` with a body of `size` pseudo-random bytes (seed `i`),
// so different `i` give different payload digests.
crawler::WarcExchange NumberedExchange(int i, size_t size);

crawler::WarcOptions OptionsWithPrefix(const std::string& prefix);

}  // namespace crawler_test

#endif  // TESTS_CRAWLER_WARC_TEST_EXCHANGES_H_
