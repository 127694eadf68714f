// The URLs a host queue holds, read from its list's packed batches (format
// v4, sieve/redis_module/src/queue_batch.h), in queue order: what tests
// that look into Redis count and compare.
//
//   std::vector<std::string> urls = sieve_test::QueuedUrls(redis, "shared:q:");
//
// Threading: one thread.
#ifndef TESTS_SIEVE_REDIS_QUEUED_URLS_H_
#define TESTS_SIEVE_REDIS_QUEUED_URLS_H_

#include <string>
#include <vector>

#include "redis_fixture/redis_server.h"

namespace sieve_test {

// Every URL of the list `key`, in order; a malformed batch adds a URL
// "<not a v4 batch>", which no test expects.
std::vector<std::string> QueuedUrls(const RedisServer& redis, const std::string& key);

}  // namespace sieve_test

#endif  // TESTS_SIEVE_REDIS_QUEUED_URLS_H_
