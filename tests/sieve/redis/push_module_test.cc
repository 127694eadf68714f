// The crawlsieve module's CRAWLSIEVE.PUSH (sieve/redis_module/) against the
// Lua push script it replaces: RedisSieve uses it when the server has it,
// it writes byte for byte the bits and the queues the script writes (host
// lists, NAME:ready, NAME:cooling, NAME:queued), a filter written by one
// path answers "seen" on the other, and bad arguments are error replies,
// never a crash. Our own design (built to a push-speed target);
// redis-server from PATH on 127.0.0.1, started with the module.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "redis_fixture/redis_server.h"
#include "sieve/redis/queued_urls.h"
#include "sieve/redis_sieve.h"
#include "url_origin.h"

namespace sieve {
namespace {

using sieve_test::HostOf;

std::string PushUrl(uint64_t i) { return absl::StrCat("https://h", i % 13, ".example/p/", i); }

std::vector<std::string> Urls(uint64_t first, uint64_t count) {
  std::vector<std::string> urls;
  for (uint64_t i = first; i < first + count; ++i) urls.push_back(PushUrl(i));
  return urls;
}

// Little-endian u32 pairs, as push_wire.h packs a probe.
std::string Probe(uint32_t shard, uint32_t offset) {
  std::string out;
  for (uint32_t v : {shard, offset}) {
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<char>(v >> (8 * b)));
  }
  return out;
}

class PushModuleTest : public testing::Test {
 protected:
  void SetUp() override {
    absl::Status started = redis_.Start();
    ASSERT_TRUE(started.ok()) << started;
  }

  std::unique_ptr<RedisSieve> Connect(const std::string& name, bool module, bool hosts,
                                      uint64_t shard_bytes = uint64_t{512} << 20,
                                      bool packed = true) {
    RedisSieveOptions options = redis_.Options(name);
    options.pack_queue_batches = packed;
    options.expected_count = 500;  // small: many false positives, so any bit out of place shows
    options.shard_bytes = shard_bytes;
    options.use_push_module = module;
    if (hosts) options.host_key = HostOf;
    absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
    EXPECT_TRUE(sieve.ok()) << sieve.status();
    if (!sieve.ok()) return nullptr;
    EXPECT_EQ((*sieve)->uses_push_module(), module);
    return *std::move(sieve);
  }

  // Pushes `urls` in batches of 100; the per-URL answers.
  static std::vector<bool> PushAll(RedisSieve& sieve, const std::vector<std::string>& urls) {
    std::vector<std::string_view> views(urls.begin(), urls.end());
    std::unique_ptr<bool[]> accepted(new bool[urls.size()]);
    for (size_t i = 0; i < urls.size(); i += 100) {
      const size_t n = std::min<size_t>(100, urls.size() - i);
      sieve.PushBatch(absl::MakeSpan(views.data() + i, n), absl::MakeSpan(accepted.get() + i, n));
    }
    return std::vector<bool>(accepted.get(), accepted.get() + urls.size());
  }

  std::string Get(const std::string& key) const { return redis_.Command({"GET", key}); }
  // The list's elements, bytes as stored (v4 batches): compared between paths.
  std::vector<std::string> List(const std::string& key) const { return redis_.ListElements(key); }

  sieve_test::RedisServer redis_{/*with_module=*/true};
};

TEST_F(PushModuleTest, RedisSieveUsesTheModuleWhenTheServerHasIt) {
  auto sieve = Connect("used", /*module=*/true, /*hosts=*/false);
  ASSERT_TRUE(sieve);
  EXPECT_TRUE(sieve->Push("https://a.example/"));
  EXPECT_FALSE(sieve->Push("https://a.example/"));
  const std::string stats = redis_.Command({"INFO", "commandstats"});
  EXPECT_NE(stats.find("cmdstat_crawlsieve.push:calls=2"), std::string::npos) << stats;
  EXPECT_EQ(stats.find("cmdstat_evalsha"), std::string::npos) << stats;

  sieve_test::RedisServer plain;  // no module: the Lua script
  ASSERT_TRUE(plain.Start().ok());
  absl::StatusOr<std::unique_ptr<RedisSieve>> lua = RedisSieve::Connect(plain.Options("lua"));
  ASSERT_TRUE(lua.ok()) << lua.status();
  EXPECT_FALSE((*lua)->uses_push_module());
  EXPECT_TRUE((*lua)->Push("https://a.example/"));
}

// Both paths, fed the same URLs (with repeats and false positives) into two
// frontiers, leave the same bytes in every key the push writes, with one
// shard and with many.
TEST_F(PushModuleTest, BothPathsWriteTheSameBitsQueuesAndReadyHosts) {
  for (const uint64_t shard_bytes : {uint64_t{512} << 20, uint64_t{64}}) {
    SCOPED_TRACE(shard_bytes);
    const std::string lua_name = absl::StrCat("lua", shard_bytes);
    const std::string mod_name = absl::StrCat("mod", shard_bytes);
    // Host h1 is held by another client and h2 cools down for a minute, in
    // both frontiers: neither may go to NAME:ready; h2 goes to NAME:cooling.
    const std::string cool_until = std::to_string(
        std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::system_clock::now().time_since_epoch() + std::chrono::minutes(1))
            .count());
    for (const std::string& name : {lua_name, mod_name}) {
      redis_.Command({"HSET", name + ":hostowners", "https://h1.example", "someone"});
      redis_.Command({"SET", name + ":cool:https://h2.example", cool_until, "PX", "60000"});
    }
    auto lua = Connect(lua_name, /*module=*/false, /*hosts=*/true, shard_bytes);
    auto mod = Connect(mod_name, /*module=*/true, /*hosts=*/true, shard_bytes);
    ASSERT_TRUE(lua && mod);
    std::vector<std::string> urls = Urls(0, 1500);
    const std::vector<std::string> again = Urls(700, 200);  // repeats, in a later batch
    urls.insert(urls.end(), again.begin(), again.end());
    const std::vector<bool> by_lua = PushAll(*lua, urls);
    const std::vector<bool> by_mod = PushAll(*mod, urls);
    EXPECT_EQ(by_lua, by_mod);
    size_t accepted = 0;
    for (bool a : by_lua) accepted += a;
    EXPECT_LT(accepted, 1400u);  // the filter saturated: false positives compared too
    EXPECT_GT(accepted, 400u);
    const uint64_t shards = (lua->bit_count() + shard_bytes * 8 - 1) / (shard_bytes * 8);
    for (uint64_t s = 0; s < shards; ++s) {
      const std::string suffix = absl::StrCat(":bits:", s);
      EXPECT_EQ(Get(lua_name + suffix), Get(mod_name + suffix)) << suffix;
    }
    EXPECT_FALSE(Get(mod_name + ":bits:0").empty());
    for (int h = 0; h < 13; ++h) {
      const std::string suffix = absl::StrCat(":q:https://h", h, ".example");
      EXPECT_EQ(List(lua_name + suffix), List(mod_name + suffix)) << suffix;
    }
    EXPECT_EQ(Get(lua_name + ":queued"), Get(mod_name + ":queued"));
    EXPECT_EQ(Get(mod_name + ":queued"), std::to_string(accepted));
    EXPECT_EQ(List(lua_name + ":ready"), List(mod_name + ":ready"));
    const std::string ready = redis_.Command({"LRANGE", mod_name + ":ready", "0", "-1"});
    EXPECT_EQ(ready.find("h1.example"), std::string::npos);
    EXPECT_EQ(ready.find("h2.example"), std::string::npos);
    EXPECT_EQ(redis_.Command({"ZRANGE", lua_name + ":cooling", "0", "-1", "WITHSCORES"}),
              redis_.Command({"ZRANGE", mod_name + ":cooling", "0", "-1", "WITHSCORES"}));
    EXPECT_EQ(redis_.Command({"ZSCORE", mod_name + ":cooling", "https://h2.example"}), cool_until);
  }
}

TEST_F(PushModuleTest, AFilterWrittenByOnePathAnswersSeenOnTheOther) {
  auto lua = Connect("mixed", /*module=*/false, /*hosts=*/true);
  auto mod = Connect("mixed", /*module=*/true, /*hosts=*/true);
  ASSERT_TRUE(lua && mod);
  const std::vector<std::string> first = Urls(0, 300), second = Urls(300, 300);
  const std::vector<bool> lua_first = PushAll(*lua, first);
  for (bool seen_again : PushAll(*mod, first)) EXPECT_FALSE(seen_again);
  const std::vector<bool> mod_second = PushAll(*mod, second);
  for (bool seen_again : PushAll(*lua, second)) EXPECT_FALSE(seen_again);
  size_t accepted = 0;
  for (bool a : lua_first) accepted += a;
  for (bool a : mod_second) accepted += a;
  EXPECT_GT(accepted, 450u);
  // Everything either accepted is queued once and comes out of the Lua pop.
  EXPECT_EQ(Get("mixed:queued"), std::to_string(accepted));
  size_t popped = 0;
  while (std::optional<std::string> url = lua->TryPop()) {
    ++popped;
    lua->MarkDone(*url);
  }
  EXPECT_EQ(popped, accepted);
}

TEST_F(PushModuleTest, ALuaClientAndAModuleClientEnqueueEachUrlOnceUnderConcurrency) {
  RedisSieveOptions options = redis_.Options("both");
  options.expected_count = 100000;
  options.push_batch_size = 16;  // many small calls, so the two paths interleave
  options.use_push_module = false;
  absl::StatusOr<std::unique_ptr<RedisSieve>> lua = RedisSieve::Connect(options);
  options.use_push_module = true;
  absl::StatusOr<std::unique_ptr<RedisSieve>> mod = RedisSieve::Connect(options);
  ASSERT_TRUE(lua.ok() && mod.ok());
  ASSERT_TRUE((*mod)->uses_push_module());
  const std::vector<std::string> urls = Urls(0, 4000);
  std::atomic<uint64_t> accepted{0};
  auto pusher = [&](RedisSieve* sieve, uint32_t seed) {
    std::vector<std::string_view> mine(urls.begin(), urls.end());
    std::shuffle(mine.begin(), mine.end(), std::mt19937(seed));
    for (size_t i = 0; i < mine.size(); i += 50) {
      accepted +=
          sieve->PushBatch(absl::MakeSpan(mine.data() + i, std::min<size_t>(50, mine.size() - i)));
    }
  };
  std::thread a(pusher, lua->get(), 1), b(pusher, mod->get(), 2);
  a.join();
  b.join();
  // Each URL queued at most once, the queue is exactly what was reported
  // accepted, and only a few were lost to false positives (p far below 1%).
  const std::vector<std::string> queued = sieve_test::QueuedUrls(redis_, "both:q:");
  EXPECT_EQ(std::set<std::string>(queued.begin(), queued.end()).size(), queued.size());
  EXPECT_EQ(queued.size(), accepted.load());
  EXPECT_GE(accepted.load(), 3990u);
}

// A frontier of plain v4 batches: Lua reads and writes them without the
// module (a packed frontier cannot: the next test).
TEST_F(PushModuleTest, AServerThatLostTheModuleGetsTheLuaScriptInstead) {
  auto sieve = Connect("unloaded", /*module=*/true, /*hosts=*/false, uint64_t{512} << 20,
                       /*packed=*/false);
  ASSERT_FALSE(sieve->packs_queue_batches());
  ASSERT_TRUE(sieve);
  const std::vector<std::string> first = Urls(0, 200), second = Urls(200, 200);
  PushAll(*sieve, first);
  ASSERT_EQ(redis_.Command({"MODULE", "UNLOAD", "crawlsieve"}), "OK");
  size_t accepted = 0;
  for (bool a : PushAll(*sieve, second)) accepted += a;
  EXPECT_GT(accepted, 150u);
  for (bool seen_again : PushAll(*sieve, first)) EXPECT_FALSE(seen_again);
  EXPECT_TRUE(sieve->Health().ok()) << sieve->Health();
  EXPECT_FALSE(sieve->uses_push_module());
  EXPECT_NE(redis_.Command({"INFO", "commandstats"}).find("cmdstat_evalsha"), std::string::npos);
}

// A packed frontier needs CRAWLSIEVE.PACK and UNPACK: without them the
// client stops with an error naming NAME:meta and the module, and the
// queue is left as it was.
TEST_F(PushModuleTest, APackedFrontierWhoseServerLostTheModuleStopsNamingIt) {
  auto sieve = Connect("lost", /*module=*/true, /*hosts=*/false);
  ASSERT_TRUE(sieve);
  ASSERT_TRUE(sieve->packs_queue_batches());
  PushAll(*sieve, Urls(0, 200));
  const std::vector<std::string> before = List("lost:q:");
  ASSERT_EQ(redis_.Command({"MODULE", "UNLOAD", "crawlsieve"}), "OK");
  for (bool accepted : PushAll(*sieve, Urls(200, 100))) EXPECT_FALSE(accepted);
  const absl::Status health = sieve->Health();
  EXPECT_FALSE(health.ok());
  EXPECT_NE(health.message().find("lost:meta says the host queues hold packed batches"),
            std::string::npos)
      << health;
  EXPECT_NE(health.message().find("crawlsieve module must be loaded"), std::string::npos) << health;
  EXPECT_EQ(List("lost:q:"), before);
}

TEST_F(PushModuleTest, BadArgumentsAreErrorRepliesAndTheServerLives) {
  auto expect_error = [&](const std::vector<std::string>& command, const std::string& what) {
    const std::string reply = redis_.Command(command);
    EXPECT_TRUE(reply.rfind("ERR", 0) == 0 || reply.rfind("WRONGTYPE", 0) == 0)
        << what << ": " << reply;
  };
  expect_error({"CRAWLSIEVE.PUSH"}, "no arguments");
  expect_error({"CRAWLSIEVE.PUSH", "x:", "1", Probe(0, 1), "https://a/"}, "URL without host");
  expect_error({"CRAWLSIEVE.PUSH", "x:", "0", "", "https://a/", ""}, "k = 0");
  expect_error({"CRAWLSIEVE.PUSH", "x:", "65", Probe(0, 1), "https://a/", ""}, "k = 65");
  expect_error({"CRAWLSIEVE.PUSH", "x:", "1x", Probe(0, 1), "https://a/", ""}, "k not a number");
  expect_error({"CRAWLSIEVE.PUSH", "x:", "2", Probe(0, 1), "https://a/", ""}, "probes short");
  expect_error({"CRAWLSIEVE.PUSH", "x:", "1", Probe(0, 1) + "z", "https://a/", ""}, "probes long");
  expect_error({"CRAWLSIEVE.PUSH", "x:", "1", "", "https://a/", ""}, "probes empty");
  redis_.Command({"RPUSH", "x:bits:3", "not a bitmap"});
  expect_error({"CRAWLSIEVE.PUSH", "x:", "1", Probe(3, 1), "https://a/", ""}, "bits a list");
  redis_.Command({"SET", "x:q:https://b", "not a list"});
  expect_error({"CRAWLSIEVE.PUSH", "x:", "1", Probe(0, 9), "https://b/1", "https://b"},
               "queue a string");
  EXPECT_EQ(redis_.Command({"EXISTS", "x:bits:0"}), "0");  // refused before any write
  EXPECT_EQ(redis_.Command({"PING"}), "PONG");
  // A good one, by hand: bit 9 of shard 0 is bit 6 (from the top) of byte 1.
  EXPECT_EQ(redis_.Command({"CRAWLSIEVE.PUSH", "x:", "1", Probe(0, 9), "https://a/", ""}), "1");
  EXPECT_EQ(redis_.Command({"GETBIT", "x:bits:0", "9"}), "1");
  EXPECT_EQ(redis_.Command({"STRLEN", "x:bits:0"}), "2");
  EXPECT_EQ(redis_.Command({"CRAWLSIEVE.PUSH", "x:", "1", Probe(0, 9), "https://a/", ""}), "0");
  EXPECT_EQ(sieve_test::QueuedUrls(redis_, "x:q:"), std::vector<std::string>{"https://a/"});
  EXPECT_EQ(redis_.Command({"CRAWLSIEVE.PUSH", "x:", "1", ""}), "");  // no URLs: nothing to do
}

}  // namespace
}  // namespace sieve
