// SieveBox: the native state behind one JS Sieve object: the sieve_t*, the
// promises of pops that wait, the thread that serves them, the log bridge.
//
// Lifetime: the JS object owns the box (napi_wrap); while a pop or a save is
// pending the box holds a strong reference to its object, so garbage
// collection cannot free the Sieve under a running call (sieve_free must
// come after every other call returned). Shutdown() (the finalizer, or the
// environment's teardown: process exit, a worker's end) closes the Sieve,
// joins the waiter thread and frees it. Every member is used on the JS main
// thread only, except what PopWaiter and the thread-safe functions document.
#ifndef CRAWL_NODE_SIEVE_BOX_H_
#define CRAWL_NODE_SIEVE_BOX_H_

#include <node_api.h>

#include <cstdint>
#include <deque>

#include "pop_waiter.h"
#include "sieve/sieve_c.h"

namespace crawl_node {

struct SieveBox {
  explicit SieveBox(napi_env e) : env(e) {}

  // One more pop or save in flight: pins the JS object (and, for pops, the
  // event loop through `deliver`) until EndAsync.
  void BeginAsync();
  void EndAsync();
  // Queues a pop that must wait; its promise resolves through DeliverPop.
  // False (a JS exception pending) if the thread-safe function failed.
  bool WaitForPop(napi_deferred deferred);
  // Optional: forwards the Sieve's messages to `callback(level, message)` on
  // the main thread. Sets options->log. False: a JS exception is pending.
  bool ForwardLog(napi_value callback, sieve_options* options);
  // Tracks the native bytes (the filter) for the garbage collector.
  void ReportExternalMemory();
  // Closes and frees the Sieve. Idempotent.
  void Shutdown();

  napi_env env;
  sieve_t* sieve = nullptr;
  napi_ref wrapper = nullptr;                  // weak; strong while pending > 0
  napi_threadsafe_function deliver = nullptr;  // pop results -> main thread
  napi_threadsafe_function log = nullptr;      // log messages -> JS callback
  std::deque<napi_deferred> pops;              // waiting pops, oldest first
  uint32_t pending = 0;                        // pops and saves in flight
  int64_t external_bytes = 0;
  bool cleanup_hook_ran = false;
  bool shut = false;
  PopWaiter waiter;
};

}  // namespace crawl_node

#endif  // CRAWL_NODE_SIEVE_BOX_H_
