#include "options.h"

#include <cmath>
#include <set>
#include <string>

#include "js_values.h"

namespace crawl_node {
namespace {

bool Throw(napi_env env, const std::string& message) {
  napi_throw_type_error(env, nullptr, message.c_str());
  return false;
}

bool ReadNumber(napi_env env, napi_value value, const std::string& key, double* out) {
  napi_valuetype type = napi_undefined;
  napi_typeof(env, value, &type);
  if (type != napi_number) return Throw(env, "option " + key + " must be a number");
  napi_get_value_double(env, value, out);
  return true;
}

// A count: a non-negative integer a JS number holds exactly.
bool ReadCount(napi_env env, napi_value value, const std::string& key, uint64_t* out) {
  double number = 0;
  if (!ReadNumber(env, value, key, &number)) return false;
  if (number < 0 || std::trunc(number) != number || number > 9007199254740992.0) {
    napi_throw_range_error(env, nullptr,
                           ("option " + key + " must be a non-negative integer").c_str());
    return false;
  }
  *out = static_cast<uint64_t>(number);
  return true;
}

bool ReadBool(napi_env env, napi_value value, const std::string& key, bool* out) {
  napi_valuetype type = napi_undefined;
  napi_typeof(env, value, &type);
  if (type != napi_boolean) return Throw(env, "option " + key + " must be a boolean");
  napi_get_value_bool(env, value, out);
  return true;
}

bool ReadOverflow(napi_env env, napi_value value, int* grow) {
  std::string policy;
  if (!StringArg(env, value, "option overflow", &policy)) return false;
  if (policy != "warn" && policy != "grow") {
    napi_throw_range_error(env, nullptr,
                           ("option overflow is '" + policy + "'; use 'warn' or 'grow'").c_str());
    return false;
  }
  *grow = policy == "grow";
  return true;
}

bool ReadLog(napi_env env, napi_value value, napi_value* out) {
  napi_valuetype type = napi_undefined;
  napi_typeof(env, value, &type);
  if (type != napi_function) return Throw(env, "option log must be a function(level, message)");
  *out = value;
  return true;
}

bool ReadOne(napi_env env, const std::string& key, napi_value value, JsOptions* out) {
  sieve_options& c = out->c;
  if (key == "queueMemoryBudgetBytes")
    return ReadCount(env, value, key, &c.queue_memory_budget_bytes);
  if (key == "spillDir") return StringArg(env, value, "option spillDir", &out->spill_dir);
  if (key == "log") return ReadLog(env, value, &out->log);
  if (key == "expectedCount") return ReadCount(env, value, key, &c.expected_count);
  if (key == "fpRate") return ReadNumber(env, value, key, &c.fp_rate);
  if (key == "overflow") return ReadOverflow(env, value, &c.overflow_grow);
  bool lifo = false;
  if (!ReadBool(env, value, key, &lifo)) return false;  // "lifo", the last key left
  c.lifo = lifo ? 1 : 0;
  return true;
}

}  // namespace

bool ReadOptions(napi_env env, napi_value value, OptionsFor use, JsOptions* out) {
  sieve_options_init(&out->c);
  if (IsMissing(env, value)) return true;
  napi_valuetype type = napi_undefined;
  napi_typeof(env, value, &type);
  if (type != napi_object) return Throw(env, "options must be an object");
  // Open takes the runtime options only: the rest comes from the checkpoint.
  std::set<std::string> allowed = {"queueMemoryBudgetBytes", "spillDir", "log"};
  if (use == OptionsFor::kCreate) allowed.insert({"expectedCount", "fpRate", "overflow", "lifo"});
  napi_value keys = nullptr;
  napi_get_property_names(env, value, &keys);
  uint32_t count = 0;
  napi_get_array_length(env, keys, &count);
  for (uint32_t i = 0; i < count; ++i) {
    napi_value key_value = nullptr;
    napi_value field = nullptr;
    std::string key;
    napi_get_element(env, keys, i, &key_value);
    if (!StringArg(env, key_value, "option name", &key)) return false;
    if (allowed.count(key) == 0) {
      return Throw(env,
                   "unknown option " + key +
                       (use == OptionsFor::kOpen ? " (Sieve.open takes queueMemoryBudgetBytes, "
                                                   "spillDir and log; the rest is saved)"
                                                 : ""));
    }
    napi_get_named_property(env, value, key.c_str(), &field);
    if (IsMissing(env, field)) continue;
    if (!ReadOne(env, key, field, out)) return false;
  }
  out->c.spill_dir = out->spill_dir.c_str();
  return true;
}

}  // namespace crawl_node
