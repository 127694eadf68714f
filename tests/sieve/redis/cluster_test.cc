// RedisSieve on a Redis Cluster: the slot function against the spec and the
// server, the key layout (the journal in one slot, the queue partitions
// and the filter spread), the
// push's resend records, and the client riding out a slot migration
// (ASK, then MOVED) and a primary's failover to its replica with nothing
// lost or duplicated; each on a cluster without and with the crawlsieve
// module (the filter step by the Lua script or by CRAWLSIEVE.FILTER), and
// the client's choice of path when a primary lacks the module. The
// contract suite runs on a cluster too (contract_test.cc, RedisCluster*).
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
#include "../../../sieve/redis_module/src/filter_wire.h"
#include "../../../sieve/src/redis/cluster/cluster_connection.h"
#include "../../../sieve/src/redis/cluster/key_slot.h"
#include "../../../sieve/src/redis/filter_layout.h"
#include "../../../sieve/src/redis/lane_queue.h"
#include "../../../sieve/src/redis/queue_element.h"
#include "../../../sieve/src/redis/queue_partitions.h"
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

// The queue partitions' key prefixes are part of a frontier's format: a
// build that placed them otherwise would not find the queues. Frozen here
// (computed by an independent CRC16 script), and each partition has its
// own sixteenth of the slot space.
TEST(QueuePartitionsTest, PrefixesAreFrozenAndSpreadOverTheSlotSpace) {
  const std::vector<std::string> crawl = {
      "{crawl}:",        "{crawl:q1.61}:",  "{crawl:q2.20}:",  "{crawl:q3.63}:",
      "{crawl:q4.3}:",   "{crawl:q5.4}:",   "{crawl:q6.10}:",  "{crawl:q7.13}:",
      "{crawl:q8.60}:",  "{crawl:q9.63}:",  "{crawl:q10.60}:", "{crawl:q11.63}:",
      "{crawl:q12.41}:", "{crawl:q13.42}:", "{crawl:q14.10}:", "{crawl:q15.13}:"};
  EXPECT_EQ(internal::PartitionPrefixes("crawl", 16), crawl);
  for (const std::string name : {"crawl", "news", "a", "e2e-kill"}) {
    for (uint32_t partitions : {2u, 16u, 100u}) {
      std::set<int> ranges;
      for (const std::string& prefix : internal::PartitionPrefixes(name, partitions)) {
        ranges.insert(KeySlot(prefix) * static_cast<int>(partitions) / 16384);
      }
      EXPECT_EQ(ranges.size(), partitions) << name << " " << partitions;
    }
  }
  EXPECT_EQ(internal::PartitionOfHost("", 16), 0u);  // the shared queue: {NAME}'s
  EXPECT_EQ(internal::PartitionOfHost("https://a.example", 1), 0u);
}

TEST(ClusterUrlTest, ParsesNodesAndSpreadsTheFilter) {
  absl::StatusOr<RedisSieveOptions> o = ParseRedisUrl(
      "redis-cluster://10.0.0.1:7000,10.0.0.2:7001/news?lease_ms=5000&max_hosts=2&"
      "queue_partitions=48");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->cluster_nodes, (std::vector<std::string>{"10.0.0.1:7000", "10.0.0.2:7001"}));
  EXPECT_EQ(o->name, "news");
  EXPECT_EQ(o->shard_bytes, kClusterShardBytes);
  EXPECT_EQ(o->lease_time, std::chrono::milliseconds(5000));
  EXPECT_EQ(o->max_hosts, 2u);
  EXPECT_EQ(o->queue_partitions, 48u);
  EXPECT_FALSE(ParseRedisUrl("redis://10.0.0.1/news?max_hosts=0").ok());
  EXPECT_FALSE(ParseRedisUrl("redis://10.0.0.1/news?queue_partitions=0").ok());
  EXPECT_FALSE(ParseRedisUrl("redis-cluster://10.0.0.1/news").ok());  // a node needs its port
  EXPECT_FALSE(ParseRedisUrl("redis-cluster://10.0.0.1:7000,/news").ok());
  absl::StatusOr<RedisSieveOptions> single = ParseRedisUrl("redis://10.0.0.1:7000/news");
  ASSERT_TRUE(single.ok());
  EXPECT_TRUE(single->cluster_nodes.empty());
}

// The filter step's path: the parameter is whether every node has the
// crawlsieve module (CRAWLSIEVE.FILTER) or none (the Lua script).
class ClusterTest : public testing::TestWithParam<bool> {
 protected:
  static void TearDownTestSuite() {
    for (sieve_test::RedisCluster*& cluster : clusters_) {
      delete cluster;
      cluster = nullptr;
    }
  }
  void SetUp() override {
    sieve_test::RedisCluster*& cluster = clusters_[GetParam() ? 1 : 0];
    if (cluster == nullptr) {
      cluster = new sieve_test::RedisCluster(3, 0, GetParam());
      absl::Status started = cluster->Start();
      ASSERT_TRUE(started.ok()) << started;
    }
    cluster_ = cluster;
  }
  // How many filter step calls went through the module, on all nodes.
  long long ModuleFilterCalls() const { return cluster_->CommandCalls("crawlsieve.filter"); }

  static sieve_test::RedisCluster* clusters_[2];
  sieve_test::RedisCluster* cluster_ = nullptr;
};
sieve_test::RedisCluster* ClusterTest::clusters_[2] = {nullptr, nullptr};

std::string PushPathName(const testing::TestParamInfo<bool>& info) {
  return info.param ? "Module" : "Lua";
}

// Little-endian u32 offsets, as filter_wire.h packs them.
std::string PackedOffsets(const std::vector<uint64_t>& offsets) {
  std::string out;
  for (uint64_t offset : offsets) crawlsieve_wire::AppendU32(out, static_cast<uint32_t>(offset));
  return out;
}

// One filter step call on shard key `shard`, for client `owner`'s trip:
// CRAWLSIEVE.FILTER (module) or the FILTER script, with the same meaning.
std::vector<std::string> FilterCall(bool module, const std::string& shard, const std::string& owner,
                                    const std::string& trip, const std::string& k,
                                    const std::string& mode, const std::vector<uint64_t>& offsets) {
  const std::string record = absl::StrCat(shard, ":trip:", owner);
  if (module) {
    return {crawlsieve_wire::kFilterCommand, shard, record, trip, k, mode, "3600000",
            PackedOffsets(offsets)};
  }
  std::vector<std::string> call = {
      "EVAL", internal::FilterScript(), "2", shard, record, trip, k, mode, "3600000"};
  for (uint64_t offset : offsets) call.push_back(absl::StrCat(offset));
  return call;
}

// A survivor's options in the dead-client tests: a short URL lease (the
// dead client's journal is claimed after it), host partitions. Not shorter
// than 2 s: the survivor leases a batch of URLs per pop and acks them one by
// one, and a lease that runs out before its ack hands the URL out again (as
// it must); at 300 ms an ASan build on a loaded 2-core machine got there.
RedisSieveOptions SurvivorOptions(RedisSieveOptions options) {
  options.expected_count = 20000;
  options.lease_time = std::chrono::milliseconds(2000);
  options.host_key = HostOfUrl;
  return options;
}

// Pops until finished, acking each: URL -> payload, each URL once.
std::map<std::string, std::string> DrainWithPayloads(RedisSieve& sieve) {
  std::map<std::string, std::string> popped;
  while (std::optional<SieveEntry> entry = sieve.PopEntryFor(std::chrono::seconds(20))) {
    EXPECT_TRUE(popped.emplace(entry->url, entry->payload).second) << "twice: " << entry->url;
    EXPECT_TRUE(sieve.MarkDone(entry->url));
  }
  return popped;
}

// A dying client's push trip made by hand: trip "1" of `owner` on the
// frontier of `options`, its journal record's script call and its filter
// step's call per shard (URLs in order; the module's command or the
// script), each URL's payload "payload:" + the URL.
struct HandMadeTrip {
  internal::RedisCommand journal;
  std::map<uint64_t, internal::RedisCommand> filter_calls;  // by shard
};

// `priorities`: empty (all 0) or one per URL, journaled as the URLs'
// lanes (lane_queue.h).
HandMadeTrip MakeTrip(const RedisSieveOptions& options, bool module, const std::string& owner,
                      const std::vector<std::string>& urls,
                      const std::vector<int32_t>& priorities = {}) {
  HandMadeTrip trip;
  absl::StatusOr<internal::FilterLayout> layout = internal::FilterLayout::For(options);
  EXPECT_TRUE(layout.ok()) << layout.status();
  if (!layout.ok()) return trip;
  const std::string prefix = absl::StrCat("{", options.name, "}:");
  trip.journal = {"EVAL", internal::JournalScript(),
                  "1",    prefix + "meta",
                  prefix, owner,
                  "1",    absl::StrCat(options.lease_time.count())};
  std::map<uint64_t, std::vector<uint64_t>> offsets;  // by shard, in URL order
  for (size_t i = 0; i < urls.size(); ++i) {
    const std::string& url = urls[i];
    trip.journal.push_back(internal::EncodeQueueElement(url, "payload:" + url));
    trip.journal.push_back(
        internal::LaneQueueId(options.host_key(url), priorities.empty() ? 0 : priorities[i]));
    std::vector<uint64_t> positions;
    layout->Positions(bloom::HashKey(url), positions);
    std::vector<uint64_t>& shard_offsets = offsets[layout->ShardOf(positions.front())];
    for (uint64_t p : positions) shard_offsets.push_back(layout->OffsetInShard(p));
  }
  for (const auto& [shard, shard_offsets] : offsets) {
    trip.filter_calls[shard] =
        FilterCall(module, absl::StrCat("{", options.name, ":bits:", shard, "}"), owner, "1",
                   absl::StrCat(layout->hash_count()), "run", shard_offsets);
  }
  return trip;
}

TEST_P(ClusterTest, KeySlotAgreesWithTheServer) {
  for (const char* key :
       {"123456789", "{crawl}:meta", "{crawl}:q:https://a.example:443", "{crawl:bits:7}",
        "{crawl:bits:7}:trip:h:1:ab", "foo{}{bar}", "foo{{bar}}zap", "", "{}", "}{"}) {
    EXPECT_EQ(absl::StrCat(KeySlot(key)), cluster_->CommandOn(0, {"CLUSTER", "KEYSLOT", key}))
        << key;
  }
}

TEST_P(ClusterTest, ClassicLayoutIsRefused) {
  RedisSieveOptions options = cluster_->Options("classic");
  options.layout = bloom::Layout::kClassic;
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_FALSE(sieve.ok());
  EXPECT_EQ(sieve.status().code(), absl::StatusCode::kInvalidArgument);
}

// The journal and page budget share {NAME}'s slot; the host queues spread
// over the queue partitions' slots (each host's where XXH3 puts it), and the
// filter's shards, over all three primaries.
TEST_P(ClusterTest, QueuesAndFilterSpreadOverEveryPrimary) {
  RedisSieveOptions options = cluster_->Options("spread");
  options.expected_count = 100000;  // ~120 KB of filter in 4 KiB shards: ~29 keys
  options.host_key = HostOfUrl;
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  EXPECT_EQ((*sieve)->uses_push_module(), GetParam());
  EXPECT_EQ((*sieve)->queue_partitions(), internal::kDefaultClusterPartitions);
  const long long module_calls = ModuleFilterCalls();
  const std::vector<std::string> urls = ClusterUrls("spread", 5000);
  ASSERT_EQ(PushAll(**sieve, urls), 5000u);
  if (GetParam()) {
    EXPECT_GT(ModuleFilterCalls(), module_calls + 3);  // at least one per primary
  } else {
    EXPECT_EQ(ModuleFilterCalls(), 0);
  }
  const int home = cluster_->PrimaryOf(KeySlot("{spread}:meta"));
  ASSERT_GE(home, 0);
  EXPECT_NE(cluster_->CommandOn(home, {"GET", "{spread}:meta"}).find(" parts=16"),
            std::string::npos);
  // Each host's queue on the primary of its partition's slot, with its URLs.
  std::set<int> queue_primaries;
  long long queued = 0;
  std::set<uint32_t> parts;
  for (int h = 0; h < 13; ++h) {
    const std::string host = absl::StrCat("https://h", h, ".example");
    const uint32_t part = internal::PartitionOfHost(host, internal::kDefaultClusterPartitions);
    parts.insert(part);
    const std::string prefix =
        internal::PartitionPrefixes("spread", internal::kDefaultClusterPartitions)[part];
    const int primary = cluster_->PrimaryOf(KeySlot(prefix + "meta"));
    ASSERT_GE(primary, 0);
    queue_primaries.insert(primary);
    EXPECT_EQ(cluster_->CommandOn(primary, {"GET", prefix + "meta"}),
              cluster_->CommandOn(home, {"GET", "{spread}:meta"}));
    EXPECT_EQ(
        sieve_test::QueuedUrls(cluster_->node(static_cast<size_t>(primary)), prefix + "q:" + host)
            .size(),
        (urls.size() + 12 - static_cast<size_t>(h)) / 13)
        << host;
  }
  for (uint32_t part : parts) {
    const std::string prefix =
        internal::PartitionPrefixes("spread", internal::kDefaultClusterPartitions)[part];
    const int primary = cluster_->PrimaryOf(KeySlot(prefix + "meta"));
    long long n = 0;
    ASSERT_TRUE(absl::SimpleAtoi(cluster_->CommandOn(primary, {"GET", prefix + "queued"}), &n));
    queued += n;
  }
  EXPECT_GT(parts.size(), 6u);  // 13 hosts over 16 partitions
  EXPECT_EQ(queue_primaries.size(), 3u);
  EXPECT_EQ(queued, 5000);
  EXPECT_EQ((*sieve)->Stats().queued, 5000u);
  int with_shards = 0;
  for (size_t i = 0; i < cluster_->size(); ++i) {
    with_shards += !cluster_->CommandOn(i, {"KEYS", "{spread:bits:*"}).empty();
  }
  EXPECT_EQ(with_shards, 3);
  EXPECT_EQ(cluster_->CommandCalls("wait"), 0);  // no replica: a trip waits for none
  ExpectEachOnce(DrainAll(**sieve), urls);
}

// A frontier of one partition (queue_partitions = 1, and every frontier a
// build before partitions created: its NAME:meta has no parts= field, the
// bytes frozen here) keeps every queue key in {NAME}'s slot, and drains.
TEST_P(ClusterTest, AFrontierOfOnePartitionKeepsItsQueueInOneSlot) {
  RedisSieveOptions options = cluster_->Options("one");
  options.expected_count = 20000;
  options.host_key = HostOfUrl;
  options.pack_queue_batches = false;
  const int home = cluster_->PrimaryOf(KeySlot("{one}:meta"));
  ASSERT_GE(home, 0);
  // As a build before partitions wrote it.
  ASSERT_EQ(
      cluster_->CommandOn(
          home,
          {"SET", "{one}:meta",
           "v4 hash=1 seed=7165897122547068020 layout=blocked m=199680 k=6 shard_bits=32768"}),
      "OK");
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  EXPECT_EQ((*sieve)->queue_partitions(), 1u);
  const std::vector<std::string> urls = ClusterUrls("one", 2000);
  ASSERT_EQ(PushAll(**sieve, urls), urls.size());
  for (size_t i = 0; i < cluster_->size(); ++i) {
    const std::string queues = cluster_->CommandOn(i, {"KEYS", "{one*:q:*"});
    if (static_cast<int>(i) == home) {
      EXPECT_NE(queues.find("{one}:q:https://h0.example"), std::string::npos) << queues;
    } else {
      EXPECT_EQ(queues, "") << "node " << i;
    }
  }
  EXPECT_EQ(cluster_->CommandOn(home, {"GET", "{one}:queued"}), "2000");
  ExpectEachOnce(DrainAll(**sieve), urls);
  // A new frontier asked for one partition writes the same meta.
  options.name = "one-new";
  absl::StatusOr<std::unique_ptr<RedisSieve>> fresh = [&] {
    RedisSieveOptions o = options;
    o.queue_partitions = 1;
    return RedisSieve::Connect(o);
  }();
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  EXPECT_EQ(cluster_->CommandOn(cluster_->PrimaryOf(KeySlot("{one-new}:meta")),
                                {"GET", "{one-new}:meta"}),
            "v4 hash=1 seed=7165897122547068020 layout=blocked m=199680 k=6 shard_bits=32768");
}

// NAME:meta's parts= field is the creator's: a later client asking another
// count follows it; a field that is not a count is refused, naming the key.
TEST_P(ClusterTest, ThePartitionCountIsTheCreatorsAndABadOneIsRefused) {
  RedisSieveOptions options = cluster_->Options("parts");
  options.expected_count = 20000;
  options.queue_partitions = 5;
  absl::StatusOr<std::unique_ptr<RedisSieve>> first = RedisSieve::Connect(options);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ((*first)->queue_partitions(), 5u);
  options.queue_partitions = 9;
  absl::StatusOr<std::unique_ptr<RedisSieve>> second = RedisSieve::Connect(options);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ((*second)->queue_partitions(), 5u);
  const int home = cluster_->PrimaryOf(KeySlot("{bad-parts}:meta"));
  ASSERT_EQ(cluster_->CommandOn(home, {"SET", "{bad-parts}:meta",
                                       "v4 hash=1 seed=7165897122547068020 layout=blocked m=199680 "
                                       "k=6 shard_bits=32768 parts=x"}),
            "OK");
  options.name = "bad-parts";
  absl::StatusOr<std::unique_ptr<RedisSieve>> bad = RedisSieve::Connect(options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kFailedPrecondition) << bad.status();
  EXPECT_NE(bad.status().message().find("parts=x"), std::string::npos) << bad.status();
  options.queue_partitions = 2000;
  options.name = "too-many";
  EXPECT_EQ(RedisSieve::Connect(options).status().code(), absl::StatusCode::kInvalidArgument);
}

// A trip resent after a lost reply gets the first run's answer: the filter
// step does not find its own bits set (which would lose the URLs), the
// enqueue does not queue twice. A replay of an older trip than the record's
// stops (its client finished it); mode 'all' answers every URL new.
TEST_P(ClusterTest, AResentTripIsAnsweredFromItsRecord) {
  sieve_test::RedisServer redis(GetParam());
  ASSERT_TRUE(redis.Start().ok());
  // Two URLs of k = 2: bits 1, 2 and 3, 4 of the shard.
  auto call = [&](const std::string& trip, const std::string& mode) {
    return redis.Command(FilterCall(GetParam(), "{t:bits:0}", "me", trip, "2", mode, {1, 2, 3, 4}));
  };
  EXPECT_EQ(call("1", "run"), "11");
  EXPECT_EQ(redis.Command({"GET", "{t:bits:0}"}), "x");  // bits 1-4 of byte 0: 0111 1000
  EXPECT_EQ(redis.Command({"GET", "{t:bits:0}:trip:me"}), "1 11");
  EXPECT_GT(std::atoll(redis.Command({"PTTL", "{t:bits:0}:trip:me"}).c_str()), 3500000);
  EXPECT_EQ(call("1", "run"), "11");     // the resend: same answer
  EXPECT_EQ(call("2", "run"), "00");     // a new trip: the bits are set
  EXPECT_EQ(call("1", "replay"), "");    // trip 1 is behind the record's 2: finished
  EXPECT_EQ(call("2", "replay"), "00");  // a survivor replaying trip 2: its answer
  EXPECT_EQ(call("3", "all"), "11");     // record gone or older: all new, no loss
  EXPECT_EQ(redis.Command({"GET", "{t:bits:0}:trip:me"}), "3 11");
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
  EXPECT_EQ(redis.Command({"GET", "{t}:moves"}), "1");  // a trip ended (IsFinished's scan)
  // Another partition's part of a trip: once per trip, never for an older one.
  auto put_part = [&](const std::string& trip, const std::string& url) {
    return redis.Command({"EVAL", internal::EnqueuePartScript(), "1", "{t:q3}:meta",
                          "{t:q3}:", "me", trip, "600000", url, "https://c.example"});
  };
  EXPECT_EQ(put_part("7", "https://c.example/1"), "1");
  EXPECT_EQ(put_part("7", "https://c.example/1"), "0");  // the resend, or a survivor's replay
  EXPECT_EQ(put_part("6", "https://c.example/0"), "0");  // older than the record: done
  EXPECT_EQ(put_part("8", "https://c.example/2"), "1");
  EXPECT_EQ(sieve_test::QueuedUrls(redis, "{t:q3}:q:https://c.example"),
            (std::vector<std::string>{"https://c.example/1", "https://c.example/2"}));
  EXPECT_EQ(redis.Command({"GET", "{t:q3}:queued"}), "2");
  EXPECT_EQ(redis.Command({"GET", "{t:q3}:etrip:me"}), "8");
  EXPECT_GT(std::atoll(redis.Command({"PTTL", "{t:q3}:etrip:me"}).c_str()), 500000);
}

// A client dies between the steps of a push (emulated: its journal and
// half of its filter step run by hand, through the real scripts or the
// module's command, and nothing after). Its URLs are marked seen in the shards it reached; a
// survivor's pop claims its journal once its lease time is over, finishes
// the filter step under the dead client's trip (the reached shards answer
// from their records, the others are tested now) and enqueues the new
// ones: every URL comes out once, with its payload, and the dead client's
// own enqueue, had it come late, finds the trip done.
// A dead client's journaled URLs keep their lanes: the survivor's replay
// enqueues each in its own lane, and pops them with their priorities.
TEST_P(ClusterTest, AReplayedJournalKeepsEachUrlsLane) {
  const RedisSieveOptions options = SurvivorOptions(cluster_->Options("dead-lanes"));
  absl::StatusOr<std::unique_ptr<RedisSieve>> survivor = RedisSieve::Connect(options);
  ASSERT_TRUE(survivor.ok()) << survivor.status();
  const std::vector<std::string> trip = ClusterUrls("lanes", 300);
  std::vector<int32_t> priorities;
  std::map<std::string, int32_t> priority_of;
  for (size_t i = 0; i < trip.size(); ++i) {
    priorities.push_back(static_cast<int32_t>(i % 5) * 3 - 6);  // -6, -3, 0, 3, 6
    priority_of[trip[i]] = priorities.back();
  }
  absl::StatusOr<std::unique_ptr<internal::ClusterConnection>> dying =
      internal::ClusterConnection::Open(options);
  ASSERT_TRUE(dying.ok()) << dying.status();
  const HandMadeTrip made = MakeTrip(options, GetParam(), "dead-lanes:1:00", trip, priorities);
  ASSERT_TRUE((*dying)->Call(made.journal).ok());
  dying->reset();  // dead after its journal: no filter step, no enqueue

  std::map<std::string, int32_t> popped;
  while (std::optional<SieveEntry> entry = (*survivor)->PopEntryFor(std::chrono::seconds(20))) {
    EXPECT_EQ(entry->payload, "payload:" + entry->url);
    EXPECT_TRUE(popped.emplace(entry->url, entry->priority).second) << "twice: " << entry->url;
    EXPECT_TRUE((*survivor)->MarkDone(entry->url));
    ASSERT_LE(popped.size(), trip.size());
  }
  EXPECT_TRUE((*survivor)->Health().ok()) << (*survivor)->Health();
  EXPECT_EQ(popped, priority_of);
}

TEST_P(ClusterTest, AClientDeadBetweenTheStepsLosesNothing) {
  const RedisSieveOptions options = SurvivorOptions(cluster_->Options("dead"));
  absl::StatusOr<std::unique_ptr<RedisSieve>> survivor = RedisSieve::Connect(options);
  ASSERT_TRUE(survivor.ok()) << survivor.status();
  const std::vector<std::string> seen = ClusterUrls("seen", 400);
  ASSERT_EQ(PushAll(**survivor, seen), 400u);

  // The dying client's trip: 200 URLs seen already, 2000 new.
  std::vector<std::string> trip(seen.begin(), seen.begin() + 200);
  const std::vector<std::string> fresh = ClusterUrls("fresh", 2000);
  trip.insert(trip.end(), fresh.begin(), fresh.end());
  absl::StatusOr<std::unique_ptr<internal::ClusterConnection>> dying =
      internal::ClusterConnection::Open(options);
  ASSERT_TRUE(dying.ok()) << dying.status();
  const std::string owner = "dead-host:1:00";
  const HandMadeTrip made = MakeTrip(options, GetParam(), owner, trip);
  const internal::RedisCommand& journal = made.journal;
  const std::map<uint64_t, internal::RedisCommand>& filter_calls = made.filter_calls;
  ASSERT_TRUE((*dying)->Call(journal).ok());
  std::vector<internal::RedisCommand> half;
  for (const auto& [shard, c] : filter_calls) {
    if (shard % 2 == 0) half.push_back(c);
  }
  ASSERT_GT(half.size(), 2u);
  ASSERT_LT(half.size(), filter_calls.size());
  absl::StatusOr<std::vector<internal::RedisReply>> filtered = (*dying)->Run(half);
  ASSERT_TRUE(filtered.ok()) << filtered.status();
  for (const internal::RedisReply& reply : *filtered) {
    ASSERT_EQ(reply->type, REDIS_REPLY_STRING) << reply->str;
  }
  dying->reset();  // dead: no enqueue
  const long long module_calls = ModuleFilterCalls();

  std::map<std::string, std::string> popped = DrainWithPayloads(**survivor);
  EXPECT_TRUE((*survivor)->Health().ok()) << (*survivor)->Health();
  // The survivor's replay took the same path: every shard again.
  EXPECT_EQ(ModuleFilterCalls() - module_calls,
            GetParam() ? static_cast<long long>(filter_calls.size()) : 0);
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

// A client dies halfway through the enqueue step of a frontier of several
// queue partitions (emulated: its journal, its whole filter step, and the
// ENQUEUE_PART calls of half the partitions its new URLs belong to, then
// nothing). A survivor's pop claims the journal, gets the shards' recorded
// answers, finds the partitions reached done by their records and
// enqueues the rest: every URL comes out once, with its payload.
TEST_P(ClusterTest, AClientDeadAmidItsPartitionsEnqueuesLosesNothing) {
  const RedisSieveOptions options = SurvivorOptions(cluster_->Options("split"));
  absl::StatusOr<std::unique_ptr<RedisSieve>> survivor = RedisSieve::Connect(options);
  ASSERT_TRUE(survivor.ok()) << survivor.status();
  const uint32_t partitions = (*survivor)->queue_partitions();
  ASSERT_EQ(partitions, internal::kDefaultClusterPartitions);
  const std::vector<std::string> fresh = ClusterUrls("split", 1300);
  absl::StatusOr<std::unique_ptr<internal::ClusterConnection>> dying =
      internal::ClusterConnection::Open(options);
  ASSERT_TRUE(dying.ok()) << dying.status();
  const std::string owner = "dead-host:2:00";
  const HandMadeTrip made = MakeTrip(options, GetParam(), owner, fresh);
  std::map<uint32_t, internal::RedisCommand> part_calls;  // by partition, 0 aside
  for (const std::string& url : fresh) {
    const std::string host = options.host_key(url);
    const uint32_t part = internal::PartitionOfHost(host, partitions);
    if (part == 0) continue;
    internal::RedisCommand& call = part_calls[part];
    if (call.empty()) {
      const std::string prefix = internal::PartitionPrefixes("split", partitions)[part];
      call = {"EVAL",   internal::EnqueuePartScript(), "1", prefix + "meta", prefix, owner, "1",
              "3600000"};
    }
    call.push_back(internal::EncodeQueueElement(url, "payload:" + url));
    call.push_back(host);
  }
  std::vector<internal::RedisCommand> steps;
  for (const auto& [shard, call] : made.filter_calls) steps.push_back(call);
  ASSERT_GT(part_calls.size(), 3u);
  size_t reached = 0;
  for (const auto& [part, call] : part_calls) {
    if (reached++ % 2 == 0) steps.push_back(call);
  }
  ASSERT_TRUE((*dying)->Call(made.journal).ok());
  absl::StatusOr<std::vector<internal::RedisReply>> done = (*dying)->Run(steps);
  ASSERT_TRUE(done.ok()) << done.status();
  for (const internal::RedisReply& reply : *done) {
    ASSERT_NE(reply->type, REDIS_REPLY_ERROR) << reply->str;
  }
  dying->reset();  // dead: the other partitions and {split}'s ENQUEUE never come

  std::map<std::string, std::string> popped = DrainWithPayloads(**survivor);
  EXPECT_TRUE((*survivor)->Health().ok()) << (*survivor)->Health();
  EXPECT_EQ(popped.size(), fresh.size());
  for (const std::string& url : fresh) {
    ASSERT_EQ(popped.count(url), 1u) << url << " lost";
    EXPECT_EQ(popped[url], "payload:" + url);
  }
  const int home = cluster_->PrimaryOf(KeySlot("{split}:meta"));
  ASSERT_GE(home, 0);
  EXPECT_EQ(cluster_->CommandOn(home, {"ZCARD", "{split}:journals"}), "0");
  EXPECT_EQ(cluster_->CommandOn(home, {"GET", "{split}:moves"}), "1");  // the replayed trip
}

// Starts moving `slot` from primary `source` to `target` (IMPORTING,
// MIGRATING), then moves all its keys in one MIGRATE: a script routed by
// one of them sees all of them, on one node or the other.
void MigrateSlotKeysAtOnce(sieve_test::RedisCluster& cluster, int slot, int source, int target) {
  const std::string s = absl::StrCat(slot);
  ASSERT_EQ(cluster.CommandOn(target, {"CLUSTER", "SETSLOT", s, "IMPORTING", cluster.Id(source)}),
            "OK");
  ASSERT_EQ(cluster.CommandOn(source, {"CLUSTER", "SETSLOT", s, "MIGRATING", cluster.Id(target)}),
            "OK");
  const std::string keys = cluster.CommandOn(source, {"CLUSTER", "GETKEYSINSLOT", s, "100000"});
  ASSERT_FALSE(keys.empty());
  std::vector<std::string> migrate = {
      "MIGRATE", "127.0.0.1", absl::StrCat(cluster.node(target).port()), "", "0", "5000", "KEYS"};
  for (absl::string_view key : absl::StrSplit(keys, '\n')) migrate.emplace_back(key);
  ASSERT_EQ(cluster.CommandOn(source, migrate), "OK");
}

// Ends a slot's move: every primary says `target` serves it.
void AssignSlot(sieve_test::RedisCluster& cluster, int slot, int target) {
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(cluster.CommandOn(
                  i, {"CLUSTER", "SETSLOT", absl::StrCat(slot), "NODE", cluster.Id(target)}),
              "OK");
  }
}

// A filter shard's slot migrates from one primary to another while a
// client pushes: ASK while its keys are moving, MOVED after. Every URL is
// queued once, no key is left behind on the old primary, and a connection
// opened before the move learns the new owner.
TEST_P(ClusterTest, SlotMigrationLosesAndDuplicatesNothing) {
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
  const int target = (source + 1) % 3;
  const std::string s = absl::StrCat(slot);
  ASSERT_NO_FATAL_FAILURE(MigrateSlotKeysAtOnce(*cluster_, slot, source, target));

  // Migrating: the keys are on the target, the source answers ASK.
  const std::vector<std::string> b = ClusterUrls("b", 2000);
  EXPECT_EQ(PushAll(**sieve, b), 2000u);
  EXPECT_EQ(PushAll(**sieve, a), 0u);

  ASSERT_NO_FATAL_FAILURE(AssignSlot(*cluster_, slot, target));
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
  EXPECT_TRUE((*sieve)->Health().ok()) << (*sieve)->Health();
}

// A queue partition's slot moves while a client pops and pushes, all its
// keys in one MIGRATE (`redis-cli --cluster reshard` with a
// --cluster-pipeline above the slot's key count does the same): the
// scripts follow ASK, then MOVED, to the keys; URLs leased before the move
// are acked after it; every URL comes out once.
TEST_P(ClusterTest, AQueuePartitionsSlotMovedWholeLosesAndDuplicatesNothing) {
  RedisSieveOptions options = cluster_->Options("qmig");
  options.expected_count = 20000;
  options.host_key = HostOfUrl;
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  const std::vector<std::string> a = ClusterUrls("qa", 2000);
  ASSERT_EQ(PushAll(**sieve, a), 2000u);
  std::vector<std::string> popped;
  for (int i = 0; i < 300; ++i) {  // some leased, some done before the move
    std::optional<std::string> url = (*sieve)->TryPop();
    ASSERT_TRUE(url.has_value());
    popped.push_back(*url);
    if (i % 2 == 0) {
      EXPECT_TRUE((*sieve)->MarkDone(*url));
    }
  }
  // The partition of host h1's queue, and its slot.
  const uint32_t part = internal::PartitionOfHost("https://h1.example", 16);
  const std::string prefix = internal::PartitionPrefixes("qmig", 16)[part];
  const int slot = KeySlot(prefix + "meta");
  const int source = cluster_->PrimaryOf(slot);
  ASSERT_GE(source, 0);
  const int target = (source + 1) % 3;
  ASSERT_NO_FATAL_FAILURE(MigrateSlotKeysAtOnce(*cluster_, slot, source, target));
  const std::vector<std::string> b = ClusterUrls("qb", 2000);
  EXPECT_EQ(PushAll(**sieve, b), 2000u);  // ASK
  for (size_t i = 1; i < popped.size(); i += 2) EXPECT_TRUE((*sieve)->MarkDone(popped[i]));
  ASSERT_NO_FATAL_FAILURE(AssignSlot(*cluster_, slot, target));
  const std::vector<std::string> c = ClusterUrls("qc", 2000);
  EXPECT_EQ(PushAll(**sieve, c), 2000u);  // MOVED
  EXPECT_EQ(cluster_->CommandOn(source, {"CLUSTER", "COUNTKEYSINSLOT", absl::StrCat(slot)}), "0");
  EXPECT_NE(cluster_->CommandOn(target, {"EXISTS", prefix + "q:https://h1.example"}), "0");
  for (const std::string& url : DrainAll(**sieve)) popped.push_back(url);
  std::vector<std::string> all = a;
  all.insert(all.end(), b.begin(), b.end());
  all.insert(all.end(), c.begin(), c.end());
  ExpectEachOnce(popped, all);
  EXPECT_TRUE((*sieve)->Health().ok()) << (*sieve)->Health();
}

// A slot that comes back empty (a replica promoted before it had synced,
// or a primary restarted without persistence) is a lost frontier: after
// the connections drop and the slot map is re-read, the client finds
// {NAME}:meta gone and stops with DataLoss instead of crawling on with an
// empty filter (which re-fetches the whole site).
TEST_P(ClusterTest, AFrontierGoneAfterAReconnectIsDataLoss) {
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
  EXPECT_EQ((*sieve)->Health().code(), absl::StatusCode::kDataLoss) << (*sieve)->Health();
  EXPECT_EQ((*sieve)->Health().code(), absl::StatusCode::kDataLoss);  // the Sieve interface's
  EXPECT_TRUE((*sieve)->IsFinished());                                // failed: consumers stop
}

// The primary holding the fleet's keys ({NAME}) dies; its replica takes
// over (cluster-node-timeout 1 s), and the client's retries ride it out:
// every URL pushed is popped once, before and after. With the module on
// every node, the replicas applied the replicated CRAWLSIEVE.FILTER calls
// (the URLs pushed before answer seen) and the client keeps the module
// after re-reading the slot map.
class ClusterFailoverTest : public testing::TestWithParam<bool> {};

TEST_P(ClusterFailoverTest, APrimaryDiesAndItsReplicaTakesOver) {
  sieve_test::RedisCluster cluster(3, 1, GetParam());
  ASSERT_TRUE(cluster.Start().ok());
  RedisSieveOptions options = cluster.Options("fo");
  options.expected_count = 20000;
  options.host_key = HostOfUrl;
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  const std::vector<std::string> before = ClusterUrls("before", 3000);
  ASSERT_EQ(PushAll(**sieve, before), 3000u);
  // Each trip's journal record waited for {fo}'s replica (WAIT), so a
  // failover cannot lose a record whose bits the filter shards kept.
  EXPECT_GE(cluster.CommandCalls("wait"), 1);
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
  ASSERT_TRUE((*sieve)->Health().ok()) << (*sieve)->Health();
  EXPECT_EQ((*sieve)->uses_push_module(), GetParam());
  EXPECT_NE(cluster.PrimaryOf(KeySlot("{fo}:meta")), primary);
  std::vector<std::string> rest = DrainAll(**sieve);
  popped.insert(popped.end(), rest.begin(), rest.end());
  std::vector<std::string> all = before;
  all.insert(all.end(), after.begin(), after.end());
  ExpectEachOnce(popped, all);
  EXPECT_TRUE((*sieve)->Health().ok()) << (*sieve)->Health();
}

INSTANTIATE_TEST_SUITE_P(PushPaths, ClusterTest, testing::Bool(), PushPathName);
INSTANTIATE_TEST_SUITE_P(PushPaths, ClusterFailoverTest, testing::Bool(), PushPathName);

// CRAWLSIEVE.FILTER itself, on the cluster whose nodes all have the module.
class ClusterFilterCommandTest : public ClusterTest {};
INSTANTIATE_TEST_SUITE_P(Module, ClusterFilterCommandTest, testing::Values(true), PushPathName);

// Its two keys are declared (first 1, last 2): a node that does not serve
// their slot answers MOVED, keys of two slots are CROSSSLOT, and the node
// that serves them runs it.
TEST_P(ClusterFilterCommandTest, IsRoutedByItsKeysLikeAnyKeyedCommand) {
  const std::string shard = "{route:bits:5}";
  const int owner = cluster_->PrimaryOf(KeySlot(shard));
  ASSERT_GE(owner, 0);
  const int other = (owner + 1) % 3;
  const std::vector<std::string> call = FilterCall(true, shard, "me", "1", "1", "run", {7});
  EXPECT_EQ(cluster_->CommandOn(other, call).rfind("MOVED ", 0), 0u)
      << cluster_->CommandOn(other, call);
  std::vector<std::string> cross = call;
  cross[2] = "{route:bits:6}:trip:me";
  EXPECT_EQ(cluster_->CommandOn(owner, cross).rfind("CROSSSLOT", 0), 0u)
      << cluster_->CommandOn(owner, cross);
  EXPECT_EQ(cluster_->CommandOn(owner, call), "1");
  EXPECT_EQ(cluster_->CommandOn(owner, {"GETBIT", shard, "7"}), "1");
  EXPECT_EQ(cluster_->CommandOn(owner, {"COMMAND", "GETKEYS", call[0], call[1], call[2], call[3],
                                        call[4], call[5], call[6], call[7]}),
            absl::StrCat(shard, "\n", shard, ":trip:me"));
}

// A trip record written by one path is read by the other: a Lua client's
// resend (or a Lua survivor's replay) after a module run, and the reverse,
// get the first answer; the bits are the same bytes.
TEST_P(ClusterFilterCommandTest, TheScriptAndTheModuleShareTripRecordsAndBits) {
  sieve_test::RedisServer redis(true);
  ASSERT_TRUE(redis.Start().ok());
  const std::vector<uint64_t> offsets = {3, 9, 9, 40};  // URL 2 shares bit 9
  auto call = [&](bool module, const std::string& shard, const std::string& trip,
                  const std::string& mode) {
    return redis.Command(FilterCall(module, shard, "me", trip, "2", mode, offsets));
  };
  EXPECT_EQ(call(true, "{m:bits:0}", "1", "run"), "11");
  EXPECT_EQ(call(false, "{m:bits:0}", "1", "run"), "11");  // from the module's record
  EXPECT_EQ(call(false, "{m:bits:0}", "2", "run"), "00");
  EXPECT_EQ(call(true, "{m:bits:0}", "2", "replay"), "00");  // from the script's record
  EXPECT_EQ(call(true, "{m:bits:0}", "1", "replay"), "");    // behind: finished
  EXPECT_EQ(call(false, "{l:bits:0}", "1", "run"), "11");
  EXPECT_EQ(redis.Command({"GET", "{m:bits:0}"}), redis.Command({"GET", "{l:bits:0}"}));
  EXPECT_EQ(redis.Command({"STRLEN", "{m:bits:0}"}), "6");  // bit 40 is in byte 5
}

// Bad arguments are error replies before anything is written; the server
// lives.
TEST_P(ClusterFilterCommandTest, BadArgumentsAreErrorRepliesAndNothingIsWritten) {
  sieve_test::RedisServer redis(true);
  ASSERT_TRUE(redis.Start().ok());
  const std::string one = PackedOffsets({9});
  auto expect_error = [&](std::vector<std::string> args, const std::string& what) {
    args.insert(args.begin(), crawlsieve_wire::kFilterCommand);
    const std::string reply = redis.Command(args);
    EXPECT_TRUE(reply.rfind("ERR", 0) == 0 || reply.rfind("WRONGTYPE", 0) == 0)
        << what << ": " << reply;
  };
  expect_error({"{b:bits:0}", "{b:bits:0}:trip:me", "1", "1", "run", "1000"}, "arity");
  expect_error({"{b:bits:0}", "{b:bits:0}:trip:me", "x", "1", "run", "1000", one}, "trip id");
  expect_error({"{b:bits:0}", "{b:bits:0}:trip:me", "-1", "1", "run", "1000", one}, "trip < 0");
  expect_error({"{b:bits:0}", "{b:bits:0}:trip:me", "1", "0", "run", "1000", one}, "k = 0");
  expect_error({"{b:bits:0}", "{b:bits:0}:trip:me", "1", "65", "run", "1000", one}, "k = 65");
  expect_error({"{b:bits:0}", "{b:bits:0}:trip:me", "1", "1", "walk", "1000", one}, "mode");
  expect_error({"{b:bits:0}", "{b:bits:0}:trip:me", "1", "1", "run", "0", one}, "life 0");
  expect_error({"{b:bits:0}", "{b:bits:0}:trip:me", "1", "2", "run", "1000", one}, "offsets");
  redis.Command({"RPUSH", "{b:bits:1}", "not a bitmap"});
  expect_error({"{b:bits:1}", "{b:bits:1}:trip:me", "1", "1", "run", "1000", one}, "bits a list");
  redis.Command({"RPUSH", "{b:bits:0}:trip:me", "not a record"});
  expect_error({"{b:bits:0}", "{b:bits:0}:trip:me", "1", "1", "run", "1000", one}, "record list");
  redis.Command({"SET", "{b:bits:2}:trip:me", "no-space"});
  expect_error({"{b:bits:2}", "{b:bits:2}:trip:me", "1", "1", "run", "1000", one}, "bad record");
  EXPECT_EQ(redis.Command({"EXISTS", "{b:bits:0}", "{b:bits:2}"}), "0");  // nothing written
  EXPECT_EQ(redis.Command({"PING"}), "PONG");
}

// One primary of three lacks the module: the client pushes through the
// Lua script (it never sends CRAWLSIEVE.FILTER), and every guarantee holds.
TEST(ClusterModuleChoiceTest, APrimaryWithoutTheModuleKeepsTheFilterStepOnLua) {
  sieve_test::RedisCluster cluster(3, 0, /*with_module=*/true, /*node_without_module=*/2);
  ASSERT_TRUE(cluster.Start().ok());
  RedisSieveOptions options = cluster.Options("lacking");
  options.expected_count = 20000;
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  EXPECT_FALSE((*sieve)->uses_push_module());
  const std::vector<std::string> urls = ClusterUrls("lacking", 3000);
  EXPECT_EQ(PushAll(**sieve, urls), 3000u);
  EXPECT_EQ(PushAll(**sieve, urls), 0u);
  EXPECT_EQ(cluster.CommandCalls("crawlsieve.filter"), 0);
  ExpectEachOnce(DrainAll(**sieve), urls);
  EXPECT_TRUE((*sieve)->Health().ok()) << (*sieve)->Health();
}

// The module is unloaded from one primary mid-crawl: the next filter step
// meets "unknown command" there and the client goes on through the Lua
// script (the shards that ran the module's call answer the script's resend
// from their trip records: nothing lost or doubled). Loaded again, it is
// used again once the client re-reads the slot map (here: after every
// node dropped its connections).
TEST(ClusterModuleChoiceTest, AModuleUnloadedFromAPrimaryFallsBackAndReturnsAfterAReRead) {
  sieve_test::RedisCluster cluster(3, 0, /*with_module=*/true);
  ASSERT_TRUE(cluster.Start().ok());
  RedisSieveOptions options = cluster.Options("unload");
  options.expected_count = 20000;
  // Plain v4 batches: a packed queue needs the module where {unload} lives,
  // and the module is unloaded here to test the filter step's fallback.
  options.pack_queue_batches = false;
  absl::StatusOr<std::unique_ptr<RedisSieve>> sieve = RedisSieve::Connect(options);
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  ASSERT_TRUE((*sieve)->uses_push_module());
  const std::vector<std::string> a = ClusterUrls("a", 2000), b = ClusterUrls("b", 2000),
                                 c = ClusterUrls("c", 2000);
  EXPECT_EQ(PushAll(**sieve, a), 2000u);
  ASSERT_EQ(cluster.CommandOn(1, {"MODULE", "UNLOAD", "crawlsieve"}), "OK");
  EXPECT_EQ(PushAll(**sieve, b), 2000u);
  EXPECT_FALSE((*sieve)->uses_push_module());
  EXPECT_EQ(PushAll(**sieve, a) + PushAll(**sieve, b), 0u);

  ASSERT_EQ(cluster.CommandOn(1, {"MODULE", "LOAD", CRAWL_REDIS_MODULE}), "OK");
  for (size_t i = 0; i < cluster.size(); ++i) {
    cluster.CommandOn(i, {"CLIENT", "KILL", "TYPE", "normal"});
  }
  const long long module_calls = cluster.CommandCalls("crawlsieve.filter");
  EXPECT_EQ(PushAll(**sieve, c), 2000u);
  EXPECT_TRUE((*sieve)->uses_push_module());
  EXPECT_GT(cluster.CommandCalls("crawlsieve.filter"), module_calls);
  std::vector<std::string> all = a;
  all.insert(all.end(), b.begin(), b.end());
  all.insert(all.end(), c.begin(), c.end());
  ExpectEachOnce(DrainAll(**sieve), all);
  EXPECT_TRUE((*sieve)->Health().ok()) << (*sieve)->Health();
}

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
  const std::string prefix =
      internal::PartitionPrefixes("packed", (*sieve)->queue_partitions())[internal::PartitionOfHost(
          "https://h0.example", (*sieve)->queue_partitions())];
  const int primary = cluster.PrimaryOf(KeySlot(prefix + "meta"));
  ASSERT_GE(primary, 0);
  const std::string head = cluster.CommandOn(static_cast<size_t>(primary),
                                             {"LINDEX", prefix + "q:https://h0.example", "0"});
  ASSERT_FALSE(head.empty());
  EXPECT_EQ(head[0], 5) << "not a packed batch";
  EXPECT_EQ(sieve_test::QueuedUrls(cluster.node(static_cast<size_t>(primary)),
                                   prefix + "q:https://h0.example")
                .size(),
            (urls.size() + 12) / 13);
  ExpectEachOnce(DrainAll(**sieve), urls);
}

}  // namespace
}  // namespace sieve
