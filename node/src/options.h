// The JS options object of `new Sieve(options)` and `Sieve.open(dir,
// options)` -> sieve_options. Keys are the camelCase names of the C fields;
// an unknown key is a TypeError naming it (a typo must not pass silently as
// a default). Values are checked for their JS type here; their ranges by the
// C API (sieve_create's SIEVE_INVALID_ARGUMENT names the field).
#ifndef CRAWL_NODE_OPTIONS_H_
#define CRAWL_NODE_OPTIONS_H_

#include <node_api.h>

#include <string>

#include "sieve/sieve_c.h"

namespace crawl_node {

struct JsOptions {
  sieve_options c;
  std::string spill_dir;     // c.spill_dir points into it
  napi_value log = nullptr;  // the log callback, if given
};

enum class OptionsFor { kCreate, kOpen };

// Fills `out` from `value` (undefined: every default). False: thrown.
bool ReadOptions(napi_env env, napi_value value, OptionsFor use, JsOptions* out);

}  // namespace crawl_node

#endif  // CRAWL_NODE_OPTIONS_H_
