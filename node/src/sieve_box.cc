#include "sieve_box.h"

#include <memory>
#include <string>

#include "js_values.h"

namespace crawl_node {
namespace {

// Main thread: resolves the oldest waiting pop with `data` (a PopResult).
// env is null when the function is torn down with results still queued.
void DeliverPop(napi_env env, napi_value, void* context, void* data) {
  std::unique_ptr<PopResult> result(static_cast<PopResult*>(data));
  auto* box = static_cast<SieveBox*>(context);
  if (env == nullptr || box->pops.empty()) return;
  napi_deferred deferred = box->pops.front();
  box->pops.pop_front();
  napi_value value = nullptr;
  if (result->status == SIEVE_OK) {
    napi_resolve_deferred(env, deferred, EntryObject(env, result->entry));
  } else if (result->status == SIEVE_FINISHED) {
    napi_get_null(env, &value);
    napi_resolve_deferred(env, deferred, value);
  } else {
    napi_reject_deferred(env, deferred, MakeSieveError(env, result->status, result->message));
  }
  box->EndAsync();
}

struct LogMessage {
  int level;
  std::string text;
};

// Any thread: the C API's log callback; queues the message for the main thread.
void LogToJs(void* context, int level, const char* message, size_t length) {
  auto* log = static_cast<napi_threadsafe_function>(context);
  auto* queued = new LogMessage{level, std::string(message, length)};
  if (napi_call_threadsafe_function(log, queued, napi_tsfn_nonblocking) != napi_ok) delete queued;
}

// Main thread: calls the JS log callback. An exception it throws is
// reported as uncaught (the Sieve does not see it).
void CallLog(napi_env env, napi_value callback, void*, void* data) {
  std::unique_ptr<LogMessage> message(static_cast<LogMessage*>(data));
  if (env == nullptr) return;
  napi_value args[2];
  napi_create_int32(env, message->level, &args[0]);
  napi_create_string_utf8(env, message->text.data(), message->text.size(), &args[1]);
  napi_value undefined = nullptr;
  napi_get_undefined(env, &undefined);
  if (napi_call_function(env, undefined, callback, 2, args, nullptr) == napi_pending_exception) {
    napi_value error = nullptr;
    napi_get_and_clear_last_exception(env, &error);
    napi_fatal_exception(env, error);
  }
}

}  // namespace

void SieveBox::BeginAsync() {
  if (pending++ > 0) return;
  if (wrapper != nullptr) napi_reference_ref(env, wrapper, nullptr);
  if (deliver != nullptr) napi_ref_threadsafe_function(env, deliver);
}

void SieveBox::EndAsync() {
  if (--pending > 0) return;
  if (wrapper != nullptr) napi_reference_unref(env, wrapper, nullptr);
  // Idle: the waiter thread alone must not keep the process alive.
  if (deliver != nullptr) napi_unref_threadsafe_function(env, deliver);
}

bool SieveBox::WaitForPop(napi_deferred deferred) {
  if (deliver == nullptr) {
    napi_value name = nullptr;
    napi_create_string_utf8(env, "crawl-sieve pop", NAPI_AUTO_LENGTH, &name);
    if (napi_create_threadsafe_function(env, nullptr, nullptr, name, 0, 1, nullptr, nullptr, this,
                                        DeliverPop, &deliver) != napi_ok) {
      return false;
    }
    napi_unref_threadsafe_function(env, deliver);  // BeginAsync refs it
  }
  pops.push_back(deferred);
  BeginAsync();
  waiter.Request(sieve, deliver);
  return true;
}

bool SieveBox::ForwardLog(napi_value callback, sieve_options* options) {
  napi_value name = nullptr;
  napi_create_string_utf8(env, "crawl-sieve log", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, callback, nullptr, name, 0, 1, nullptr, nullptr, nullptr,
                                      CallLog, &log) != napi_ok) {
    return false;
  }
  napi_unref_threadsafe_function(env, log);  // messages never keep the process alive
  options->log = LogToJs;
  options->log_context = log;
  return true;
}

void SieveBox::ReportExternalMemory() {
  sieve_stats s;
  if (sieve == nullptr || sieve_get_stats(sieve, &s, sizeof s) != SIEVE_OK) return;
  external_bytes = static_cast<int64_t>(s.filter_bytes);
  int64_t total = 0;
  napi_adjust_external_memory(env, external_bytes, &total);
}

void SieveBox::Shutdown() {
  if (shut) return;
  shut = true;
  if (sieve != nullptr) sieve_close(sieve);  // wakes the waiter's blocked pop
  waiter.Stop();
  if (deliver != nullptr) napi_release_threadsafe_function(deliver, napi_tsfn_abort);
  sieve_free(sieve);  // after the last call on it returned
  sieve = nullptr;
  // The log callback may run until sieve_free; released after it.
  if (log != nullptr) napi_release_threadsafe_function(log, napi_tsfn_abort);
  if (external_bytes != 0) {
    int64_t total = 0;
    napi_adjust_external_memory(env, -external_bytes, &total);
    external_bytes = 0;
  }
}

}  // namespace crawl_node
