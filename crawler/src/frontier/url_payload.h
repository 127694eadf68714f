// UrlPayload: what the crawler keeps about a queued URL, as the bytes of the
// Sieve's per-URL payload (sieve::Sieve::Push(url, payload)). It travels with
// the URL through the Sieve's memory, spilled segments, Defer and
// checkpoints, so it is bounded by --queue-memory and costs no RAM elsewhere.
//
// Format, version 1 (a change of layout takes a new version byte; Decode
// refuses versions it does not know):
//
//   byte    version (1)
//   varint  depth           (LEB128, unsigned, < 2^31)
//   varint  redirect_hops   (LEB128, unsigned, < 2^31)
//   varint  parent length   (LEB128, <= sieve::kMaxPayloadBytes)
//   bytes   parent URL      (exactly that many; nothing may follow)
//
// A link of depth 3 from a 40-byte parent costs 1+1+1+1+40 = 44 bytes. The
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
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace crawler {

inline constexpr uint8_t kUrlPayloadVersion = 1;

struct UrlPayload {
  int depth = 0;
  int redirect_hops = 0;
  std::string parent;  // "" for seeds
};

// Negative depth or hops are encoded as 0 (they never occur).
std::string EncodeUrlPayload(int depth, int redirect_hops, std::string_view parent);
inline std::string EncodeUrlPayload(const UrlPayload& payload) {
  return EncodeUrlPayload(payload.depth, payload.redirect_hops, payload.parent);
}

// Empty bytes: the default UrlPayload. Anything malformed (unknown version,
// truncated or overlong varint, a value out of range, a length past the end,
// trailing bytes) is an InvalidArgument error saying what is wrong.
absl::StatusOr<UrlPayload> DecodeUrlPayload(std::string_view bytes);

}  // namespace crawler

#endif  // CRAWLER_SRC_FRONTIER_URL_PAYLOAD_H_
