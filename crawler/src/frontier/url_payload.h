// UrlPayload: what the crawler keeps about a queued URL, as the bytes of the
// Sieve's per-URL payload (sieve::Sieve::Push(url, payload)). It travels with
// the URL through the Sieve's memory, spilled segments, Defer and
// checkpoints, so it is bounded by --queue-memory and costs no RAM elsewhere.
//
// Format (a change of layout takes a new version byte; Decode refuses
// versions it does not know). Version 1, every URL without a previous fetch:
//
//   byte    version (1)
//   varint  depth           (LEB128, unsigned, < 2^31)
//   varint  redirect_hops   (LEB128, unsigned, < 2^31)
//   varint  parent length   (LEB128, <= sieve::kMaxPayloadBytes)
//   bytes   parent URL      (exactly that many; nothing may follow)
//
// Version 2, a URL of the previous crawl (--recrawl): version 1's
// fields, then its PreviousFetch, each string as varint length + bytes:
//
//   byte    version (2)
//   varint  depth, redirect_hops; parent (as version 1)
//   varint  fetched_at      (Unix milliseconds, < 2^63)
//   varint  revisit_s       (< 2^63)
//   varint  status          (< 2^31)
//   varint  bytes           (< 2^63)
//   string  etag, last_modified, digest (nothing may follow)
//
// Priority is not in the payload: it is the Sieve's lane. A link of depth 3
// from a 40-byte parent costs 1+1+1+1+40 = 44 bytes (version 1); a recrawl's
// seed with a 10-byte ETag and its digest about 6+8+3+3+1+3+11+30+38 = 103. The
// empty payload means "depth 0, no parent, no hops" (a URL pushed without a
// payload: a RedisSieve that keeps none, or another embedder).
//
//   std::string bytes = EncodeUrlPayload({.depth = 2, .parent = "http://a/"});
//   absl::StatusOr<UrlPayload> back = DecodeUrlPayload(bytes);
//
// Threading: free functions on values; safe from any thread.
#ifndef CRAWLER_SRC_FRONTIER_URL_PAYLOAD_H_
#define CRAWLER_SRC_FRONTIER_URL_PAYLOAD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "crawler/host_queues.h"

namespace crawler {

inline constexpr uint8_t kUrlPayloadVersion = 1;          // no previous fetch
inline constexpr uint8_t kUrlPayloadVersionPrevious = 2;  // with one

struct UrlPayload {
  int depth = 0;
  int redirect_hops = 0;
  std::string parent;                     // "" for seeds
  std::optional<PreviousFetch> previous;  // version 2 when set
};

// Version 1. Negative depth or hops are encoded as 0 (they never occur).
std::string EncodeUrlPayload(int depth, int redirect_hops, std::string_view parent);
// Version 1 without `previous`, version 2 with it (negative numbers as 0).
std::string EncodeUrlPayload(const UrlPayload& payload);

// Empty bytes: the default UrlPayload. Anything malformed (unknown version,
// truncated or overlong varint, a value out of range, a length past the end,
// trailing bytes) is an InvalidArgument error saying what is wrong.
absl::StatusOr<UrlPayload> DecodeUrlPayload(std::string_view bytes);

}  // namespace crawler

#endif  // CRAWLER_SRC_FRONTIER_URL_PAYLOAD_H_
