#include "url_payload.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "sieve/sieve.h"

namespace crawler {
namespace {

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

// Reads one LEB128 varint of at most `max` from the front of `*in`; false if
// it is truncated, longer than 5 bytes (32 bits) or over `max`.
bool ReadVarint(std::string_view* in, uint64_t max, uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (in->empty()) return false;
    const auto byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return result <= max;
    }
  }
  return false;
}

absl::Status Malformed(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("malformed URL payload: ", what));
}

}  // namespace

std::string EncodeUrlPayload(int depth, int redirect_hops, std::string_view parent) {
  std::string out;
  out.reserve(parent.size() + 8);
  out.push_back(static_cast<char>(kUrlPayloadVersion));
  AppendVarint(depth < 0 ? 0 : static_cast<uint64_t>(depth), &out);
  AppendVarint(redirect_hops < 0 ? 0 : static_cast<uint64_t>(redirect_hops), &out);
  AppendVarint(parent.size(), &out);
  out.append(parent);
  return out;
}

absl::StatusOr<UrlPayload> DecodeUrlPayload(std::string_view bytes) {
  UrlPayload payload;
  if (bytes.empty()) return payload;
  const auto version = static_cast<uint8_t>(bytes.front());
  if (version != kUrlPayloadVersion) {
    return Malformed(absl::StrCat("version ", static_cast<int>(version), " (this crawl reads ",
                                  static_cast<int>(kUrlPayloadVersion), ")"));
  }
  bytes.remove_prefix(1);
  constexpr uint64_t kMaxInt = std::numeric_limits<int>::max();
  uint64_t depth = 0;
  uint64_t hops = 0;
  uint64_t parent_size = 0;
  if (!ReadVarint(&bytes, kMaxInt, &depth)) return Malformed("bad depth");
  if (!ReadVarint(&bytes, kMaxInt, &hops)) return Malformed("bad redirect hops");
  if (!ReadVarint(&bytes, sieve::kMaxPayloadBytes, &parent_size)) {
    return Malformed("bad parent length");
  }
  if (parent_size != bytes.size()) {
    return Malformed(
        absl::StrCat("parent length ", parent_size, ", ", bytes.size(), " bytes left"));
  }
  payload.depth = static_cast<int>(depth);
  payload.redirect_hops = static_cast<int>(hops);
  payload.parent = std::string(bytes);
  return payload;
}

}  // namespace crawler
