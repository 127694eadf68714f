// CRAWLSIEVE.FILTER (arguments and reply in filter_wire.h): the Lua FILTER
// script (sieve/src/redis/scripts.cc), step (1) of a push on a Redis
// Cluster, as one module command on one filter shard: the same bits, the
// same trip record in the same key, the same replies, so Lua and module
// clients (and a Lua survivor replaying a module client's journal, or the
// reverse) share a frontier. In short:
//  - the trip key holds "<trip id> <reply>" of this client's last trip on
//    this shard; a trip id equal to it (a resend after a lost reply, or a
//    survivor replaying the journal of a dead client) gets that reply and
//    the bits are not looked at; a greater one with mode 'replay' or 'all'
//    gets "" (the trip's client finished it itself);
//  - otherwise each URL's k bits are tested and set in URL order ('1' iff
//    one was 0; mode 'all' answers '1' for every URL) and the record is
//    written with a life of <record ms>.
// Like the script it runs atomically, so of two clients pushing one new
// URL exactly one sees it new.
//
// Keys: declared as first key 1, last key 2 (Redis 7 makes that the
// command's key spec), so a cluster node answers MOVED/ASK for a slot it
// does not serve and CROSSSLOT if the two keys' slots differ, as for any
// keyed command; the client routes it by its first argument.
//
// Bad arguments get an error reply before anything is written: wrong
// arity, a trip id or <record ms> that is not a positive integer, k outside
// [1, 64], a mode other than run, replay or all, offsets whose length is
// not a multiple of k * 4, a key of the wrong type, a trip record that is
// not "<id> <reply>".
//
// Replication: verbatim when it wrote (replicas need the module too), as
// CRAWLSIEVE.PUSH; a reply from the record writes and replicates nothing.
//
// Threading: Redis's main thread.
#ifndef SIEVE_REDIS_MODULE_SRC_FILTER_COMMAND_H_
#define SIEVE_REDIS_MODULE_SRC_FILTER_COMMAND_H_

#include "module_api.h"

namespace crawlsieve_module {

int FilterCommand(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);

}  // namespace crawlsieve_module

#endif  // SIEVE_REDIS_MODULE_SRC_FILTER_COMMAND_H_
