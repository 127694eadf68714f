// The Redis Cluster hash slot of a key (the cluster spec, "Keys distribution
// model"): CRC16-CCITT (XModem: polynomial 0x1021, initial value 0) of the
// key modulo 16384; if the key holds a hash tag, a '{' followed later by a
// '}' with at least one byte between them, only the bytes between the first
// '{' and the first '}' after it are hashed, so keys sharing a tag share a
// slot (RedisSieve's fleet keys all carry {NAME}).
//
//   KeySlot("123456789") == 12739  // CRC16 0x31C3; CLUSTER KEYSLOT agrees
//   KeySlot("{user1}.a") == KeySlot("{user1}.b")
//
// Threading: pure functions.
#ifndef SIEVE_SRC_REDIS_CLUSTER_KEY_SLOT_H_
#define SIEVE_SRC_REDIS_CLUSTER_KEY_SLOT_H_

#include <cstdint>
#include <string_view>

namespace sieve::internal {

inline constexpr int kClusterSlots = 16384;

uint16_t Crc16(std::string_view bytes);
int KeySlot(std::string_view key);

}  // namespace sieve::internal

#endif  // SIEVE_SRC_REDIS_CLUSTER_KEY_SLOT_H_
