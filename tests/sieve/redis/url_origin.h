// Test helper: the host key the Redis tests group URLs by.
#ifndef TESTS_SIEVE_REDIS_URL_ORIGIN_H_
#define TESTS_SIEVE_REDIS_URL_ORIGIN_H_

#include <string>
#include <string_view>

namespace sieve_test {

// "scheme://host[:port]" of `url`: everything before the path.
std::string HostOf(std::string_view url);

}  // namespace sieve_test

#endif  // TESTS_SIEVE_REDIS_URL_ORIGIN_H_
