// RedisSieve on a Redis Cluster: the slot function against the spec and the
// server, the key layout (fleet keys in one slot, the filter spread), the
// push's resend records, and the client riding out a slot migration
// (ASK, then MOVED) and a primary's failover to its replica with nothing
// lost or duplicated. The contract suite runs on a cluster too
// (contract_test.cc, RedisCluster).
#include <hiredis/hiredis.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "redis_fixture/redis_cluster.h"
#include "redis_fixture/redis_server.h"
#include "sieve/redis/queued_urls.h"
#include "sieve/redis_sieve.h"
// The routing and the scripts are internal to sieve::redis; their contracts
// are pinned here, where a cluster is at hand.
#include "../../../sieve/src/redis/cluster/cluster_connection.h"
#include "../../../sieve/src/redis/cluster/key_slot.h"
#include "../../../sieve/src/redis/filter_layout.h"
#include "../../../sieve/src/redis/queue_element.h"
#include "../../../sieve/src/redis/scripts.h"

namespace sieve {
namespace {

using internal::KeySlot;

std::vector<std::string> ClusterUrls(const std::string& tag, int count) {
  std::vector<std::string> urls;
  for (int i = 0; i < count; ++i) {
    urls.push_back(absl::StrCat("https://h", i % 13, ".example/", tag, "/", i));
  }
  return urls;
}

// The host partition of the URLs above: "https://hN.example".
std::string HostOfUrl(std::string_view url) { return std::string(url.substr(0, url.find('/', 8))); }

size_t PushAll(RedisSieve& sieve, const std::vector<std::string>& urls) {
  std::vector<std::string_view> views(urls.begin(), urls.end());
  return sieve.PushBatch(views);
}

// Pops until finished, acking each; the URLs in pop order.
std::vector<std::string> DrainAll(RedisSieve& sieve) {
  std::vector<std::string> popped;
  while (std::optional<std::string> url = sieve.PopFor(std::chrono::seconds(20))) {
    popped.push_back(*url);
    EXPECT_TRUE(sieve.MarkDone(*url));
  }
  return popped;
}

void ExpectEachOnce(std::vector<std::string> popped, std::vector<std::string> expected) {
  std::sort(popped.begin(), popped.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(std::adjacent_find(popped.begin(), popped.end()), popped.end()) << "a duplicate";
  EXPECT_EQ(popped.size(), expected.size());
  EXPECT_TRUE(popped == expected) << "popped != pushed";
}

// The spec's check value, and what a key's hash tag selects (the spec's
// examples: "{user1000}.following", "foo{}{bar}", "foo{{bar}}zap").
TEST(ClusterKeySlotTest, SpecValues) {
  EXPECT_EQ(internal::Crc16("123456789"), 0x31C3);
  EXPECT_EQ(KeySlot("123456789"), 0x31C3 % 16384);
  EXPECT_EQ(KeySlot("{user1000}.following"), KeySlot("{user1000}.followers"));
  EXPECT_EQ(KeySlot("{user1000}.following"), KeySlot("user1000"));
  EXPECT_EQ(KeySlot("foo{}{bar}"), internal::Crc16("foo{}{bar}") % 16384);  // empty tag: whole key
  EXPECT_EQ(KeySlot("foo{{bar}}zap"), KeySlot("{bar"));
  EXPECT_EQ(KeySlot("foo{bar}{zap}"), KeySlot("bar"));
}

TEST(ClusterUrlTest, ParsesNodesAndSpreadsTheFilter) {
  absl::StatusOr<RedisSieveOptions> o =
      ParseRedisUrl("redis-cluster://10.0.0.1:7000,10.0.0.2:7001/news?lease_ms=5000&max_hosts=2");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->cluster_nodes, (std::vector<std::string>{"10.0.0.1:7000", "10.0.0.2:7001"}));
  EXPECT_EQ(o->name, "news");
  EXPECT_EQ(o->shard_bytes, kClusterShardBytes);
  EXPECT_EQ(o->lease_time, std::chrono::milliseconds(5000));
  EXPECT_EQ(o->max_hosts, 2u);
  EXPECT_FALSE(ParseRedisUrl("redis://10.0.0.1/news?max_hosts=0").ok());
  EXPECT_FALSE(ParseRedisUrl("redis-cluster://10.0.0.1/news").ok());  // a node needs its port
  EXPECT_FALSE(ParseRedisUrl("redis-cluster://10.0.0.1:7000,/news").ok());
  absl::StatusOr<RedisSieveOptions> single = ParseRedisUrl("redis://10.0.0.1:7000/news");
  ASSERT_TRUE(single.ok());
  EXPECT_TRUE(single->cluster_nodes.empty());
}

class ClusterTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = new sieve_test::RedisCluster(3);
    absl::Status started = cluster_->Start();
    ASSERT_TRUE(started.ok()) << started;
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  static sieve_test::RedisCluster* cluster_;
};
sieve_test::RedisCluster* ClusterTest::cluster_ = nullptr;

TEST_F(ClusterTest, KeySlotAgreesWithTheServer) {
  for (const char* key :
       {"123456789", "{crawl}:meta", "{crawl}:q:https://a.example:443", "{crawl:bits:7}",
        "{crawl:bits:7}:trip:h:1:ab", "foo{}{bar}", "foo{{bar}}zap", "", "{}", "}{"}) {
    EXPECT_EQ(absl::StrCat(KeySlot(key)), cluster_->CommandOn(0, {"CLUSTER", "KEYSLOT", key}))
        << key;
  }
}

TEST_F(ClusterTest, ClassicLayoutIsRefused) {
  RedisSieveOptions options = cluster_->Options("classic");
  options.layout = bloom::Layout::kClassic;
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_FALSE(sieve.ok());
  EXPECT_EQ(sieve.status().code(), absl::StatusCode::kInvalidArgument);
}

// The fleet's keys share one slot; the filter's shards spread over all
// three primaries.
TEST_F(ClusterTest, FleetKeysInOneSlotFilterOnEveryPrimary) {
  RedisSieveOptions options = cluster_->Options("spread");
  options.expected_count = 100000;  // ~120 KB of filter in 4 KiB shards: ~29 keys
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  EXPECT_FALSE((*sieve)->uses_push_module());
  ASSERT_EQ(PushAll(**sieve, ClusterUrls("spread", 5000)), 5000u);
  int with_shards = 0;
  int with_queue = 0;
  for (size_t i = 0; i < cluster_->size(); ++i) {
    const std::string shards = cluster_->CommandOn(i, {"KEYS", "{spread:bits:*"});
    const std::string fleet = cluster_->CommandOn(i, {"KEYS", "{spread}:*"});
    with_shards += !shards.empty();
    if (!fleet.empty()) {
      ++with_queue;
      EXPECT_NE(fleet.find("{spread}:queued"), std::string::npos) << fleet;
      EXPECT_NE(fleet.find("{spread}:meta"), std::string::npos) << fleet;
    }
  }
  EXPECT_EQ(with_shards, 3);
  EXPECT_EQ(with_queue, 1);
}

// A trip resent after a lost reply gets the first run's answer: the filter
// step does not find its own bits set (which would lose the URLs), the
// enqueue does not queue twice. A replay of an older trip than the record's
// stops (its client finished it); mode 'all' answers every URL new.
TEST_F(ClusterTest, AResentTripIsAnsweredFromItsRecord) {
  sieve_test::RedisServer redis;
  ASSERT_TRUE(redis.Start().ok());
  const std::string filter = internal::FilterScript();
  // Two URLs of k = 2: bits 1, 2 and 3, 4 of the shard.
  std::vector<std::string> call = {"EVAL", filter, "2",   "{t:bits:0}", "{t:bits:0}:trip:me",
                                   "1",    "2",    "run", "3600000",    "1",
                                   "2",    "3",    "4"};
  EXPECT_EQ(redis.Command(call), "11");
  EXPECT_EQ(redis.Command(call), "11");  // the resend: same answer
  call[5] = "2";
  EXPECT_EQ(redis.Command(call), "00");  // a new trip: the bits are set
  call[5] = "1";
  call[7] = "replay";
  EXPECT_EQ(redis.Command(call), "");  // trip 1 is behind the record's 2: finished
  call[5] = "3";
  call[7] = "all";
  EXPECT_EQ(redis.Command(call), "11");  // record gone or older: all new, no loss
  const std::vector<std::string> journal = {
      "EVAL",   internal::JournalScript(), "1", "{t}:meta",           "{t}:", "me", "7",
      "600000", "https://a.example/",      "",  "https://b.example/", ""};
  EXPECT_EQ(redis.Command(journal), "1");
  EXPECT_EQ(redis.Command({"ZCARD", "{t}:journals"}), "1");
  const std::string enqueue = internal::EnqueueScript();
  std::vector<std::string> put = {"EVAL", enqueue, "1", "{t}:meta", "{t}:", "me", "7", "10"};
  EXPECT_EQ(redis.Command(put), "1");
  EXPECT_EQ(redis.Command(put), "0");  // the resend: not queued again
  EXPECT_EQ(sieve_test::QueuedUrls(redis, "{t}:q:"),
            std::vector<std::string>{"https://a.example/"});
  EXPECT_EQ(redis.Command({"GET", "{t}:queued"}), "1");
  EXPECT_EQ(redis.Command({"EXISTS", "{t}:journal:me"}), "0");  // enqueued: no record left
  EXPECT_EQ(redis.Command({"ZCARD", "{t}:journals"}), "0");
}

// A client dies between the steps of a push (emulated: its journal and
// half of its filter step run by hand, through the real scripts, and
// nothing after). Its URLs are marked seen in the shards it reached; a
// survivor's pop claims its journal once its lease time is over, finishes
// the filter step under the dead client's trip (the reached shards answer
// from their records, the others are tested now) and enqueues the new
// ones: every URL comes out once, with its payload, and the dead client's
// own enqueue, had it come late, finds the trip done.
TEST_F(ClusterTest, AClientDeadBetweenTheStepsLosesNothing) {
  RedisSieveOptions options = cluster_->Options("dead");
  options.expected_count = 20000;
  options.lease_time = std::chrono::milliseconds(300);
  options.host_key = HostOfUrl;
  absl::StatusOr<std::unique_ptr<RedisSieve>> survivor = RedisSieve::Connect(options);
  ASSERT_TRUE(survivor.ok()) << survivor.status();
  const std::vector<std::string> seen = ClusterUrls("seen", 400);
  ASSERT_EQ(PushAll(**survivor, seen), 400u);

  // The dying client's trip: 200 URLs seen already, 2000 new.
  std::vector<std::string> trip(seen.begin(), seen.begin() + 200);
  const std::vector<std::string> fresh = ClusterUrls("fresh", 2000);
  trip.insert(trip.end(), fresh.begin(), fresh.end());
  absl::StatusOr<internal::FilterLayout> layout = internal::FilterLayout::For(options);
  ASSERT_TRUE(layout.ok()) << layout.status();
  absl::StatusOr<std::unique_ptr<internal::ClusterConnection>> dying =
      internal::ClusterConnection::Open(options);
  ASSERT_TRUE(dying.ok()) << dying.status();
  const std::string owner = "dead-host:1:00";
  internal::RedisCommand journal = {
      "EVAL", internal::JournalScript(), "1", "{dead}:meta", "{dead}:", owner, "1", "300"};
  std::map<uint64_t, internal::RedisCommand> filter_calls;  // by shard
  for (const std::string& url : trip) {
    journal.push_back(internal::EncodeQueueElement(url, "payload:" + url));
    journal.push_back(options.host_key(url));
    std::vector<uint64_t> positions;
    layout->Positions(bloom::HashKey(url), positions);
    const uint64_t shard = layout->ShardOf(positions.front());
    internal::RedisCommand& c = filter_calls[shard];
    if (c.empty()) {
      c = {"EVAL",
           internal::FilterScript(),
           "2",
           absl::StrCat("{dead:bits:", shard, "}"),
           absl::StrCat("{dead:bits:", shard, "}:trip:", owner),
           "1",
           absl::StrCat(layout->hash_count()),
           "run",
           "3600000"};
    }
    for (uint64_t p : positions) c.push_back(absl::StrCat(layout->OffsetInShard(p)));
  }
  ASSERT_TRUE((*dying)->Call(journal).ok());
  std::vector<internal::RedisCommand> half;
  for (const auto& [shard, c] : filter_calls) {
    if (shard % 2 == 0) half.push_back(c);
  }
  ASSERT_GT(half.size(), 2u);
  ASSERT_LT(half.size(), filter_calls.size());
  absl::StatusOr<std::vector<internal::RedisReply>> filtered = (*dying)->Run(half);
  ASSERT_TRUE(filtered.ok()) << filtered.status();
  dying->reset();  // dead: no enqueue

  std::map<std::string, std::string> popped;  // URL -> payload
  while (std::optional<SieveEntry> entry = (*survivor)->PopEntryFor(std::chrono::seconds(20))) {
    EXPECT_TRUE(popped.emplace(entry->url, entry->payload).second) << "twice: " << entry->url;
    EXPECT_TRUE((*survivor)->MarkDone(entry->url));
  }
  EXPECT_TRUE((*survivor)->health().ok()) << (*survivor)->health();
  EXPECT_EQ(popped.size(), seen.size() + fresh.size());
  for (const std::string& url : seen) EXPECT_EQ(popped.count(url), 1u) << url;
  for (const std::string& url : fresh) {
    ASSERT_EQ(popped.count(url), 1u) << url << " lost";
    EXPECT_EQ(popped[url], "payload:" + url);
  }
  const int primary = cluster_->PrimaryOf(KeySlot("{dead}:meta"));
  ASSERT_GE(primary, 0);
  EXPECT_EQ(cluster_->CommandOn(primary, {"ZCARD", "{dead}:journals"}), "0");
  std::string flags(trip.size(), '1');
  EXPECT_EQ(cluster_->CommandOn(primary, {"EVAL", internal::EnqueueScript(), "1", "{dead}:meta",
                                          "{dead}:", owner, "1", flags}),
            "0");  // the dead client's enqueue, late: the trip is done
  EXPECT_EQ(cluster_->CommandOn(primary, {"GET", "{dead}:queued"}), "0");
}

// A filter shard's slot migrates from one primary to another while a
// client pushes: ASK while its keys are moving, MOVED after. Every URL is
// queued once, no key is left behind on the old primary, and a connection
// opened before the move learns the new owner.
TEST_F(ClusterTest, SlotMigrationLosesAndDuplicatesNothing) {
  RedisSieveOptions options = cluster_->Options("mig");
  options.expected_count = 20000;
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  absl::StatusOr<std::unique_ptr<internal::ClusterConnection>> watcher =
      internal::ClusterConnection::Open(options);
  ASSERT_TRUE(watcher.ok()) << watcher.status();
  const std::vector<std::string> a = ClusterUrls("a", 2000);
  ASSERT_EQ(PushAll(**sieve, a), 2000u);

  const int slot = KeySlot("{mig:bits:0}");
  const int source = cluster_->PrimaryOf(slot);
  ASSERT_GE(source, 0);
  int target = -1;
  for (int i = 0; i < 3 && target < 0; ++i) {
    if (i != source) target = i;
  }
  const std::string s = absl::StrCat(slot);
  ASSERT_EQ(
      cluster_->CommandOn(target, {"CLUSTER", "SETSLOT", s, "IMPORTING", cluster_->Id(source)}),
      "OK");
  ASSERT_EQ(
      cluster_->CommandOn(source, {"CLUSTER", "SETSLOT", s, "MIGRATING", cluster_->Id(target)}),
      "OK");
  const std::string keys = cluster_->CommandOn(source, {"CLUSTER", "GETKEYSINSLOT", s, "100"});
  ASSERT_NE(keys.find("{mig:bits:0}"), std::string::npos) << keys;
  std::vector<std::string> migrate = {
      "MIGRATE", "127.0.0.1", absl::StrCat(cluster_->node(target).port()), "", "0", "5000", "KEYS"};
  for (absl::string_view key : absl::StrSplit(keys, '\n')) migrate.emplace_back(key);
  ASSERT_EQ(cluster_->CommandOn(source, migrate), "OK");

  // Migrating: the keys are on the target, the source answers ASK.
  const std::vector<std::string> b = ClusterUrls("b", 2000);
  EXPECT_EQ(PushAll(**sieve, b), 2000u);
  EXPECT_EQ(PushAll(**sieve, a), 0u);

  for (size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(cluster_->CommandOn(i, {"CLUSTER", "SETSLOT", s, "NODE", cluster_->Id(target)}),
              "OK");
  }
  // Moved: the source answers MOVED.
  const std::vector<std::string> c = ClusterUrls("c", 2000);
  EXPECT_EQ(PushAll(**sieve, c), 2000u);
  EXPECT_EQ(PushAll(**sieve, a) + PushAll(**sieve, b), 0u);
  EXPECT_EQ(cluster_->CommandOn(source, {"CLUSTER", "COUNTKEYSINSLOT", s}), "0");
  EXPECT_NE(cluster_->CommandOn(target, {"CLUSTER", "COUNTKEYSINSLOT", s}), "0");

  EXPECT_EQ((*watcher)->PrimaryOf(slot), cluster_->Address(source));
  absl::StatusOr<internal::RedisReply> got = (*watcher)->Call({"BITCOUNT", "{mig:bits:0}"});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_GT((*got)->integer, 0);
  EXPECT_EQ((*watcher)->PrimaryOf(slot), cluster_->Address(target));

  std::vector<std::string> all = a;
  all.insert(all.end(), b.begin(), b.end());
  all.insert(all.end(), c.begin(), c.end());
  ExpectEachOnce(DrainAll(**sieve), all);
  EXPECT_TRUE((*sieve)->health().ok()) << (*sieve)->health();
}

// A slot that comes back empty (a replica promoted before it had synced,
// or a primary restarted without persistence) is a lost frontier: after
// the connections drop and the slot map is re-read, the client finds
// {NAME}:meta gone and stops with DataLoss instead of crawling on with an
// empty filter (which re-fetches the whole site).
TEST_F(ClusterTest, AFrontierGoneAfterAReconnectIsDataLoss) {
  RedisSieveOptions options = cluster_->Options("lost");
  options.retry.max_attempts = 3;
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  ASSERT_EQ(PushAll(**sieve, ClusterUrls("lost", 100)), 100u);
  const int primary = cluster_->PrimaryOf(KeySlot("{lost}:meta"));
  ASSERT_GE(primary, 0);
  ASSERT_EQ(cluster_->CommandOn(primary, {"DEL", "{lost}:meta"}), "1");
  for (size_t i = 0; i < cluster_->size(); ++i) {
    cluster_->CommandOn(i, {"CLIENT", "KILL", "TYPE", "normal"});
  }
  EXPECT_EQ(PushAll(**sieve, ClusterUrls("lost-2", 100)), 0u);
  EXPECT_EQ((*sieve)->health().code(), absl::StatusCode::kDataLoss) << (*sieve)->health();
  EXPECT_EQ((*sieve)->Health().code(), absl::StatusCode::kDataLoss);  // the Sieve interface's
  EXPECT_TRUE((*sieve)->IsFinished());                                // failed: consumers stop
}

// The primary holding the fleet's keys ({NAME}) dies; its replica takes
// over (cluster-node-timeout 1 s), and the client's retries ride it out:
// every URL pushed is popped once, before and after.
// On a cluster whose nodes have the crawlsieve module, a new frontier is
// packed (the {NAME} primary was asked, through a script in its slot): the
// host queues hold deflated batches (byte 5), written and read through
// CRAWLSIEVE.PACK/UNPACK from the cluster's scripts, and every URL comes
// back once.
TEST(ClusterPackedTest, AFrontierOnNodesWithTheModuleIsPackedAndDrains) {
  sieve_test::RedisCluster cluster(3, 0, /*with_module=*/true);
  absl::Status started = cluster.Start();
  ASSERT_TRUE(started.ok()) << started;
  RedisSieveOptions options = cluster.Options("packed");
  options.host_key = HostOfUrl;
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  EXPECT_TRUE((*sieve)->packs_queue_batches());
  const std::vector<std::string> urls = ClusterUrls("packed-queue-of-a-cluster", 2000);
  ASSERT_EQ(PushAll(**sieve, urls), urls.size());
  const int primary = cluster.PrimaryOf(KeySlot("{packed}:meta"));
  ASSERT_GE(primary, 0);
  const std::string head = cluster.CommandOn(static_cast<size_t>(primary),
                                             {"LINDEX", "{packed}:q:https://h0.example", "0"});
  ASSERT_FALSE(head.empty());
  EXPECT_EQ(head[0], 5) << "not a packed batch";
  EXPECT_EQ(sieve_test::QueuedUrls(cluster.node(static_cast<size_t>(primary)),
                                   "{packed}:q:https://h0.example")
                .size(),
            (urls.size() + 12) / 13);
  ExpectEachOnce(DrainAll(**sieve), urls);
}

TEST(ClusterFailoverTest, APrimaryDiesAndItsReplicaTakesOver) {
  sieve_test::RedisCluster cluster(3, 1);
  ASSERT_TRUE(cluster.Start().ok());
  RedisSieveOptions options = cluster.Options("fo");
  options.expected_count = 20000;
  options.host_key = HostOfUrl;
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  const std::vector<std::string> before = ClusterUrls("before", 3000);
  ASSERT_EQ(PushAll(**sieve, before), 3000u);
  std::vector<std::string> popped;
  for (int i = 0; i < 1000; ++i) {
    std::optional<std::string> url = (*sieve)->TryPop();
    ASSERT_TRUE(url);
    popped.push_back(*url);
    (*sieve)->MarkDone(*url);
  }
  EXPECT_FALSE((*sieve)->IsFinished());  // sends the acks
  // Everything acknowledged is on the replicas before the kill: Redis's
  // replication is asynchronous, and this test is about the client.
  const int primary = cluster.PrimaryOf(KeySlot("{fo}:meta"));
  ASSERT_GE(primary, 0);
  for (size_t i = 0; i < cluster.size(); ++i) cluster.CommandOn(i, {"WAIT", "1", "2000"});
  cluster.Kill(static_cast<size_t>(primary));

  const std::vector<std::string> after = ClusterUrls("after", 1000);
  EXPECT_EQ(PushAll(**sieve, after), 1000u);  // blocks through the failover
  EXPECT_EQ(PushAll(**sieve, before), 0u);
  ASSERT_TRUE((*sieve)->health().ok()) << (*sieve)->health();
  EXPECT_NE(cluster.PrimaryOf(KeySlot("{fo}:meta")), primary);
  std::vector<std::string> rest = DrainAll(**sieve);
  popped.insert(popped.end(), rest.begin(), rest.end());
  std::vector<std::string> all = before;
  all.insert(all.end(), after.begin(), after.end());
  ExpectEachOnce(popped, all);
  EXPECT_TRUE((*sieve)->health().ok()) << (*sieve)->health();
}

}  // namespace
}  // namespace sieve
