#include "filter_command.h"

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "filter_bits.h"
#include "filter_wire.h"

namespace crawlsieve_module {
namespace {

// argv: CRAWLSIEVE.FILTER shard_key trip_key trip_id k mode record_ms offsets
constexpr int kFilterArgs = 8;

enum class FilterMode { kRun, kReplay, kAll };

struct FilterArgs {
  uint64_t trip = 0;
  uint32_t k = 0;
  FilterMode mode = FilterMode::kRun;
  long long record_ms = 0;
  const unsigned char* offsets = nullptr;
  size_t n = 0;
};

// A whole decimal string as an integer; false if anything else.
template <typename T>
bool ParseWhole(std::string_view text, T& out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

const char* ParseFilterArgs(RedisModuleString** argv, FilterArgs& args) {
  if (!ParseWhole(View(argv[3]), args.trip)) {
    return "ERR crawlsieve.filter: the trip id must be an unsigned integer";
  }
  if (!ParseWhole(View(argv[4]), args.k) || args.k < 1 || args.k > crawlsieve_wire::kMaxHashCount) {
    return "ERR crawlsieve.filter: k must be an integer in [1, 64]";
  }
  const std::string_view mode = View(argv[5]);
  if (mode == "run") {
    args.mode = FilterMode::kRun;
  } else if (mode == "replay") {
    args.mode = FilterMode::kReplay;
  } else if (mode == "all") {
    args.mode = FilterMode::kAll;
  } else {
    return "ERR crawlsieve.filter: mode must be run, replay or all";
  }
  if (!ParseWhole(View(argv[6]), args.record_ms) || args.record_ms < 1) {
    return "ERR crawlsieve.filter: the record's life must be a positive integer (ms)";
  }
  const std::string_view offsets = View(argv[7]);
  const size_t per_url = size_t{args.k} * crawlsieve_wire::kOffsetBytes;
  if (offsets.size() % per_url != 0) {
    return "ERR crawlsieve.filter: the offsets argument must be n * k * 4 bytes";
  }
  args.offsets = reinterpret_cast<const unsigned char*>(offsets.data());
  args.n = offsets.size() / per_url;
  return nullptr;
}

// Opens `name` for writing; its type must be a string or none.
const char* OpenStringKey(RedisModuleCtx* ctx, RedisModuleString* name, RedisModuleKey*& key) {
  key = api.OpenKey(ctx, name, kRead | kWrite);
  const int type = api.KeyType(key);
  if (type != kKeyTypeEmpty && type != kKeyTypeString) {
    return "WRONGTYPE crawlsieve.filter: a key holds a value that is not a string";
  }
  return nullptr;
}

// The trip record "<id> <reply>" split at its first space.
bool ParseRecord(std::string_view record, uint64_t& trip, std::string_view& reply) {
  const size_t space = record.find(' ');
  if (space == std::string_view::npos || !ParseWhole(record.substr(0, space), trip)) return false;
  reply = record.substr(space + 1);
  return true;
}

// Tests and sets each URL's k bits in URL order; the reply's characters.
const char* TestAndSetUrls(RedisModuleKey* shard, const FilterArgs& args, std::string& flags) {
  flags.assign(args.n, args.mode == FilterMode::kAll ? '1' : '0');
  if (args.n == 0) return nullptr;
  uint32_t highest = 0;
  for (size_t p = 0; p < args.n * args.k; ++p) {
    const uint32_t offset =
        crawlsieve_wire::ReadU32(args.offsets + p * crawlsieve_wire::kOffsetBytes);
    if (offset > highest) highest = offset;
  }
  unsigned char* bits = WritableBits(shard, size_t{highest} / 8 + 1);
  if (bits == nullptr) return "ERR crawlsieve.filter: cannot grow or write the shard string";
  for (size_t url = 0; url < args.n; ++url) {
    for (size_t p = url * args.k; p < (url + 1) * args.k; ++p) {
      const uint32_t offset =
          crawlsieve_wire::ReadU32(args.offsets + p * crawlsieve_wire::kOffsetBytes);
      if (TestAndSetBit(bits, offset)) flags[url] = '1';
    }
  }
  return nullptr;
}

}  // namespace

int FilterCommand(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != kFilterArgs) return api.WrongArity(ctx);
  api.AutoMemory(ctx);
  FilterArgs args;
  if (const char* error = ParseFilterArgs(argv, args)) return api.ReplyWithError(ctx, error);
  RedisModuleKey* shard = nullptr;
  RedisModuleKey* record = nullptr;
  const char* error = OpenStringKey(ctx, argv[1], shard);
  if (error == nullptr) error = OpenStringKey(ctx, argv[2], record);
  if (error != nullptr) return api.ReplyWithError(ctx, error);
  if (api.KeyType(record) == kKeyTypeString) {
    size_t length = 0;
    const char* bytes = api.StringDMA(record, &length, kRead);
    uint64_t last_trip = 0;
    std::string_view last_reply;
    if (!ParseRecord(std::string_view(bytes, length), last_trip, last_reply)) {
      return api.ReplyWithError(ctx,
                                "ERR crawlsieve.filter: the trip record is not '<id> <reply>'");
    }
    if (last_trip == args.trip) {
      return api.ReplyWithStringBuffer(ctx, last_reply.data(), last_reply.size());
    }
    if (last_trip > args.trip && args.mode != FilterMode::kRun) {
      return api.ReplyWithStringBuffer(ctx, "", 0);  // its client finished this trip
    }
  }
  std::string flags;
  if (const char* failed = TestAndSetUrls(shard, args, flags)) {
    return api.ReplyWithError(ctx, failed);  // no bit set (at most zeros appended)
  }
  const std::string text = std::string(View(argv[3])) + " " + flags;
  if (api.StringSet(record, api.CreateString(ctx, text.data(), text.size())) != kOk ||
      api.SetExpire(record, args.record_ms) != kOk) {
    api.ReplicateVerbatim(ctx);  // the bits were set: the replicas must set them too
    return api.ReplyWithError(ctx, "ERR crawlsieve.filter: cannot write the trip record");
  }
  api.ReplicateVerbatim(ctx);
  return api.ReplyWithStringBuffer(ctx, flags.data(), flags.size());
}

}  // namespace crawlsieve_module
