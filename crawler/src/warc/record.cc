#include "warc/record.h"

#include <openssl/rand.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "absl/strings/str_cat.h"

namespace crawler::warc_internal {

namespace {

// 16 random bytes from OpenSSL's CSPRNG, drawn 1 KiB at a time per thread:
// each RAND_bytes call costs ~1 us of DRBG bookkeeping beside its bytes, and
// two IDs a page made it 1% of the crawl's CPU (perf, testsite crawl).
bool RandomBytes16(unsigned char* out) {
  thread_local unsigned char pool[1024];
  thread_local size_t used = sizeof pool;
  if (used == sizeof pool) {
    if (RAND_bytes(pool, sizeof pool) != 1) return false;
    used = 0;
  }
  std::memcpy(out, pool + used, 16);
  used += 16;
  return true;
}

}  // namespace

std::string NewRecordId() {
  unsigned char b[16];
  if (!RandomBytes16(b)) {
    // Only when the RNG cannot seed; a time-and-counter fallback keeps IDs
    // unique within the process, which is what readers rely on.
    static std::atomic<uint64_t> counter{0};
    const uint64_t t = std::chrono::steady_clock::now().time_since_epoch().count();
    const uint64_t n = counter.fetch_add(1);
    for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(t >> (8 * i));
    for (int i = 0; i < 8; ++i) b[8 + i] = static_cast<unsigned char>(n >> (8 * i));
  }
  b[6] = (b[6] & 0x0f) | 0x40;  // version 4
  b[8] = (b[8] & 0x3f) | 0x80;  // RFC 4122 variant
  // Formatted by hand: snprintf's format parsing was most of an ID's cost.
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text = "<urn:uuid:";
  text.reserve(47);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text.push_back('-');
    text.push_back(kHex[b[i] >> 4]);
    text.push_back(kHex[b[i] & 15]);
  }
  text.push_back('>');
  return text;
}

std::string FormatWarcDate(std::chrono::system_clock::time_point time) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count();
  int64_t seconds = micros / 1000000;
  int64_t fraction = micros % 1000000;
  if (fraction < 0) {
    fraction += 1000000;
    --seconds;
  }
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[48];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(fraction));
  return text;
}

std::string BuildRecord(const WarcFields& fields, absl::string_view block_head,
                        absl::string_view block_tail) {
  std::string record = "WARC/1.1\r\n";
  size_t fields_size = 0;
  for (const auto& [name, value] : fields) fields_size += name.size() + value.size() + 4;
  record.reserve(64 + fields_size + block_head.size() + block_tail.size());
  for (const auto& [name, value] : fields) absl::StrAppend(&record, name, ": ", value, "\r\n");
  absl::StrAppend(&record, "Content-Length: ", block_head.size() + block_tail.size(), "\r\n\r\n",
                  block_head, block_tail, "\r\n\r\n");
  return record;
}

}  // namespace crawler::warc_internal
