// CRAWLSIEVE.PUSH (arguments and reply in push_wire.h): the Lua push script
// (sieve/src/redis/scripts.cc, PUSH) as one module command, on the same keys
// with the same results, so Lua and module clients can share a frontier and
// the Lua POP and RELEASE scripts read what it writes. Like a script it runs
// atomically (Redis runs one command at a time), which keeps exactly-once
// enqueue across clients.
//
// Bad arguments get an error reply before anything is written: wrong arity,
// k outside [1, 64], a probes argument whose length is not n * k * 8, a
// bits or queue key of the wrong type.
//
// Replication: the command is replicated verbatim (a replica or an AOF
// replays it, so it needs the module loaded too). Replayed, it sets the same
// bits and enqueues the same URLs; whether a host goes to NAME:ready or
// NAME:cooling depends on the clock at replay (a politeness delay, not a
// URL, is at stake).
//
// Keyspace notifications: the list pushes and bit writes are made through
// the low-level key API, which sends none (the script's RPUSH sent "rpush");
// nothing of ours listens to them.
//
// Threading: Redis's main thread.
#ifndef SIEVE_REDIS_MODULE_SRC_PUSH_COMMAND_H_
#define SIEVE_REDIS_MODULE_SRC_PUSH_COMMAND_H_

#include "module_api.h"

namespace crawlsieve_module {

int PushCommand(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);

}  // namespace crawlsieve_module

#endif  // SIEVE_REDIS_MODULE_SRC_PUSH_COMMAND_H_
