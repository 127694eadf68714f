// How a queued URL and its payload are stored as one element of a Redis
// list (a host queue) and one member of the lease keys: the URL alone when
// the payload is empty, else URL, a NUL byte, then the payload. URLs never
// hold a NUL (RedisSieve refuses one), so the first NUL ends the URL. A
// frontier written before payloads (meta "v2") is refused at Connect rather
// than read by this rule (redis_connect.cc).
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
