// The crawlsieve Redis module: RedisSieve's push as one command in C++
// (push_command.h), for the throughput the Lua push script cannot reach
// (Redis 7.0 spends ~5 us of Lua per URL; README, "Crawling with several
// machines"). Load it with
//   redis-server --loadmodule /usr/local/lib/crawl/crawlsieve.so
// RedisSieve uses it when the server has it (COMMAND INFO at connect) and
// the Lua script otherwise; both set the same bits and fill the same queues.
// On a Redis Cluster, CRAWLSIEVE.FILTER (filter_command.h) takes the Lua
// filter step's place, per shard, when every primary has the module.
#include "filter_command.h"
#include "module_api.h"
#include "pack_command.h"
#include "push_command.h"

namespace {

constexpr char kModuleName[] = "crawlsieve";
constexpr int kModuleVersion = 1;

}  // namespace

extern "C" __attribute__((visibility("default"))) int RedisModule_OnLoad(RedisModuleCtx* ctx,
                                                                         RedisModuleString**, int) {
  using crawlsieve_module::api;
  using crawlsieve_module::kErr;
  using crawlsieve_module::kOk;
  if (!crawlsieve_module::LoadModuleApi(ctx)) return kErr;
  if (api.IsModuleNameBusy(kModuleName)) return kErr;
  api.SetModuleAttribs(ctx, kModuleName, kModuleVersion, crawlsieve_module::kApiVersion1);
  // No declared keys (0, 0, 0): like the scripts, the command builds its key
  // names from the prefix, so a frontier lives in one Redis, not a cluster.
  if (api.CreateCommand(ctx, "crawlsieve.push", crawlsieve_module::PushCommand, "write deny-oom", 0,
                        0, 0) != kOk) {
    return kErr;
  }
  // Keys 1 and 2 (the shard and its trip record, one slot): a cluster
  // routes and checks it as any keyed command.
  if (api.CreateCommand(ctx, "crawlsieve.filter", crawlsieve_module::FilterCommand,
                        "write deny-oom", 1, 2, 1) != kOk) {
    return kErr;
  }
  // The batch codec for the Lua scripts (pack_command.h): pure, key-less.
  if (api.CreateCommand(ctx, "crawlsieve.pack", crawlsieve_module::PackCommand, "", 0, 0, 0) !=
          kOk ||
      api.CreateCommand(ctx, "crawlsieve.unpack", crawlsieve_module::UnpackCommand, "", 0, 0, 0) !=
          kOk) {
    return kErr;
  }
  return kOk;
}
