// RedisSieve's server slots (TakeServerSlot, GiveServerSlot): a server's
// fetch slots and start interval shared by the clients of one frontier, and
// a slot whose holder never gives it back returning at its lease's end.
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "redis_fixture/redis_server.h"
#include "sieve/redis_sieve.h"

namespace {

using sieve::RedisSieve;
using std::chrono::milliseconds;

class ServerSlotsTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(redis_.Start().ok()); }
  std::unique_ptr<RedisSieve> Connect() {
    absl::StatusOr<std::unique_ptr<RedisSieve>> sieve =
        RedisSieve::Connect(redis_.Options("slots"));
    EXPECT_TRUE(sieve.ok()) << sieve.status();
    return sieve.ok() ? *std::move(sieve) : nullptr;
  }
  sieve_test::RedisServer redis_;
};

constexpr char kServer[] = "10.0.0.7:443";
constexpr milliseconds kLongLease(60'000);

TEST_F(ServerSlotsTest, TwoClientsShareAServersSlots) {
  auto a = Connect();
  auto b = Connect();
  ASSERT_TRUE(a && b);
  const RedisSieve::ServerSlot first = a->TakeServerSlot(kServer, 2, milliseconds(0), kLongLease);
  const RedisSieve::ServerSlot second = b->TakeServerSlot(kServer, 2, milliseconds(0), kLongLease);
  ASSERT_FALSE(first.token.empty());
  ASSERT_FALSE(second.token.empty());
  EXPECT_NE(first.token, second.token);
  // Both slots are held: refused, with no time to wait for (ask again).
  const RedisSieve::ServerSlot third = a->TakeServerSlot(kServer, 2, milliseconds(0), kLongLease);
  EXPECT_TRUE(third.token.empty());
  EXPECT_EQ(third.retry_in, milliseconds(0));
  EXPECT_EQ(redis_.Command({"ZCARD", "slots:srv:10.0.0.7:443"}), "2");
  // Another server is another set of slots.
  EXPECT_FALSE(b->TakeServerSlot("10.0.0.8:443", 2, milliseconds(0), kLongLease).token.empty());
  // A slot given back is free for any client.
  b->GiveServerSlot(kServer, second.token, milliseconds(0));
  EXPECT_FALSE(a->TakeServerSlot(kServer, 2, milliseconds(0), kLongLease).token.empty());
  EXPECT_TRUE(b->TakeServerSlot(kServer, 2, milliseconds(0), kLongLease).token.empty());
  EXPECT_TRUE(a->Health().ok()) << a->Health();
  EXPECT_TRUE(b->Health().ok()) << b->Health();
}

TEST_F(ServerSlotsTest, AStartWaitsForTheFleetsInterval) {
  auto a = Connect();
  auto b = Connect();
  ASSERT_TRUE(a && b);
  const milliseconds interval(60'000);
  const RedisSieve::ServerSlot first = a->TakeServerSlot(kServer, 0, interval, kLongLease);
  ASSERT_FALSE(first.token.empty());
  // No slot limit, but the other client must wait out the interval: its
  // rest is the answer (a minute less the round trips).
  const RedisSieve::ServerSlot refused = b->TakeServerSlot(kServer, 0, interval, kLongLease);
  EXPECT_TRUE(refused.token.empty());
  EXPECT_GT(refused.retry_in, milliseconds(50'000));
  EXPECT_LE(refused.retry_in, interval);
  // Given back with the interval counted again from now: still waiting.
  a->GiveServerSlot(kServer, first.token, interval);
  EXPECT_TRUE(b->TakeServerSlot(kServer, 0, interval, kLongLease).token.empty());
}

TEST_F(ServerSlotsTest, ASlotNeverGivenBackReturnsAtItsLeasesEnd) {
  auto a = Connect();
  auto b = Connect();
  ASSERT_TRUE(a && b);
  // a takes the one slot for 200 ms and never gives it back (as a process
  // killed mid-fetch); b gets it once the lease ends, and not before.
  const auto before_take = std::chrono::steady_clock::now();
  ASSERT_FALSE(a->TakeServerSlot(kServer, 1, milliseconds(0), milliseconds(200)).token.empty());
  EXPECT_TRUE(b->TakeServerSlot(kServer, 1, milliseconds(0), kLongLease).token.empty());
  bool taken = false;
  for (int attempt = 0; attempt < 100 && !taken; ++attempt) {  // bounded: 5 s at most
    std::this_thread::sleep_for(milliseconds(50));
    taken = !b->TakeServerSlot(kServer, 1, milliseconds(0), kLongLease).token.empty();
  }
  EXPECT_TRUE(taken);
  // Redis's clock counts whole milliseconds: 2 ms of rounding at most.
  EXPECT_GE(std::chrono::steady_clock::now() - before_take, milliseconds(198));
}

}  // namespace
