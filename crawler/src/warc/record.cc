#include "warc/record.h"

#include <openssl/rand.h>

#include <atomic>
#include <chrono>
#include <cstdint>
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

namespace {

// Writes `value` as exactly `digits` decimal digits at `out`.
void PutDigits(char* out, int64_t value, int digits) {
  for (int i = digits - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
}

}  // namespace

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
  // By hand, like record IDs: snprintf's format parsing cost more than the
  // digits (years past 9999 are out of WARC's range anyway).
  std::string text = "0000-00-00T00:00:00.000000Z";
  PutDigits(&text[0], (utc.tm_year + 1900) % 10000, 4);
  PutDigits(&text[5], utc.tm_mon + 1, 2);
  PutDigits(&text[8], utc.tm_mday, 2);
  PutDigits(&text[11], utc.tm_hour, 2);
  PutDigits(&text[14], utc.tm_min, 2);
  PutDigits(&text[17], utc.tm_sec, 2);
  PutDigits(&text[20], fraction, 6);
  return text;
}

void AppendRecord(const WarcFields& fields, absl::string_view block_head,
                  absl::string_view block_tail, std::string* out) {
  size_t fields_size = 0;
  for (const auto& [name, value] : fields) fields_size += name.size() + value.size() + 4;
  out->reserve(out->size() + 64 + fields_size + block_head.size() + block_tail.size());
  out->append("WARC/1.1\r\n");
  for (const auto& [name, value] : fields) absl::StrAppend(out, name, ": ", value, "\r\n");
  absl::StrAppend(out, "Content-Length: ", block_head.size() + block_tail.size(), "\r\n\r\n",
                  block_head, block_tail, "\r\n\r\n");
}

}  // namespace crawler::warc_internal
