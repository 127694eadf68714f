// How a queued URL and its payload travel between a client and Redis (the
// push's arguments, a pop's reply, the acks) and are named in the lease keys
// (NAME:leases, NAME:owners, NAME:lhosts): the URL alone when the payload is
// empty, else URL, a NUL byte, then the payload. URLs never hold a NUL
// (RedisSieve refuses one), so the first NUL ends the URL. In a host queue
// itself the scripts and the crawlsieve module store URLs packed, many to a
// list element (format v4, sieve/redis_module/src/queue_batch.h); a
// frontier of an older format is refused at Connect (redis_connect.cc).
//
//   std::string element = EncodeQueueElement("https://a.example/", "\x01");
//   SieveEntry entry = DecodeQueueElement(element);  // {url, "\x01"}
//
// Threading: pure functions.
#ifndef SIEVE_SRC_REDIS_QUEUE_ELEMENT_H_
#define SIEVE_SRC_REDIS_QUEUE_ELEMENT_H_

#include <string>
#include <string_view>

#include "sieve/sieve.h"

namespace sieve::internal {

std::string EncodeQueueElement(std::string_view url, std::string_view payload);
SieveEntry DecodeQueueElement(std::string_view element);
// The URL part of an element (the key of the client's in-flight map).
std::string_view UrlOfQueueElement(std::string_view element);

}  // namespace sieve::internal

#endif  // SIEVE_SRC_REDIS_QUEUE_ELEMENT_H_
