// The Lua sources of sieve/src/redis/lua/, one constant per file, embedded
// at build time by crawl_embed_lua (cmake/CrawlEmbedLua.cmake): edit the .lua
// files. What each script takes and returns is written at the top of its
// file; scripts.h puts them together (the prelude, then the script).
#ifndef SIEVE_SRC_REDIS_LUA_SOURCES_H_
#define SIEVE_SRC_REDIS_LUA_SOURCES_H_

namespace sieve::internal::lua {

extern const char kPrelude[];  // the keys and helpers most scripts share
extern const char kPush[];
extern const char kPop[];
extern const char kRelease[];
extern const char kRenew[];
extern const char kTakePage[];
extern const char kJournal[];
extern const char kFilter[];
extern const char kEnqueue[];
extern const char kEnqueuePart[];
extern const char kServerTake[];  // server_slots.cc, registered at first use
extern const char kServerGive[];

}  // namespace sieve::internal::lua

#endif  // SIEVE_SRC_REDIS_LUA_SOURCES_H_
