#include "js_values.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

namespace crawl_node {

bool IsMissing(napi_env env, napi_value value) {
  napi_valuetype type = napi_undefined;
  napi_typeof(env, value, &type);
  return type == napi_undefined || type == napi_null;
}

bool StringArg(napi_env env, napi_value value, const char* what, std::string* out) {
  napi_valuetype type = napi_undefined;
  napi_typeof(env, value, &type);
  if (type != napi_string) {
    napi_throw_type_error(env, nullptr, (std::string(what) + " must be a string").c_str());
    return false;
  }
  size_t length = 0;
  napi_get_value_string_utf8(env, value, nullptr, 0, &length);
  out->assign(length, '\0');
  // N-API writes a NUL after the bytes: std::string keeps room for it.
  napi_get_value_string_utf8(env, value, out->data(), length + 1, &length);
  return true;
}

bool BytesArg(napi_env env, napi_value value, const char* what, std::string* out) {
  out->clear();
  if (IsMissing(env, value)) return true;
  napi_valuetype type = napi_undefined;
  napi_typeof(env, value, &type);
  if (type == napi_string) return StringArg(env, value, what, out);
  bool is_typed_array = false;
  napi_is_typedarray(env, value, &is_typed_array);
  if (is_typed_array) {
    napi_typedarray_type array_type;
    size_t length = 0;
    void* data = nullptr;
    napi_get_typedarray_info(env, value, &array_type, &length, &data, nullptr, nullptr);
    if (array_type == napi_uint8_array || array_type == napi_int8_array ||
        array_type == napi_uint8_clamped_array) {
      out->assign(static_cast<const char*>(data), length);
      return true;
    }
  }
  napi_throw_type_error(
      env, nullptr, (std::string(what) + " must be a Buffer, a Uint8Array or a string").c_str());
  return false;
}

bool PriorityArg(napi_env env, napi_value value, int32_t* out) {
  *out = 0;
  napi_valuetype type = napi_undefined;
  napi_typeof(env, value, &type);
  if (type == napi_undefined) return true;
  if (type != napi_number) {
    napi_throw_type_error(env, nullptr, "priority must be a number (an int32)");
    return false;
  }
  double number = 0;
  napi_get_value_double(env, value, &number);
  if (std::trunc(number) != number || number < INT32_MIN || number > INT32_MAX) {
    char message[96];
    std::snprintf(message, sizeof message,
                  "priority %.17g is not an integer in [-2147483648, 2147483647]", number);
    napi_throw_range_error(env, nullptr, message);
    return false;
  }
  *out = static_cast<int32_t>(number);
  return true;
}

napi_value MakeSieveError(napi_env env, sieve_status status, const std::string& message) {
  napi_value text = nullptr;
  napi_value code = nullptr;
  napi_create_string_utf8(env, message.data(), message.size(), &text);
  napi_create_string_utf8(env, sieve_status_name(status), NAPI_AUTO_LENGTH, &code);
  AddonData* data = nullptr;
  napi_get_instance_data(env, reinterpret_cast<void**>(&data));
  napi_value error = nullptr;
  napi_value error_class = nullptr;
  if (data != nullptr && data->error_class != nullptr) {
    napi_get_reference_value(env, data->error_class, &error_class);
  }
  if (error_class != nullptr) {
    napi_new_instance(env, error_class, 1, &text, &error);
    napi_set_named_property(env, error, "code", code);
  } else {
    napi_create_error(env, code, text, &error);
  }
  return error;
}

void ThrowSieveError(napi_env env, sieve_status status) {
  napi_throw(env, MakeSieveError(env, status, sieve_last_error()));
}

void SetNumber(napi_env env, napi_value object, const char* key, double value) {
  napi_value number = nullptr;
  napi_create_double(env, value, &number);
  napi_set_named_property(env, object, key, number);
}

void SetBool(napi_env env, napi_value object, const char* key, bool value) {
  napi_value boolean = nullptr;
  napi_get_boolean(env, value, &boolean);
  napi_set_named_property(env, object, key, boolean);
}

napi_value EntryObject(napi_env env, const sieve_entry& entry) {
  napi_value object = nullptr;
  napi_value url = nullptr;
  napi_value payload = nullptr;
  napi_create_object(env, &object);
  napi_create_string_utf8(env, entry.url, entry.url_len, &url);
  napi_create_buffer_copy(env, entry.payload_len, entry.payload_len == 0 ? "" : entry.payload,
                          nullptr, &payload);
  napi_set_named_property(env, object, "url", url);
  napi_set_named_property(env, object, "payload", payload);
  SetNumber(env, object, "priority", entry.priority);
  return object;
}

namespace {

napi_value LanesArray(napi_env env, const sieve_t* sieve) {
  sieve_lane lanes[16];
  const size_t count = sieve_get_lanes(sieve, lanes, 16);
  napi_value array = nullptr;
  napi_create_array_with_length(env, count, &array);
  for (size_t i = 0; i < count; ++i) {
    napi_value lane = nullptr;
    napi_create_object(env, &lane);
    SetNumber(env, lane, "priority", lanes[i].priority);
    SetNumber(env, lane, "queued", static_cast<double>(lanes[i].queued));
    napi_set_element(env, array, static_cast<uint32_t>(i), lane);
  }
  return array;
}

}  // namespace

napi_value StatsObject(napi_env env, const sieve_t* sieve) {
  sieve_stats s;
  if (sieve_get_stats(sieve, &s, sizeof s) != SIEVE_OK) {
    ThrowSieveError(env, SIEVE_INTERNAL);
    return nullptr;
  }
  napi_value o = nullptr;
  napi_create_object(env, &o);
  // Counts are uint64 in C; a JS number holds them exactly below 2^53.
  const auto n = [&](const char* key, uint64_t value) {
    SetNumber(env, o, key, static_cast<double>(value));
  };
  n("queued", s.queued);
  n("inFlight", s.in_flight);
  n("accepted", s.accepted);
  n("dropped", s.dropped);
  n("popped", s.popped);
  n("done", s.done);
  n("deferred", s.deferred);
  n("lost", s.lost);
  n("refused", s.refused);
  n("producers", s.producers);
  SetBool(env, o, "closed", s.closed != 0);
  if (s.filter_saturated) {  // no estimate: null, never a made-up number
    napi_value null_value = nullptr;
    napi_get_null(env, &null_value);
    napi_set_named_property(env, o, "estimatedCount", null_value);
  } else {
    SetNumber(env, o, "estimatedCount", s.estimated_count);
  }
  SetBool(env, o, "filterSaturated", s.filter_saturated != 0);
  n("capacity", s.capacity);
  SetNumber(env, o, "targetFpRate", s.target_fp_rate);
  SetNumber(env, o, "currentFpRate", s.current_fp_rate);
  SetNumber(env, o, "fillRatio", s.fill_ratio);
  n("overflowWarnings", s.overflow_warnings);
  n("filterBytes", s.filter_bytes);
  n("queueMemoryBytes", s.queue_memory_bytes);
  n("queueDiskBytes", s.queue_disk_bytes);
  n("spilledSegments", s.spilled_segments);
  n("laneCount", s.lanes);
  napi_set_named_property(env, o, "lanes", LanesArray(env, sieve));
  return o;
}

}  // namespace crawl_node
