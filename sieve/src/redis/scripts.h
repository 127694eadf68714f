// The Lua scripts RedisSieve runs in Redis. Each runs atomically (Redis runs
// one script at a time), which is what makes the fleet's guarantees hold.
// Their contracts (KEYS, ARGV, reply) are written above each source in
// scripts.cc.
#ifndef SIEVE_SRC_REDIS_SCRIPTS_H_
#define SIEVE_SRC_REDIS_SCRIPTS_H_

namespace sieve::internal {

extern const char* const kPushScript;
extern const char* const kPopScript;
extern const char* const kReleaseScript;

}  // namespace sieve::internal

#endif  // SIEVE_SRC_REDIS_SCRIPTS_H_
