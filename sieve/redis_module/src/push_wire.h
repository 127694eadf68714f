// The arguments of CRAWLSIEVE.PUSH, written by RedisSieve (sieve/src/redis/
// round_trips.cc) and read by the crawlsieve module (push_command.cc): one
// definition for both sides.
//
//   CRAWLSIEVE.PUSH <prefix> <k> <probes> <url_1> <host_1> ... <url_n> <host_n>
//
// prefix is "NAME:" (as ARGV[1] of the Lua scripts); k the hash count; probes
// n * k records of kProbeBytes, URL-major (URL i's probes are records
// i*k .. i*k+k-1): the shard (u32) and the bit offset in the shard (u32),
// both little-endian. A u32 offset reaches bit 2^32 - 1, the last bit of a
// 512 MiB shard (Redis's cap on a string), so no offset can ask for more. The
// reply is the push script's: n characters, '1' for a URL enqueued, '0' for
// one whose bits were all set (seen, or earlier in the same batch).
//
// Binary probes instead of decimal strings: the client formats no numbers,
// Redis parses none, and the whole batch's probes are one argument.
//
// Threading: pure functions.
#ifndef SIEVE_REDIS_MODULE_SRC_PUSH_WIRE_H_
#define SIEVE_REDIS_MODULE_SRC_PUSH_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace crawlsieve_wire {

inline constexpr char kPushCommand[] = "CRAWLSIEVE.PUSH";
inline constexpr size_t kProbeBytes = 8;
// Most probes per URL the module accepts (bloom's k is at most ~30).
inline constexpr uint32_t kMaxHashCount = 64;

struct Probe {
  uint32_t shard;
  uint32_t offset;  // bit offset in the shard; bit 0 is the first byte's MSB
};

inline void AppendU32(std::string& out, uint32_t v) {
  const char bytes[4] = {static_cast<char>(v), static_cast<char>(v >> 8),
                         static_cast<char>(v >> 16), static_cast<char>(v >> 24)};
  out.append(bytes, 4);
}

inline void AppendProbe(std::string& out, Probe probe) {
  AppendU32(out, probe.shard);
  AppendU32(out, probe.offset);
}

inline uint32_t ReadU32(const unsigned char* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}

// Record `index` of a probes argument (the caller checked the length).
inline Probe ReadProbe(const unsigned char* probes, size_t index) {
  const unsigned char* p = probes + index * kProbeBytes;
  return {ReadU32(p), ReadU32(p + 4)};
}

}  // namespace crawlsieve_wire

#endif  // SIEVE_REDIS_MODULE_SRC_PUSH_WIRE_H_
