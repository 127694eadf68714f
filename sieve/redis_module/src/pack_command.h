// CRAWLSIEVE.PACK and CRAWLSIEVE.UNPACK: the host queues' batch codec
// (batch_codec.h) as two key-less commands, for the Lua scripts of a
// frontier with packed batches (sieve/src/redis/scripts.cc): Lua keeps the
// queue logic, the module does the deflate Lua cannot.
//
//   CRAWLSIEVE.PACK batch        -> the element to store: the v4 batch
//                                   deflated (byte 5...), or the batch itself
//                                   if deflate would not shorten it
//   CRAWLSIEVE.UNPACK element    -> the v4 batch of a packed element
//
// Pure functions of their argument: no keys (so a cluster runs them on the
// node of the calling script's slot), allowed in scripts, nothing
// replicated (the script's list writes carry their results). UNPACK of an
// element that is not packed is an error reply naming the first byte.
//
//   redis.call('CRAWLSIEVE.PACK', batch)   -- in a script
//
// Threading: Redis's main thread.
#ifndef SIEVE_REDIS_MODULE_SRC_PACK_COMMAND_H_
#define SIEVE_REDIS_MODULE_SRC_PACK_COMMAND_H_

#include "module_api.h"

namespace crawlsieve_module {

int PackCommand(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int UnpackCommand(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);

}  // namespace crawlsieve_module

#endif  // SIEVE_REDIS_MODULE_SRC_PACK_COMMAND_H_
