#include "filter_bits.h"

#include <string>
#include <unordered_map>

#include "push_wire.h"

namespace crawlsieve_module {
namespace {

constexpr char kBitsWrongType[] =
    "WRONGTYPE crawlsieve.push: a NAME:bits:I key holds a value that is not a string";

}  // namespace

FilterBits::FilterBits(RedisModuleCtx* ctx, std::string_view prefix, const unsigned char* probes,
                       size_t n, uint32_t k)
    : ctx_(ctx), prefix_(prefix), probes_(probes), n_(n), k_(k) {}

const char* FilterBits::Open() {
  // The blocked layout puts a URL's k probes in one shard and most batches
  // in a few: remember the last shard before asking the map.
  std::unordered_map<uint32_t, uint32_t> slot_of_shard;
  uint32_t last_shard = 0, last_slot = UINT32_MAX;
  shard_of_probe_.resize(n_ * k_);
  for (size_t p = 0; p < n_ * k_; ++p) {
    const crawlsieve_wire::Probe probe = crawlsieve_wire::ReadProbe(probes_, p);
    if (last_slot == UINT32_MAX || probe.shard != last_shard) {
      auto [it, inserted] =
          slot_of_shard.emplace(probe.shard, static_cast<uint32_t>(shards_.size()));
      if (inserted) shards_.push_back(Shard{probe.shard});
      last_shard = probe.shard;
      last_slot = it->second;
    }
    shard_of_probe_[p] = last_slot;
    Shard& shard = shards_[last_slot];
    const size_t needed = size_t{probe.offset} / 8 + 1;
    if (needed > shard.bytes_needed) shard.bytes_needed = needed;
  }
  for (Shard& shard : shards_) {
    const std::string name = std::string(prefix_) + "bits:" + std::to_string(shard.index);
    shard.key = api.OpenKey(ctx_, api.CreateString(ctx_, name.data(), name.size()), kRead | kWrite);
    const int type = api.KeyType(shard.key);
    if (type != kKeyTypeEmpty && type != kKeyTypeString) return kBitsWrongType;
  }
  return nullptr;
}

unsigned char* WritableBits(RedisModuleKey* key, size_t bytes_needed) {
  size_t length = api.ValueLength(key);
  if (length < bytes_needed && api.StringTruncate(key, bytes_needed) != kOk) return nullptr;
  auto* bytes = reinterpret_cast<unsigned char*>(api.StringDMA(key, &length, kWrite));
  return length < bytes_needed ? nullptr : bytes;
}

const char* FilterBits::Grow(Shard& shard) {
  shard.bytes = WritableBits(shard.key, shard.bytes_needed);
  if (shard.bytes == nullptr)
    return "ERR crawlsieve.push: cannot grow or write a NAME:bits:I string";
  return nullptr;
}

const char* FilterBits::TestAndSet(std::vector<bool>& fresh) {
  for (Shard& shard : shards_) {
    if (const char* error = Grow(shard)) return error;
  }
  fresh.assign(n_, false);
  for (size_t url = 0; url < n_; ++url) {
    bool any_was_zero = false;
    for (size_t p = url * k_; p < (url + 1) * k_; ++p) {
      const uint32_t offset = crawlsieve_wire::ReadProbe(probes_, p).offset;
      if (TestAndSetBit(shards_[shard_of_probe_[p]].bytes, offset)) any_was_zero = true;
    }
    fresh[url] = any_was_zero;
  }
  return nullptr;
}

}  // namespace crawlsieve_module
