#include "url_payload.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
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
// it is truncated, longer than 5 bytes (32 bits) or over `max`. With
// `wide`, up to 10 bytes (64 bits; version 2's times and sizes).
bool ReadVarint(std::string_view* in, uint64_t max, uint64_t* value, bool wide = false) {
  uint64_t result = 0;
  for (int shift = 0; shift < (wide ? 70 : 35); shift += 7) {
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

uint64_t NotNegative(int64_t value) { return value < 0 ? 0 : static_cast<uint64_t>(value); }

void AppendString(std::string_view s, std::string* out) {
  AppendVarint(s.size(), out);
  out->append(s);
}

bool ReadString(std::string_view* in, std::string* out) {
  uint64_t size = 0;
  if (!ReadVarint(in, sieve::kMaxPayloadBytes, &size) || size > in->size()) return false;
  out->assign(in->substr(0, size));
  in->remove_prefix(size);
  return true;
}

void AppendPrevious(const PreviousFetch& previous, std::string* out) {
  AppendVarint(NotNegative(absl::ToUnixMillis(previous.fetched_at)), out);
  AppendVarint(NotNegative(previous.revisit_s), out);
  AppendVarint(NotNegative(previous.status), out);
  AppendVarint(NotNegative(previous.bytes), out);
  AppendString(previous.etag, out);
  AppendString(previous.last_modified, out);
  AppendString(previous.digest, out);
}

absl::StatusOr<PreviousFetch> ReadPrevious(std::string_view bytes) {
  constexpr uint64_t kMax64 = std::numeric_limits<int64_t>::max();
  constexpr uint64_t kMaxInt = std::numeric_limits<int>::max();
  PreviousFetch previous;
  uint64_t millis = 0, revisit = 0, status = 0, size = 0;
  if (!ReadVarint(&bytes, kMax64, &millis, true)) return Malformed("bad fetched_at");
  if (!ReadVarint(&bytes, kMax64, &revisit, true)) return Malformed("bad revisit_s");
  if (!ReadVarint(&bytes, kMaxInt, &status)) return Malformed("bad status");
  if (!ReadVarint(&bytes, kMax64, &size, true)) return Malformed("bad bytes");
  if (!ReadString(&bytes, &previous.etag)) return Malformed("bad etag");
  if (!ReadString(&bytes, &previous.last_modified)) return Malformed("bad last_modified");
  if (!ReadString(&bytes, &previous.digest)) return Malformed("bad digest");
  if (!bytes.empty()) return Malformed(absl::StrCat(bytes.size(), " trailing bytes"));
  previous.fetched_at = absl::FromUnixMillis(static_cast<int64_t>(millis));
  previous.revisit_s = static_cast<int64_t>(revisit);
  previous.status = static_cast<int>(status);
  previous.bytes = static_cast<int64_t>(size);
  return previous;
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

std::string EncodeUrlPayload(const UrlPayload& payload) {
  if (!payload.previous.has_value()) {
    return EncodeUrlPayload(payload.depth, payload.redirect_hops, payload.parent);
  }
  std::string out;
  out.reserve(payload.parent.size() + payload.previous->etag.size() + 96);
  out.push_back(static_cast<char>(kUrlPayloadVersionPrevious));
  AppendVarint(payload.depth < 0 ? 0 : static_cast<uint64_t>(payload.depth), &out);
  AppendVarint(payload.redirect_hops < 0 ? 0 : static_cast<uint64_t>(payload.redirect_hops), &out);
  AppendString(payload.parent, &out);
  AppendPrevious(*payload.previous, &out);
  return out;
}

absl::StatusOr<UrlPayload> DecodeUrlPayload(std::string_view bytes) {
  UrlPayload payload;
  if (bytes.empty()) return payload;
  const auto version = static_cast<uint8_t>(bytes.front());
  if (version != kUrlPayloadVersion && version != kUrlPayloadVersionPrevious) {
    return Malformed(absl::StrCat("version ", static_cast<int>(version),
                                  " (this crawl reads 1 and ",
                                  static_cast<int>(kUrlPayloadVersionPrevious), ")"));
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
  if (version == kUrlPayloadVersionPrevious) {
    if (parent_size > bytes.size()) {
      return Malformed(
          absl::StrCat("parent length ", parent_size, ", ", bytes.size(), " bytes left"));
    }
    absl::StatusOr<PreviousFetch> previous = ReadPrevious(bytes.substr(parent_size));
    if (!previous.ok()) return previous.status();
    payload.previous = *std::move(previous);
    bytes = bytes.substr(0, parent_size);
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
