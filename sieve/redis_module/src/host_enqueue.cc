#include "host_enqueue.h"

#include <cstdlib>
#include <unordered_map>
#include <unordered_set>

namespace crawlsieve_module {
namespace {

constexpr char kQueueWrongType[] =
    "WRONGTYPE crawlsieve.push: a NAME:q:HOST key holds a value that is not a list";
constexpr char kCallFailed[] = "ERR crawlsieve.push: a command on the host keys failed";

}  // namespace

HostEnqueue::HostEnqueue(RedisModuleCtx* ctx, std::string_view prefix,
                         RedisModuleString** urls_and_hosts, size_t n)
    : ctx_(ctx), prefix_(prefix), urls_and_hosts_(urls_and_hosts), n_(n) {}

RedisModuleString* HostEnqueue::QueueKey(RedisModuleString* host) {
  const std::string name = prefix_ + "q:" + std::string(View(host));
  return api.CreateString(ctx_, name.data(), name.size());
}

const char* HostEnqueue::Check() {
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < n_; ++i) {
    RedisModuleString* host = urls_and_hosts_[2 * i + 1];
    if (!seen.insert(View(host)).second) continue;
    RedisModuleKey* key = api.OpenKey(ctx_, QueueKey(host), kRead);
    const int type = key == nullptr ? kKeyTypeEmpty : api.KeyType(key);
    if (key != nullptr) api.CloseKey(key);
    if (type != kKeyTypeEmpty && type != kKeyTypeList) return kQueueWrongType;
  }
  return nullptr;
}

const char* HostEnqueue::MakeReady(RedisModuleString* host, long long now) {
  if (View(host).empty()) return nullptr;
  const std::string owners = prefix_ + "hostowners";
  RedisModuleCallReply* held = api.Call(ctx_, "HEXISTS", "bs", owners.data(), owners.size(), host);
  if (held == nullptr || api.CallReplyType(held) != kReplyInteger) return kCallFailed;
  if (api.CallReplyInteger(held) == 1) return nullptr;
  const std::string cool_key = prefix_ + "cool:" + std::string(View(host));
  RedisModuleCallReply* cool = api.Call(ctx_, "GET", "b", cool_key.data(), cool_key.size());
  if (cool == nullptr) return kCallFailed;
  std::string cool_text = "0";
  if (api.CallReplyType(cool) == kReplyString) {
    size_t length = 0;
    const char* data = api.CallReplyStringPtr(cool, &length);
    cool_text.assign(data, length);
  } else if (api.CallReplyType(cool) != kReplyNull) {
    return kCallFailed;
  }
  // As Lua's tonumber: the value was written by the scripts as a number.
  const double cool_until = std::strtod(cool_text.c_str(), nullptr);
  RedisModuleCallReply* done;
  if (cool_until > static_cast<double>(now)) {
    const std::string cooling = prefix_ + "cooling";
    done = api.Call(ctx_, "ZADD", "bbs", cooling.data(), cooling.size(), cool_text.data(),
                    cool_text.size(), host);
  } else {
    const std::string ready = prefix_ + "ready";
    done = api.Call(ctx_, "RPUSH", "bs", ready.data(), ready.size(), host);
  }
  if (done == nullptr || api.CallReplyType(done) == kReplyError) return kCallFailed;
  return nullptr;
}

const char* HostEnqueue::Push(const std::vector<bool>& fresh) {
  std::vector<Host> hosts;
  std::unordered_map<std::string_view, size_t> host_index;
  for (size_t i = 0; i < n_; ++i) {
    if (!fresh[i]) continue;
    RedisModuleString* host = urls_and_hosts_[2 * i + 1];
    auto [it, inserted] = host_index.emplace(View(host), hosts.size());
    if (inserted) hosts.push_back(Host{host, {}});
    hosts[it->second].urls.push_back(urls_and_hosts_[2 * i]);
  }
  if (hosts.empty()) return nullptr;
  const long long now = api.Milliseconds();
  long long total = 0;
  for (const Host& host : hosts) {
    RedisModuleKey* queue = api.OpenKey(ctx_, QueueKey(host.name), kRead | kWrite);
    for (RedisModuleString* url : host.urls) {
      if (api.ListPush(queue, kListTail, url) != kOk) return kQueueWrongType;
    }
    const size_t length = api.ValueLength(queue);
    api.CloseKey(queue);
    total += static_cast<long long>(host.urls.size());
    if (length == host.urls.size()) {
      if (const char* error = MakeReady(host.name, now)) return error;
    }
  }
  const std::string queued = prefix_ + "queued";
  RedisModuleCallReply* counted =
      api.Call(ctx_, "INCRBY", "bl", queued.data(), queued.size(), total);
  if (counted == nullptr || api.CallReplyType(counted) != kReplyInteger) return kCallFailed;
  return nullptr;
}

}  // namespace crawlsieve_module
