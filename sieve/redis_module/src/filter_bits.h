// The test-and-set of a push batch's bits, straight in the shard strings'
// memory (RedisModule_StringDMA): what the Lua push script does with
// BITFIELD SET u1, without a call per chunk and a Lua value per probe.
//
//   FilterBits bits(ctx, prefix, probes, n, k);
//   if (const char* error = bits.Open()) return ReplyWithError(ctx, error);
//   bits.TestAndSet(flags);   // flags[i] = 1 iff URL i had a bit at 0
//
// The same bits as BITFIELD: bit b of shard s is bit 7 - b % 8 of byte b / 8
// of the string NAME:bits:s, and a shard string grows (zero-filled) to
// exactly the byte its highest probe needs, as SETBIT/BITFIELD grow it, so
// Lua and module clients of one frontier read each other's bits.
//
// Threading: Redis's main thread, inside one command.
#ifndef SIEVE_REDIS_MODULE_SRC_FILTER_BITS_H_
#define SIEVE_REDIS_MODULE_SRC_FILTER_BITS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "module_api.h"

namespace crawlsieve_module {

// The memory of the string at `key` (opened for writing; a string or
// empty), grown zero-filled to at least `bytes_needed` bytes as SETBIT
// grows it; nullptr if Redis refused.
unsigned char* WritableBits(RedisModuleKey* key, size_t bytes_needed);

// Sets bit `offset` of `bytes` (bit 7 - offset % 8 of byte offset / 8, as
// SETBIT numbers them); true iff it was 0.
inline bool TestAndSetBit(unsigned char* bytes, uint32_t offset) {
  unsigned char& byte = bytes[offset / 8];
  const auto mask = static_cast<unsigned char>(0x80u >> (offset % 8));
  if ((byte & mask) != 0) return false;
  byte = static_cast<unsigned char>(byte | mask);
  return true;
}

class FilterBits {
 public:
  // probes: n * k records (push_wire.h), length checked by the caller.
  FilterBits(RedisModuleCtx* ctx, std::string_view prefix, const unsigned char* probes, size_t n,
             uint32_t k);

  // Opens the shard keys the probes name and checks they are strings (or
  // absent); writes nothing. An error reply's text, or nullptr.
  const char* Open();
  // Grows the shards as needed, then tests and sets each URL's k bits in URL
  // order (a URL repeated in the batch finds the first copy's bits set).
  // fresh[i] = true iff one of URL i's bits was 0. An error text or nullptr.
  const char* TestAndSet(std::vector<bool>& fresh);

 private:
  struct Shard {
    uint32_t index;
    size_t bytes_needed = 0;  // past the batch's highest bit in it
    RedisModuleKey* key = nullptr;
    unsigned char* bytes = nullptr;
  };

  const char* Grow(Shard& shard);

  RedisModuleCtx* ctx_;
  std::string_view prefix_;
  const unsigned char* probes_;
  size_t n_;
  uint32_t k_;
  std::vector<Shard> shards_;
  std::vector<uint32_t> shard_of_probe_;  // index into shards_, per probe
};

}  // namespace crawlsieve_module

#endif  // SIEVE_REDIS_MODULE_SRC_FILTER_BITS_H_
