#include "module_api.h"

namespace crawlsieve_module {

ModuleApi api = {};

namespace {

using GetApiFunc = int (*)(const char* name, void* out);

// The context's first member is GetApi (the ABI's one fixed point).
GetApiFunc GetApiOf(RedisModuleCtx* ctx) { return *reinterpret_cast<GetApiFunc*>(ctx); }

template <typename Fn>
bool Fetch(GetApiFunc get_api, const char* name, Fn& out) {
  return get_api(name, static_cast<void*>(&out)) == kOk && out != nullptr;
}

}  // namespace

bool LoadModuleApi(RedisModuleCtx* ctx) {
  GetApiFunc get_api = GetApiOf(ctx);
  ModuleApi& a = api;
  return Fetch(get_api, "RedisModule_SetModuleAttribs", a.SetModuleAttribs) &&
         Fetch(get_api, "RedisModule_IsModuleNameBusy", a.IsModuleNameBusy) &&
         Fetch(get_api, "RedisModule_CreateCommand", a.CreateCommand) &&
         Fetch(get_api, "RedisModule_AutoMemory", a.AutoMemory) &&
         Fetch(get_api, "RedisModule_WrongArity", a.WrongArity) &&
         Fetch(get_api, "RedisModule_ReplyWithError", a.ReplyWithError) &&
         Fetch(get_api, "RedisModule_ReplyWithStringBuffer", a.ReplyWithStringBuffer) &&
         Fetch(get_api, "RedisModule_ReplicateVerbatim", a.ReplicateVerbatim) &&
         Fetch(get_api, "RedisModule_StringPtrLen", a.StringPtrLen) &&
         Fetch(get_api, "RedisModule_CreateString", a.CreateString) &&
         Fetch(get_api, "RedisModule_OpenKey", a.OpenKey) &&
         Fetch(get_api, "RedisModule_CloseKey", a.CloseKey) &&
         Fetch(get_api, "RedisModule_KeyType", a.KeyType) &&
         Fetch(get_api, "RedisModule_ValueLength", a.ValueLength) &&
         Fetch(get_api, "RedisModule_StringTruncate", a.StringTruncate) &&
         Fetch(get_api, "RedisModule_StringSet", a.StringSet) &&
         Fetch(get_api, "RedisModule_SetExpire", a.SetExpire) &&
         Fetch(get_api, "RedisModule_StringDMA", a.StringDMA) &&
         Fetch(get_api, "RedisModule_ListPush", a.ListPush) &&
         Fetch(get_api, "RedisModule_ListGet", a.ListGet) &&
         Fetch(get_api, "RedisModule_ListSet", a.ListSet) &&
         Fetch(get_api, "RedisModule_Call", a.Call) &&
         Fetch(get_api, "RedisModule_CallReplyType", a.CallReplyType) &&
         Fetch(get_api, "RedisModule_CallReplyInteger", a.CallReplyInteger) &&
         Fetch(get_api, "RedisModule_CallReplyStringPtr", a.CallReplyStringPtr) &&
         Fetch(get_api, "RedisModule_Milliseconds", a.Milliseconds);
}

std::string_view View(RedisModuleString* s) {
  size_t length = 0;
  const char* data = api.StringPtrLen(s, &length);
  return {data, length};
}

}  // namespace crawlsieve_module
