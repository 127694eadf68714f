// crawl_sieve.node: the Sieve for Node.js, on Node-API (node_api.h) over the
// C API (sieve/sieve_c.h). The JS surface around it (the SieveError class,
// async iteration, Sieve.open's wrapper) is in node/index.js; index.d.ts
// gives the types.
//
// Threading: every method runs on the JS main thread. Those that cannot
// wait (push, pushBatch, tryPop, done, defer, stats, health, close) call
// the C API directly: they take the Sieve's locks briefly. pop() first tries
// a pop that does not wait; when it would have to wait it returns a promise
// that the Sieve's waiter thread (pop_waiter.h) resolves. save() and open()
// write or read files on libuv's thread pool (napi_async_work).
#include <node_api.h>

#include <memory>
#include <string>
#include <vector>

#include "js_values.h"
#include "options.h"
#include "sieve_box.h"

namespace crawl_node {
namespace {

struct CallInfo {
  napi_value self = nullptr;
  napi_value args[3] = {nullptr, nullptr, nullptr};
  SieveBox* box = nullptr;
};

// The receiver's box and up to three arguments (missing ones undefined).
bool Unpack(napi_env env, napi_callback_info info, CallInfo* call) {
  size_t argc = 3;
  napi_get_cb_info(env, info, &argc, call->args, &call->self, nullptr);
  for (size_t i = argc; i < 3; ++i) napi_get_undefined(env, &call->args[i]);
  if (napi_unwrap(env, call->self, reinterpret_cast<void**>(&call->box)) != napi_ok ||
      call->box == nullptr || call->box->sieve == nullptr) {
    napi_throw_type_error(env, nullptr, "not a live Sieve");
    return false;
  }
  return true;
}

napi_value Bool(napi_env env, bool value) {
  napi_value result = nullptr;
  napi_get_boolean(env, value, &result);
  return result;
}

napi_value Undefined(napi_env env) {
  napi_value result = nullptr;
  napi_get_undefined(env, &result);
  return result;
}

void Finalize(napi_env env, void* data, void*);
void CleanupHook(void* data);

// Wraps `box` (its sieve already made) into `self`.
bool Adopt(napi_env env, napi_value self, SieveBox* box) {
  if (napi_wrap(env, self, box, Finalize, nullptr, &box->wrapper) != napi_ok) return false;
  napi_add_env_cleanup_hook(env, CleanupHook, box);
  box->ReportExternalMemory();
  return true;
}

void Finalize(napi_env env, void* data, void*) {
  auto* box = static_cast<SieveBox*>(data);
  box->Shutdown();
  if (!box->cleanup_hook_ran) napi_remove_env_cleanup_hook(env, CleanupHook, box);
  napi_delete_reference(env, box->wrapper);
  delete box;
}

// The environment ends (process exit, a worker's end) with the Sieve alive:
// close it and join its thread; the finalizer, if it still runs, frees the box.
void CleanupHook(void* data) {
  auto* box = static_cast<SieveBox*>(data);
  box->cleanup_hook_ran = true;
  box->Shutdown();
}

// new Sieve(options), or, inside OpenDone's napi_new_instance, the object
// that adopts the opened box (AddonData::adopting: set only for that
// synchronous call, so no JS argument can smuggle a box in).
napi_value Construct(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value arg = nullptr;
  napi_value self = nullptr;
  napi_value new_target = nullptr;
  napi_get_cb_info(env, info, &argc, &arg, &self, nullptr);
  napi_get_new_target(env, info, &new_target);
  if (new_target == nullptr) {
    napi_throw_type_error(env, nullptr, "Sieve is a class: use new Sieve(options)");
    return nullptr;
  }
  if (argc == 0) napi_get_undefined(env, &arg);
  AddonData* addon = nullptr;
  napi_get_instance_data(env, reinterpret_cast<void**>(&addon));
  if (addon->adopting != nullptr) {
    SieveBox* box = addon->adopting;
    addon->adopting = nullptr;
    if (!Adopt(env, self, box)) return nullptr;
    return self;
  }
  JsOptions options;
  if (!ReadOptions(env, arg, OptionsFor::kCreate, &options)) return nullptr;
  auto box = std::make_unique<SieveBox>(env);
  if (options.log != nullptr && !box->ForwardLog(options.log, &options.c)) return nullptr;
  options.c.spill_dir = options.spill_dir.c_str();
  const sieve_status status = sieve_create(&options.c, &box->sieve);
  if (status != SIEVE_OK) {
    ThrowSieveError(env, status);
    box->Shutdown();
    return nullptr;
  }
  if (!Adopt(env, self, box.get())) {
    box->Shutdown();
    return nullptr;
  }
  box.release();  // owned by the JS object now
  return self;
}

// push(url, payload?, priority?) -> boolean: true if new and enqueued.
napi_value Push(napi_env env, napi_callback_info info) {
  CallInfo call;
  std::string url;
  std::string payload;
  int32_t priority = 0;
  if (!Unpack(env, info, &call) || !StringArg(env, call.args[0], "url", &url) ||
      !BytesArg(env, call.args[1], "payload", &payload) ||
      !PriorityArg(env, call.args[2], &priority)) {
    return nullptr;
  }
  int accepted = 0;
  const sieve_status status = sieve_push_priority(
      call.box->sieve, url.data(), url.size(), payload.data(), payload.size(), priority, &accepted);
  // As the Python package: a push after close() is not an error, just refused.
  if (status == SIEVE_CLOSED) return Bool(env, false);
  if (status != SIEVE_OK) {
    ThrowSieveError(env, status);
    return nullptr;
  }
  return Bool(env, accepted != 0);
}

// The i-th element of an optional array argument (undefined if absent).
napi_value ElementOr(napi_env env, napi_value array, bool present, uint32_t i) {
  napi_value value = nullptr;
  if (present) {
    napi_get_element(env, array, i, &value);
  } else {
    napi_get_undefined(env, &value);
  }
  return value;
}

bool ArrayArg(napi_env env, napi_value value, const char* what, bool optional, uint32_t* length,
              bool* present) {
  *present = !IsMissing(env, value);
  if (!*present && optional) return true;
  bool is_array = false;
  napi_is_array(env, value, &is_array);
  if (!is_array) {
    napi_throw_type_error(env, nullptr, (std::string(what) + " must be an array").c_str());
    return false;
  }
  napi_get_array_length(env, value, length);
  return true;
}

// pushBatch(urls, payloads?, priorities?) -> boolean[]. A payload over the
// limit or a priority past the lane bound is refused alone (false).
napi_value PushBatch(napi_env env, napi_callback_info info) {
  CallInfo call;
  if (!Unpack(env, info, &call)) return nullptr;
  uint32_t count = 0;
  uint32_t payload_count = 0;
  uint32_t priority_count = 0;
  bool has_urls = false;
  bool has_payloads = false;
  bool has_priorities = false;
  if (!ArrayArg(env, call.args[0], "urls", false, &count, &has_urls) ||
      !ArrayArg(env, call.args[1], "payloads", true, &payload_count, &has_payloads) ||
      !ArrayArg(env, call.args[2], "priorities", true, &priority_count, &has_priorities)) {
    return nullptr;
  }
  if ((has_payloads && payload_count != count) || (has_priorities && priority_count != count)) {
    napi_throw_range_error(env, nullptr,
                           "pushBatch: payloads and priorities must have one element per URL");
    return nullptr;
  }
  std::vector<std::string> urls(count);
  std::vector<std::string> payloads(has_payloads ? count : 0);
  std::vector<int32_t> priorities(count, 0);
  for (uint32_t i = 0; i < count; ++i) {
    if (!StringArg(env, ElementOr(env, call.args[0], true, i), "urls[i]", &urls[i]) ||
        (has_payloads &&
         !BytesArg(env, ElementOr(env, call.args[1], true, i), "payloads[i]", &payloads[i])) ||
        !PriorityArg(env, ElementOr(env, call.args[2], has_priorities, i), &priorities[i])) {
      return nullptr;
    }
  }
  std::vector<const char*> url_ptrs(count);
  std::vector<size_t> url_lens(count);
  std::vector<const void*> payload_ptrs(payloads.size());
  std::vector<size_t> payload_lens(payloads.size());
  for (uint32_t i = 0; i < count; ++i) {
    url_ptrs[i] = urls[i].data();
    url_lens[i] = urls[i].size();
    if (has_payloads) {
      payload_ptrs[i] = payloads[i].data();
      payload_lens[i] = payloads[i].size();
    }
  }
  std::vector<unsigned char> accepted(count, 0);
  const sieve_status status = sieve_push_batch_priority(
      call.box->sieve, count, url_ptrs.data(), url_lens.data(),
      has_payloads ? payload_ptrs.data() : nullptr, has_payloads ? payload_lens.data() : nullptr,
      priorities.data(), accepted.data(), nullptr);
  if (status != SIEVE_OK) {
    ThrowSieveError(env, status);
    return nullptr;
  }
  napi_value result = nullptr;
  napi_create_array_with_length(env, count, &result);
  for (uint32_t i = 0; i < count; ++i) napi_set_element(env, result, i, Bool(env, accepted[i]));
  return result;
}

// The outcome of a pop that did not wait, as a JS value: an entry, null
// (finished) or undefined (SIEVE_EMPTY). nullptr: thrown.
napi_value PopOutcomeValue(napi_env env, sieve_status status, sieve_entry* entry) {
  if (status == SIEVE_OK) {
    napi_value object = EntryObject(env, *entry);
    sieve_entry_free(entry);
    return object;
  }
  napi_value value = nullptr;
  if (status == SIEVE_FINISHED) {
    napi_get_null(env, &value);
    return value;
  }
  if (status == SIEVE_EMPTY) return Undefined(env);
  ThrowSieveError(env, status);
  return nullptr;
}

// tryPop() -> entry | null: never waits; null when nothing is queued now.
napi_value TryPop(napi_env env, napi_callback_info info) {
  CallInfo call;
  if (!Unpack(env, info, &call)) return nullptr;
  sieve_entry entry{};
  napi_value value = PopOutcomeValue(env, sieve_try_pop(call.box->sieve, &entry), &entry);
  napi_valuetype type = napi_undefined;
  if (value != nullptr) napi_typeof(env, value, &type);
  if (type == napi_undefined && value != nullptr) napi_get_null(env, &value);
  return value;
}

// pop() -> Promise<entry | null>. Waiting pops resolve in the order they
// were made; a pop made while others wait queues behind them.
napi_value Pop(napi_env env, napi_callback_info info) {
  CallInfo call;
  if (!Unpack(env, info, &call)) return nullptr;
  napi_deferred deferred = nullptr;
  napi_value promise = nullptr;
  napi_create_promise(env, &deferred, &promise);
  if (call.box->pops.empty()) {
    sieve_entry entry{};
    napi_value value = PopOutcomeValue(env, sieve_try_pop(call.box->sieve, &entry), &entry);
    if (value == nullptr) {  // an error: reject rather than throw from an async API
      napi_value error = nullptr;
      napi_get_and_clear_last_exception(env, &error);
      napi_reject_deferred(env, deferred, error);
      return promise;
    }
    napi_valuetype type = napi_undefined;
    napi_typeof(env, value, &type);
    if (type != napi_undefined) {
      napi_resolve_deferred(env, deferred, value);
      return promise;
    }
  }
  if (!call.box->WaitForPop(deferred)) return nullptr;
  return promise;
}

napi_value DoneOrDefer(napi_env env, napi_callback_info info, bool done) {
  CallInfo call;
  std::string url;
  if (!Unpack(env, info, &call) || !StringArg(env, call.args[0], "url", &url)) return nullptr;
  const sieve_status status = done ? sieve_done(call.box->sieve, url.data(), url.size())
                                   : sieve_defer(call.box->sieve, url.data(), url.size());
  if (status == SIEVE_NOT_FOUND) return Bool(env, false);
  if (status != SIEVE_OK) {
    ThrowSieveError(env, status);
    return nullptr;
  }
  return Bool(env, true);
}

// done(url) -> boolean: false if url was not in flight.
napi_value Done(napi_env env, napi_callback_info info) { return DoneOrDefer(env, info, true); }
// defer(url) -> boolean: the popped url goes back behind its lane.
napi_value Defer(napi_env env, napi_callback_info info) { return DoneOrDefer(env, info, false); }

napi_value Close(napi_env env, napi_callback_info info) {
  CallInfo call;
  if (!Unpack(env, info, &call)) return nullptr;
  sieve_close(call.box->sieve);  // waiting pops resolve null through the waiter
  return Undefined(env);
}

napi_value IsFinished(napi_env env, napi_callback_info info) {
  CallInfo call;
  if (!Unpack(env, info, &call)) return nullptr;
  return Bool(env, sieve_is_finished(call.box->sieve) != 0);
}

napi_value AddProducer(napi_env env, napi_callback_info info) {
  CallInfo call;
  if (!Unpack(env, info, &call)) return nullptr;
  sieve_add_producer(call.box->sieve);
  return Undefined(env);
}

napi_value ProducerDone(napi_env env, napi_callback_info info) {
  CallInfo call;
  if (!Unpack(env, info, &call)) return nullptr;
  sieve_producer_done(call.box->sieve);
  return Undefined(env);
}

napi_value Stats(napi_env env, napi_callback_info info) {
  CallInfo call;
  if (!Unpack(env, info, &call)) return nullptr;
  return StatsObject(env, call.box->sieve);
}

// health(): undefined, or throws the SieveError that breaks the contract.
napi_value Health(napi_env env, napi_callback_info info) {
  CallInfo call;
  if (!Unpack(env, info, &call)) return nullptr;
  const sieve_status status = sieve_health(call.box->sieve);
  if (status != SIEVE_OK) ThrowSieveError(env, status);
  return status == SIEVE_OK ? Undefined(env) : nullptr;
}

// Disk work on the thread pool: a save of a live Sieve or an open.
struct DiskWork {
  napi_async_work work = nullptr;
  napi_deferred deferred = nullptr;
  SieveBox* box = nullptr;  // save: the live box; open: the box being made
  std::string dir;
  JsOptions options;  // open only
  sieve_status status = SIEVE_OK;
  std::string message;  // sieve_last_error of the pool thread
};

void SaveOnPool(napi_env, void* data) {
  auto* work = static_cast<DiskWork*>(data);
  work->status = sieve_save(work->box->sieve, work->dir.c_str());
  if (work->status != SIEVE_OK) work->message = sieve_last_error();
}

void SaveDone(napi_env env, napi_status, void* data) {
  std::unique_ptr<DiskWork> work(static_cast<DiskWork*>(data));
  if (work->status == SIEVE_OK) {
    napi_resolve_deferred(env, work->deferred, Undefined(env));
  } else {
    napi_reject_deferred(env, work->deferred, MakeSieveError(env, work->status, work->message));
  }
  napi_delete_async_work(env, work->work);
  work->box->EndAsync();
}

// Queues `work` on the pool; returns its promise (nullptr: thrown).
napi_value QueueDiskWork(napi_env env, std::unique_ptr<DiskWork> work, const char* name,
                         napi_async_execute_callback execute,
                         napi_async_complete_callback complete) {
  napi_value promise = nullptr;
  napi_value resource_name = nullptr;
  napi_create_promise(env, &work->deferred, &promise);
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &resource_name);
  if (napi_create_async_work(env, nullptr, resource_name, execute, complete, work.get(),
                             &work->work) != napi_ok ||
      napi_queue_async_work(env, work->work) != napi_ok) {
    return nullptr;
  }
  work.release();
  return promise;
}

// save(dir) -> Promise<void>: a checkpoint into dir (created if missing).
napi_value Save(napi_env env, napi_callback_info info) {
  CallInfo call;
  auto work = std::make_unique<DiskWork>();
  if (!Unpack(env, info, &call) || !StringArg(env, call.args[0], "dir", &work->dir)) {
    return nullptr;
  }
  work->box = call.box;
  SieveBox* box = call.box;
  napi_value promise =
      QueueDiskWork(env, std::move(work), "crawl-sieve save", SaveOnPool, SaveDone);
  if (promise != nullptr) box->BeginAsync();
  return promise;
}

void OpenOnPool(napi_env, void* data) {
  auto* work = static_cast<DiskWork*>(data);
  work->options.c.spill_dir = work->options.spill_dir.c_str();
  work->status = sieve_open(work->dir.c_str(), &work->options.c, &work->box->sieve);
  if (work->status != SIEVE_OK) work->message = sieve_last_error();
}

void OpenDone(napi_env env, napi_status, void* data) {
  std::unique_ptr<DiskWork> work(static_cast<DiskWork*>(data));
  napi_delete_async_work(env, work->work);
  if (work->status != SIEVE_OK) {
    napi_reject_deferred(env, work->deferred, MakeSieveError(env, work->status, work->message));
    work->box->Shutdown();
    delete work->box;
    return;
  }
  AddonData* addon = nullptr;
  napi_get_instance_data(env, reinterpret_cast<void**>(&addon));
  napi_value constructor = nullptr;
  napi_value sieve = nullptr;
  napi_get_reference_value(env, addon->sieve_class, &constructor);
  addon->adopting = work->box;
  const napi_status made = napi_new_instance(env, constructor, 0, nullptr, &sieve);
  addon->adopting = nullptr;
  if (made != napi_ok) {
    napi_value error = nullptr;
    napi_get_and_clear_last_exception(env, &error);
    napi_reject_deferred(env, work->deferred, error);
    work->box->Shutdown();
    delete work->box;
    return;
  }
  napi_resolve_deferred(env, work->deferred, sieve);
}

// open(dir, options?) -> Promise<Sieve>: the Sieve checkpointed in dir.
napi_value Open(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value args[2];
  napi_get_cb_info(env, info, &argc, args, nullptr, nullptr);
  for (size_t i = argc; i < 2; ++i) napi_get_undefined(env, &args[i]);
  auto work = std::make_unique<DiskWork>();
  if (!StringArg(env, args[0], "dir", &work->dir) ||
      !ReadOptions(env, args[1], OptionsFor::kOpen, &work->options)) {
    return nullptr;
  }
  work->box = new SieveBox(env);
  if (work->options.log != nullptr && !work->box->ForwardLog(work->options.log, &work->options.c)) {
    delete work->box;
    return nullptr;
  }
  SieveBox* box = work->box;
  napi_value promise =
      QueueDiskWork(env, std::move(work), "crawl-sieve open", OpenOnPool, OpenDone);
  if (promise == nullptr) {
    box->Shutdown();
    delete box;
  }
  return promise;
}

// setErrorClass(SieveError): index.js registers the class failures throw.
napi_value SetErrorClass(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value error_class = nullptr;
  napi_get_cb_info(env, info, &argc, &error_class, nullptr, nullptr);
  AddonData* addon = nullptr;
  napi_get_instance_data(env, reinterpret_cast<void**>(&addon));
  if (addon->error_class != nullptr) napi_delete_reference(env, addon->error_class);
  napi_create_reference(env, error_class, 1, &addon->error_class);
  return Undefined(env);
}

void DeleteAddonData(napi_env env, void* data, void*) {
  auto* addon = static_cast<AddonData*>(data);
  if (addon->sieve_class != nullptr) napi_delete_reference(env, addon->sieve_class);
  if (addon->error_class != nullptr) napi_delete_reference(env, addon->error_class);
  delete addon;
}

napi_property_descriptor Method(const char* name, napi_callback callback) {
  return napi_property_descriptor{name,    nullptr, callback,     nullptr,
                                  nullptr, nullptr, napi_default, nullptr};
}

void SetConstant(napi_env env, napi_value exports, const char* name, double value) {
  SetNumber(env, exports, name, value);
}

napi_value Init(napi_env env, napi_value exports) {
  const napi_property_descriptor methods[] = {
      Method("push", Push),
      Method("pushBatch", PushBatch),
      Method("pop", Pop),
      Method("tryPop", TryPop),
      Method("done", Done),
      Method("defer", Defer),
      Method("close", Close),
      Method("isFinished", IsFinished),
      Method("addProducer", AddProducer),
      Method("producerDone", ProducerDone),
      Method("stats", Stats),
      Method("health", Health),
      Method("save", Save),
  };
  napi_value sieve_class = nullptr;
  if (napi_define_class(env, "Sieve", NAPI_AUTO_LENGTH, Construct, nullptr,
                        sizeof methods / sizeof methods[0], methods, &sieve_class) != napi_ok) {
    return nullptr;
  }
  auto* addon = new AddonData;
  napi_create_reference(env, sieve_class, 1, &addon->sieve_class);
  napi_set_instance_data(env, addon, DeleteAddonData, nullptr);
  napi_set_named_property(env, exports, "Sieve", sieve_class);
  napi_value function = nullptr;
  napi_create_function(env, "open", NAPI_AUTO_LENGTH, Open, nullptr, &function);
  napi_set_named_property(env, exports, "open", function);
  napi_create_function(env, "setErrorClass", NAPI_AUTO_LENGTH, SetErrorClass, nullptr, &function);
  napi_set_named_property(env, exports, "setErrorClass", function);
  SetConstant(env, exports, "MAX_PAYLOAD_BYTES", static_cast<double>(SIEVE_MAX_PAYLOAD_BYTES));
  SetConstant(env, exports, "MAX_LANES", static_cast<double>(SIEVE_MAX_LANES));
  return exports;
}

}  // namespace
}  // namespace crawl_node

NAPI_MODULE(NODE_GYP_MODULE_NAME, crawl_node::Init)
