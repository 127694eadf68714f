#include "host_enqueue.h"

#include <cstdlib>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "batch_codec.h"
#include "queue_batch.h"

namespace crawlsieve_module {
namespace {

constexpr char kQueueWrongType[] =
    "WRONGTYPE crawlsieve.push: a NAME:q:HOST key holds a value that is not a list";
constexpr char kCallFailed[] = "ERR crawlsieve.push: a command on the host keys failed";
constexpr char kNotABatch[] =
    "ERR crawlsieve.push: a NAME:q:HOST list holds a queue element that is not of format v4 (nor "
    "a packed v4 batch): a frontier written by another build; not read";

// A lease element (URL, then NUL and the payload if any: queue_batch.h).
void SplitLeaseElement(std::string_view element, std::string_view& url, std::string_view& payload) {
  const size_t nul = element.find('\0');
  url = element.substr(0, nul);
  payload = nul == std::string_view::npos ? std::string_view() : element.substr(nul + 1);
}

}  // namespace

HostEnqueue::HostEnqueue(RedisModuleCtx* ctx, std::string_view prefix,
                         RedisModuleString** urls_and_hosts, size_t n)
    : ctx_(ctx), prefix_(prefix), urls_and_hosts_(urls_and_hosts), n_(n) {}

RedisModuleString* HostEnqueue::QueueKey(RedisModuleString* host) {
  const std::string name = prefix_ + "q:" + std::string(View(host));
  return api.CreateString(ctx_, name.data(), name.size());
}

bool HostEnqueue::ReadPacked() {
  const std::string meta = prefix_ + "meta";
  RedisModuleCallReply* reply = api.Call(ctx_, "GET", "b", meta.data(), meta.size());
  if (reply == nullptr) return false;
  if (api.CallReplyType(reply) == kReplyString) {
    size_t length = 0;
    const char* data = api.CallReplyStringPtr(reply, &length);
    const std::string_view text(data, length);
    const std::string_view field = crawlsieve_wire::kPackedMetaField;
    packed_ = text.size() >= field.size() && text.substr(text.size() - field.size()) == field;
  } else if (api.CallReplyType(reply) != kReplyNull) {
    return false;
  }
  return true;
}

const char* HostEnqueue::Check() {
  if (!ReadPacked()) return kCallFailed;
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < n_; ++i) {
    RedisModuleString* host = urls_and_hosts_[2 * i + 1];
    if (!seen.insert(View(host)).second) continue;
    RedisModuleKey* key = api.OpenKey(ctx_, QueueKey(host), kRead);
    const int type = key == nullptr ? kKeyTypeEmpty : api.KeyType(key);
    // The tail batch is appended to: it must be of this build's format.
    bool batch_ok = true;
    if (type == kKeyTypeList) {
      RedisModuleString* tail = api.ListGet(key, -1);
      std::string_view base;
      size_t pos = 0;
      // A packed tail is inflated (and so checked) when it is appended to.
      batch_ok = tail != nullptr &&
                 (crawlsieve_wire::ReadBatchHeader(View(tail), base, pos) ||
                  (!View(tail).empty() &&
                   static_cast<unsigned char>(View(tail)[0]) == crawlsieve_wire::kPackedVersion));
    }
    if (key != nullptr) api.CloseKey(key);
    if (type != kKeyTypeEmpty && type != kKeyTypeList) return kQueueWrongType;
    if (!batch_ok) return kNotABatch;
  }
  return nullptr;
}

namespace {

// An integer command's reply, or -1 if the call failed.
long long IntegerCall(RedisModuleCtx* ctx, const char* command, const std::string& key,
                      RedisModuleString* member = nullptr) {
  RedisModuleCallReply* reply = member == nullptr
                                    ? api.Call(ctx, command, "b", key.data(), key.size())
                                    : api.Call(ctx, command, "bs", key.data(), key.size(), member);
  if (reply == nullptr || api.CallReplyType(reply) != kReplyInteger) return -1;
  return api.CallReplyInteger(reply);
}

}  // namespace

const char* HostEnqueue::LaneZeroOpened(RedisModuleString* host) {
  const std::string h(View(host));
  const std::string lanes = prefix_ + "lanes:" + h;
  RedisModuleCallReply* higher =
      api.Call(ctx_, "ZCOUNT", "bcc", lanes.data(), lanes.size(), "(0", "+inf");
  if (higher == nullptr || api.CallReplyType(higher) != kReplyInteger) return kCallFailed;
  if (api.CallReplyInteger(higher) > 0) return nullptr;  // lane 0 is not its best
  const std::string cooling = prefix_ + "cooling";
  RedisModuleCallReply* cools =
      api.Call(ctx_, "ZSCORE", "bs", cooling.data(), cooling.size(), host);
  if (cools == nullptr) return kCallFailed;
  if (api.CallReplyType(cools) != kReplyNull) return nullptr;  // placed when its cooldown ends
  const std::string readyat = prefix_ + "readyat";
  RedisModuleCallReply* at = api.Call(ctx_, "HGET", "bs", readyat.data(), readyat.size(), host);
  if (at == nullptr) return kCallFailed;
  if (api.CallReplyType(at) != kReplyString) return nullptr;
  size_t length = 0;
  const char* data = api.CallReplyStringPtr(at, &length);
  const std::string lane(data, length);
  const std::string from = prefix_ + "ready@" + lane;
  const std::string ready = prefix_ + "ready";
  const std::string readylanes = prefix_ + "readylanes";
  if (api.Call(ctx_, "LREM", "bcs", from.data(), from.size(), "1", host) == nullptr ||
      IntegerCall(ctx_, "HDEL", readyat, host) < 0) {
    return kCallFailed;
  }
  const long long left = IntegerCall(ctx_, "LLEN", from);
  if (left < 0) return kCallFailed;
  if (left == 0 && api.Call(ctx_, "ZREM", "bb", readylanes.data(), readylanes.size(), lane.data(),
                            lane.size()) == nullptr) {
    return kCallFailed;
  }
  return IntegerCall(ctx_, "RPUSH", ready, host) < 0 ? kCallFailed : nullptr;
}

const char* HostEnqueue::MakeReady(RedisModuleString* host, long long now) {
  if (View(host).empty()) return nullptr;
  const std::string owners = prefix_ + "hostowners";
  RedisModuleCallReply* held = api.Call(ctx_, "HEXISTS", "bs", owners.data(), owners.size(), host);
  if (held == nullptr || api.CallReplyType(held) != kReplyInteger) return kCallFailed;
  if (api.CallReplyInteger(held) == 1) return nullptr;
  // A host with URLs in other priority lanes (lua/prelude.lua, "lanes") is
  // in a ready list already, or cooling: lane 0 may only be its new best.
  const long long other_lanes =
      IntegerCall(ctx_, "ZCARD", prefix_ + "lanes:" + std::string(View(host)));
  if (other_lanes < 0) return kCallFailed;
  if (other_lanes > 0) return LaneZeroOpened(host);
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

const char* HostEnqueue::AppendBatches(RedisModuleKey* queue, bool was_empty,
                                       const std::vector<RedisModuleString*>& elements) {
  // As the Lua script's enqueue: into the tail batch while it stays within
  // the cap, then new batches (queue_batch.h); on a packed frontier every
  // batch written is packed (batch_codec.h), as the script's PACK calls do.
  const size_t cap =
      packed_ ? crawlsieve_wire::kMaxPackedBatchBytes : crawlsieve_wire::kMaxBatchBytes;
  std::vector<std::string> batches;
  if (!was_empty) {
    RedisModuleString* tail = api.ListGet(queue, -1);
    if (tail == nullptr) return kCallFailed;
    batches.emplace_back();
    if (!crawlsieve_wire::BatchOfElement(View(tail), batches[0])) return kNotABatch;
  }
  const size_t old_tail_size = batches.empty() ? 0 : batches[0].size();
  for (RedisModuleString* element : elements) {
    std::string_view url, payload;
    SplitLeaseElement(View(element), url, payload);
    if (batches.empty() || !crawlsieve_wire::AppendToBatch(batches.back(), url, payload, cap)) {
      batches.push_back(crawlsieve_wire::NewBatch(url, payload));
    }
  }
  auto stored = [&](const std::string& batch) {
    const std::string element = packed_ ? crawlsieve_wire::PackBatch(batch) : batch;
    return api.CreateString(ctx_, element.data(), element.size());
  };
  size_t first_new = 0;
  if (!was_empty) {
    if (batches[0].size() != old_tail_size) {
      if (api.ListSet(queue, -1, stored(batches[0])) != kOk) return kCallFailed;
    }
    first_new = 1;
  }
  for (size_t b = first_new; b < batches.size(); ++b) {
    if (api.ListPush(queue, kListTail, stored(batches[b])) != kOk) return kQueueWrongType;
  }
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
    const bool was_empty = api.ValueLength(queue) == 0;
    if (const char* error = AppendBatches(queue, was_empty, host.urls)) {
      api.CloseKey(queue);
      return error;
    }
    api.CloseKey(queue);
    total += static_cast<long long>(host.urls.size());
    if (was_empty) {
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
