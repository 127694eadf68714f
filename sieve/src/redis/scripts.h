// The Lua scripts RedisSieve runs in Redis. Each runs atomically (Redis runs
// one script at a time), which is what makes the fleet's guarantees hold.
// Their sources are sieve/src/redis/lua/*.lua (embedded at build time,
// lua_sources.h); each file's opening comment is its contract (ARGV, reply),
// and prelude.lua's the keys they share. `scripts/lint` runs luacheck on
// them.
#ifndef SIEVE_SRC_REDIS_SCRIPTS_H_
#define SIEVE_SRC_REDIS_SCRIPTS_H_

#include <string>

namespace sieve::internal {

std::string PushScript();
std::string PopScript();
std::string ReleaseScript();
std::string RenewScript();
std::string TakePageScript();
// A cluster's push: the journal, then two steps (redis_sieve.h, "Redis
// Cluster").
std::string JournalScript();
std::string FilterScript();
std::string EnqueueScript();
// Step 2's part in a queue partition other than 0 (queue_partitions.h).
std::string EnqueuePartScript();

}  // namespace sieve::internal

#endif  // SIEVE_SRC_REDIS_SCRIPTS_H_
