// How a host's queue (the Redis list NAME:q:HOST) stores its URLs, format
// v4: each list element is a batch of the host's URLs in queue order,
// written by RedisSieve's Lua scripts (sieve/src/redis/scripts.cc) and by
// the crawlsieve module (host_enqueue.cc) byte for byte alike; one
// definition here for the module, the client's tests and the golden test
// (tests/sieve/redis/queue_batch_test.cc).
//
//   byte    4                   the format's version (kBatchVersion)
//   varint  base length, then the base: the batch's first URL up to and
//           including its last '/' (empty if it has none)
//   entries, in queue order, each:
//     varint  shared            the URL starts with this many bytes of the base
//     varint  rest length, then the rest of the URL
//     varint  payload length, then the payload
//   (varints: LEB128, 7 bits a byte, low bits first)
//
// A URL joins the last batch of its host's list if that batch, with the
// URL's entry appended, is at most kMaxBatchBytes (kMaxPackedBatchBytes on
// a frontier of packed batches, whose elements are deflated: batch_codec.h); else it starts a new
// batch (pushed at the list's tail). A URL put back at the head (an expired
// lease, a closing client's give-back) is a batch of its own. A pop takes
// entries from the head batch and writes back the batch of those left (the
// same base, the entries after) or drops it when none is left.
//
// Why: one Redis list element per URL cost ~88 bytes of Redis memory per
// queued URL at bench/sieve's URL mix (the URL with its scheme and host, and
// ~8 bytes of listpack entry); a batch says the scheme and host once (in its
// base) and pays one listpack entry per ~35 URLs. 2 KiB batches keep the
// string work of an append (the Lua script copies the batch) small, and four
// of them fill one 8 KiB quicklist node (Redis's default node size).
//
// Between the client and Redis (the push's arguments, a pop's reply, the
// lease keys' members) a URL travels as a lease element instead: the URL,
// then, if the payload is not empty, a NUL byte and the payload
// (sieve/src/redis/queue_element.h).
//
//   std::string batch = crawlsieve_wire::NewBatch("https://a.example/x", "");
//   crawlsieve_wire::AppendToBatch(batch, "https://a.example/y", "\x01");  // true
//   std::vector<crawlsieve_wire::BatchEntry> entries;
//   crawlsieve_wire::DecodeBatch(batch, entries);  // 2 entries
//
// Threading: pure functions.
#ifndef SIEVE_REDIS_MODULE_SRC_QUEUE_BATCH_H_
#define SIEVE_REDIS_MODULE_SRC_QUEUE_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace crawlsieve_wire {

inline constexpr unsigned char kBatchVersion = 4;
inline constexpr size_t kMaxBatchBytes = 2048;

inline void AppendVarint(std::string& out, uint64_t v) {
  while (v >= 128) {
    out.push_back(static_cast<char>((v & 127) | 128));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// Reads a varint at `pos` (advanced past it); false if the bytes end first or
// it is longer than 64 bits.
inline bool ReadVarint(std::string_view in, size_t& pos, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && pos < in.size(); shift += 7) {
    const auto byte = static_cast<unsigned char>(in[pos++]);
    v |= uint64_t{byte & 127u} << shift;
    if (byte < 128) return true;
  }
  return false;
}

// The base a batch starting with `url` gets: up to its last '/'.
inline std::string_view BaseOf(std::string_view url) {
  const size_t slash = url.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : url.substr(0, slash + 1);
}

inline std::string BatchEntryBytes(std::string_view base, std::string_view url,
                                   std::string_view payload) {
  size_t shared = 0;
  while (shared < base.size() && shared < url.size() && base[shared] == url[shared]) ++shared;
  std::string entry;
  AppendVarint(entry, shared);
  AppendVarint(entry, url.size() - shared);
  entry.append(url.substr(shared));
  AppendVarint(entry, payload.size());
  entry.append(payload);
  return entry;
}

// A batch's base (nullopt-like: false if the header is malformed) and the
// offset of its first entry.
inline bool ReadBatchHeader(std::string_view batch, std::string_view& base, size_t& pos) {
  pos = 0;
  if (batch.empty() || static_cast<unsigned char>(batch[0]) != kBatchVersion) return false;
  pos = 1;
  uint64_t length = 0;
  if (!ReadVarint(batch, pos, length) || length > batch.size() - pos) return false;
  base = batch.substr(pos, length);
  pos += length;
  return true;
}

inline std::string NewBatch(std::string_view url, std::string_view payload) {
  const std::string_view base = BaseOf(url);
  std::string batch(1, static_cast<char>(kBatchVersion));
  AppendVarint(batch, base.size());
  batch.append(base);
  batch.append(BatchEntryBytes(base, url, payload));
  return batch;
}

// Appends the URL's entry if the batch stays within `max_bytes`
// (kMaxBatchBytes; a packed frontier's batches: batch_codec.h); false
// (batch unchanged) if not, or if `batch` is not a v4 batch.
inline bool AppendToBatch(std::string& batch, std::string_view url, std::string_view payload,
                          size_t max_bytes = kMaxBatchBytes) {
  std::string_view base;
  size_t pos = 0;
  if (!ReadBatchHeader(batch, base, pos)) return false;
  std::string entry = BatchEntryBytes(base, url, payload);
  if (batch.size() + entry.size() > max_bytes) return false;
  batch.append(entry);
  return true;
}

struct BatchEntry {
  std::string url;
  std::string payload;
  bool operator==(const BatchEntry&) const = default;
};

// The entries of a batch, in queue order; false if it is not a well-formed
// v4 batch (wrong version byte: e.g. a URL of a v3 frontier's list).
inline bool DecodeBatch(std::string_view batch, std::vector<BatchEntry>& out) {
  out.clear();
  std::string_view base;
  size_t pos = 0;
  if (!ReadBatchHeader(batch, base, pos)) return false;
  while (pos < batch.size()) {
    uint64_t shared = 0, rest = 0, payload = 0;
    if (!ReadVarint(batch, pos, shared) || shared > base.size()) return false;
    if (!ReadVarint(batch, pos, rest) || rest > batch.size() - pos) return false;
    BatchEntry entry;
    entry.url = std::string(base.substr(0, shared)).append(batch.substr(pos, rest));
    pos += rest;
    if (!ReadVarint(batch, pos, payload) || payload > batch.size() - pos) return false;
    entry.payload = std::string(batch.substr(pos, payload));
    pos += payload;
    out.push_back(std::move(entry));
  }
  return !out.empty();
}

}  // namespace crawlsieve_wire

#endif  // SIEVE_REDIS_MODULE_SRC_QUEUE_BATCH_H_
