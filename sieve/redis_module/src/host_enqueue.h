// The enqueue half of a push, as the Lua push script's `enqueue` and
// `make_ready` (sieve/src/redis/scripts.cc) do it, on the same keys: the new
// URLs go to their hosts' lists NAME:q:<host> in URL order, packed into
// batches of format v4 byte for byte as the script packs them
// (queue_batch.h; deflated as CRAWLSIEVE.PACK does, batch_codec.h, if
// NAME:meta says the frontier's batches are packed), hosts in the order of
// their first new URL; NAME:queued grows by their count; a host
// whose list was empty and that nobody holds (NAME:hostowners) becomes
// takeable: RPUSH NAME:ready, or ZADD NAME:cooling at the end of its
// cooldown (NAME:cool:<host>) if that is still ahead; a host with URLs in
// other priority lanes (NAME:lanes:<host>) moves to NAME:ready only if lane 0
// is its new best (lua/prelude.lua). Host '' (no host partitions) is never
// made ready. Lanes other than 0 are pushed by the script only.
//
//   HostEnqueue enqueue(ctx, prefix, urls_and_hosts, n);
//   if (const char* error = enqueue.Check()) ...      // before any write
//   enqueue.Push(fresh);
//
// Threading: Redis's main thread, inside one command.
#ifndef SIEVE_REDIS_MODULE_SRC_HOST_ENQUEUE_H_
#define SIEVE_REDIS_MODULE_SRC_HOST_ENQUEUE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "module_api.h"

namespace crawlsieve_module {

class HostEnqueue {
 public:
  // urls_and_hosts: url_i at [2i], host_i at [2i + 1], i < n.
  HostEnqueue(RedisModuleCtx* ctx, std::string_view prefix, RedisModuleString** urls_and_hosts,
              size_t n);

  // Checks that every host list of the batch is a list or absent; writes
  // nothing. An error reply's text, or nullptr.
  const char* Check();
  // Enqueues URL i iff fresh[i]. An error text, or nullptr.
  const char* Push(const std::vector<bool>& fresh);

 private:
  struct Host {
    RedisModuleString* name;
    std::vector<RedisModuleString*> urls;  // the fresh ones, in URL order
  };

  RedisModuleString* QueueKey(RedisModuleString* host);
  // Reads NAME:meta: packed_ is true if the frontier's batches are packed
  // (batch_codec.h). False if the GET failed.
  bool ReadPacked();
  const char* MakeReady(RedisModuleString* host, long long now);
  // Lane 0 of a host with URLs in other lanes just got its first URLs: a
  // ready host whose best lane was below 0 moves to NAME:ready, as the
  // scripts' lane_opened does.
  const char* LaneZeroOpened(RedisModuleString* host);
  // Appends the lease elements to the queue's batches (queue_batch.h).
  const char* AppendBatches(RedisModuleKey* queue, bool was_empty,
                            const std::vector<RedisModuleString*>& elements);

  RedisModuleCtx* ctx_;
  std::string prefix_;
  RedisModuleString** urls_and_hosts_;
  size_t n_;
  bool packed_ = false;
};

}  // namespace crawlsieve_module

#endif  // SIEVE_REDIS_MODULE_SRC_HOST_ENQUEUE_H_
