#include "push_command.h"

#include <charconv>
#include <string_view>
#include <vector>

#include "filter_bits.h"
#include "host_enqueue.h"
#include "push_wire.h"

namespace crawlsieve_module {
namespace {

// argv: CRAWLSIEVE.PUSH prefix k probes (url host)*
constexpr int kFixedArgs = 4;

struct PushArgs {
  std::string_view prefix;
  uint32_t k = 0;
  const unsigned char* probes = nullptr;
  size_t n = 0;
  RedisModuleString** urls_and_hosts = nullptr;
};

// Fills `args` from argv (arity checked by the caller); an error text or
// nullptr. Every length is checked before the probes are read.
const char* Parse(RedisModuleString** argv, int argc, PushArgs& args) {
  args.prefix = View(argv[1]);
  const std::string_view k = View(argv[2]);
  const auto [end, error] = std::from_chars(k.data(), k.data() + k.size(), args.k);
  if (error != std::errc() || end != k.data() + k.size() || args.k < 1 ||
      args.k > crawlsieve_wire::kMaxHashCount) {
    return "ERR crawlsieve.push: k must be an integer in [1, 64]";
  }
  args.n = static_cast<size_t>(argc - kFixedArgs) / 2;
  const std::string_view probes = View(argv[3]);
  if (probes.size() != args.n * args.k * crawlsieve_wire::kProbeBytes) {
    return "ERR crawlsieve.push: the probes argument must be n * k * 8 bytes";
  }
  args.probes = reinterpret_cast<const unsigned char*>(probes.data());
  args.urls_and_hosts = argv + kFixedArgs;
  return nullptr;
}

}  // namespace

int PushCommand(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc < kFixedArgs || (argc - kFixedArgs) % 2 != 0) return api.WrongArity(ctx);
  api.AutoMemory(ctx);
  PushArgs args;
  if (const char* error = Parse(argv, argc, args)) return api.ReplyWithError(ctx, error);
  FilterBits bits(ctx, args.prefix, args.probes, args.n, args.k);
  HostEnqueue enqueue(ctx, args.prefix, args.urls_and_hosts, args.n);
  const char* error = bits.Open();
  if (error == nullptr) error = enqueue.Check();
  if (error != nullptr) return api.ReplyWithError(ctx, error);  // nothing written
  std::vector<bool> fresh;
  error = bits.TestAndSet(fresh);
  if (error == nullptr) error = enqueue.Push(fresh);
  // Replicated even after an error here: what was written before it must
  // reach the replicas too (no error is expected past the checks above).
  api.ReplicateVerbatim(ctx);
  if (error != nullptr) return api.ReplyWithError(ctx, error);
  std::string reply(args.n, '0');
  for (size_t i = 0; i < args.n; ++i) {
    if (fresh[i]) reply[i] = '1';
  }
  return api.ReplyWithStringBuffer(ctx, reply.data(), reply.size());
}

}  // namespace crawlsieve_module
