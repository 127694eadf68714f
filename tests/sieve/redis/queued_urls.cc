#include "sieve/redis/queued_urls.h"

#include "../../../sieve/redis_module/src/batch_codec.h"
#include "../../../sieve/redis_module/src/queue_batch.h"

namespace sieve_test {

std::vector<std::string> QueuedUrls(const RedisServer& redis, const std::string& key) {
  std::vector<std::string> urls;
  std::vector<crawlsieve_wire::BatchEntry> entries;
  std::string batch;
  for (const std::string& element : redis.ListElements(key)) {
    if (!crawlsieve_wire::BatchOfElement(element, batch) ||
        !crawlsieve_wire::DecodeBatch(batch, entries)) {
      urls.push_back("<not a v4 batch>");
      continue;
    }
    for (const crawlsieve_wire::BatchEntry& entry : entries) urls.push_back(entry.url);
  }
  return urls;
}

}  // namespace sieve_test
