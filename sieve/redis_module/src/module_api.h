// The part of Redis's module API that the crawlsieve module uses, declared by
// us: Debian ships no redismodule.h, and we vendor nothing. The module ABI is
// a stable C ABI: RedisModule_OnLoad receives a context whose first member is
// a function `int GetApi(const char* name, void* out)`, and every API
// function is fetched by its name through it ("RedisModule_OpenKey", ...).
// LoadModuleApi does that for the functions below and nothing else.
//
// Checked against Redis 7.0 (Debian bookworm's redis-server 7.0.15, module
// API version 1): the signatures and constants as documented in its module
// API reference (redis.io "Modules API reference"). Everything here exists
// since Redis 4.0-6.0 except ListGet and ListSet (7.0).
//
// Threading: Redis calls module commands on its main thread, one at a time;
// the function pointers are written once by LoadModuleApi (from OnLoad) and
// only read afterwards.
#ifndef SIEVE_REDIS_MODULE_SRC_MODULE_API_H_
#define SIEVE_REDIS_MODULE_SRC_MODULE_API_H_

#include <cstddef>
#include <string_view>

extern "C" {

// Opaque handles owned by Redis.
struct RedisModuleCtx;
struct RedisModuleString;
struct RedisModuleKey;
struct RedisModuleCallReply;

using RedisModuleCmdFunc = int (*)(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);

}  // extern "C"

namespace crawlsieve_module {

// Return codes and flags (redismodule.h values, frozen by the ABI).
inline constexpr int kOk = 0;
inline constexpr int kErr = 1;
inline constexpr int kApiVersion1 = 1;
inline constexpr int kRead = 1 << 0;
inline constexpr int kWrite = 1 << 1;
inline constexpr int kKeyTypeEmpty = 0;
inline constexpr int kKeyTypeString = 1;
inline constexpr int kKeyTypeList = 2;
inline constexpr int kListTail = 1;
inline constexpr int kReplyString = 0;
inline constexpr int kReplyError = 1;
inline constexpr int kReplyInteger = 2;
inline constexpr int kReplyNull = 4;

// The API functions, fetched by name (each is "RedisModule_" + the member's
// name). Null until LoadModuleApi succeeded.
struct ModuleApi {
  int (*SetModuleAttribs)(RedisModuleCtx* ctx, const char* name, int ver, int apiver);
  int (*IsModuleNameBusy)(const char* name);
  int (*CreateCommand)(RedisModuleCtx* ctx, const char* name, RedisModuleCmdFunc func,
                       const char* flags, int firstkey, int lastkey, int keystep);
  void (*AutoMemory)(RedisModuleCtx* ctx);
  int (*WrongArity)(RedisModuleCtx* ctx);
  int (*ReplyWithError)(RedisModuleCtx* ctx, const char* err);
  int (*ReplyWithStringBuffer)(RedisModuleCtx* ctx, const char* buf, size_t len);
  int (*ReplicateVerbatim)(RedisModuleCtx* ctx);
  const char* (*StringPtrLen)(const RedisModuleString* str, size_t* len);
  RedisModuleString* (*CreateString)(RedisModuleCtx* ctx, const char* ptr, size_t len);
  RedisModuleKey* (*OpenKey)(RedisModuleCtx* ctx, RedisModuleString* name, int mode);
  void (*CloseKey)(RedisModuleKey* key);
  int (*KeyType)(RedisModuleKey* key);
  size_t (*ValueLength)(RedisModuleKey* key);
  int (*StringTruncate)(RedisModuleKey* key, size_t newlen);
  int (*StringSet)(RedisModuleKey* key, RedisModuleString* str);
  int (*SetExpire)(RedisModuleKey* key, long long expire_ms);
  char* (*StringDMA)(RedisModuleKey* key, size_t* len, int mode);
  int (*ListPush)(RedisModuleKey* key, int where, RedisModuleString* element);
  // Redis 7.0 and later (a v4 queue's tail batch is read and rewritten).
  RedisModuleString* (*ListGet)(RedisModuleKey* key, long index);
  int (*ListSet)(RedisModuleKey* key, long index, RedisModuleString* value);
  RedisModuleCallReply* (*Call)(RedisModuleCtx* ctx, const char* command, const char* fmt, ...);
  int (*CallReplyType)(RedisModuleCallReply* reply);
  long long (*CallReplyInteger)(RedisModuleCallReply* reply);
  const char* (*CallReplyStringPtr)(RedisModuleCallReply* reply, size_t* len);
  long long (*Milliseconds)();
};

// The loaded API (filled by LoadModuleApi).
extern ModuleApi api;

// Fetches every function of ModuleApi through the context's GetApi; false if
// one is missing (a Redis too old or not Redis).
bool LoadModuleApi(RedisModuleCtx* ctx);

// The bytes of a Redis string (valid while Redis keeps the string).
std::string_view View(RedisModuleString* s);

}  // namespace crawlsieve_module

#endif  // SIEVE_REDIS_MODULE_SRC_MODULE_API_H_
