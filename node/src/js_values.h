// JS values <-> the C API's: argument checks that throw TypeError or
// RangeError naming the argument, the SieveError a failed call throws, and
// the objects pops and stats() return. Main thread only (they take a
// napi_env).
#ifndef CRAWL_NODE_JS_VALUES_H_
#define CRAWL_NODE_JS_VALUES_H_

#include <node_api.h>

#include <cstdint>
#include <string>

#include "sieve/sieve_c.h"

namespace crawl_node {

struct SieveBox;

// What the addon keeps per environment (napi_set_instance_data).
struct AddonData {
  napi_ref sieve_class = nullptr;  // the native Sieve constructor
  napi_ref error_class = nullptr;  // index.js's SieveError, once registered
  SieveBox* adopting = nullptr;    // the opened box the constructor adopts (addon.cc)
};

// The argument `what` as a string (TypeError otherwise). False: thrown.
bool StringArg(napi_env env, napi_value value, const char* what, std::string* out);
// A payload: a Buffer or other Uint8Array-like view, a string (its UTF-8
// bytes), or undefined/null (empty). TypeError otherwise.
bool BytesArg(napi_env env, napi_value value, const char* what, std::string* out);
// An integer in int32 (undefined: 0). TypeError for a non-number, RangeError
// for a fraction or a value outside int32.
bool PriorityArg(napi_env env, napi_value value, int32_t* out);
// True if `value` is undefined or null.
bool IsMissing(napi_env env, napi_value value);

// A SieveError (index.js) with `message` and `code` the status's name
// (e.g. "SIEVE_NOT_FOUND"); a plain Error with that code before index.js
// registered the class.
napi_value MakeSieveError(napi_env env, sieve_status status, const std::string& message);
// Throws MakeSieveError(...) with the calling thread's sieve_last_error().
void ThrowSieveError(napi_env env, sieve_status status);

// {url, payload: Buffer, priority}
napi_value EntryObject(napi_env env, const sieve_entry& entry);
// sieve_stats as an object with camelCase keys, plus `lanes`: the highest
// priorities with URLs queued (at most 16), [{priority, queued}], highest
// first.
napi_value StatsObject(napi_env env, const sieve_t* sieve);

// Small setters for objects built here.
void SetNumber(napi_env env, napi_value object, const char* key, double value);
void SetBool(napi_env env, napi_value object, const char* key, bool value);

}  // namespace crawl_node

#endif  // CRAWL_NODE_JS_VALUES_H_
