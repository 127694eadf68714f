// RedisSieve's server slots (TakeServerSlot, GiveServerSlot): a server's
// fetch slots and start interval shared by the clients of one frontier, a
// slot whose holder never gives it back returning at its lease's end, and
// the line of refused clients: a free start goes to the one waiting
// longest, a client giving back and asking at once comes after it, and a
// waiter that stops asking leaves the line after its patience.
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

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
// Long enough that no client of these tests loses its place by being slow.
constexpr milliseconds kPatience(60'000);

TEST_F(ServerSlotsTest, TwoClientsShareAServersSlots) {
  auto a = Connect();
  auto b = Connect();
  ASSERT_TRUE(a && b);
  const RedisSieve::ServerSlot first =
      a->TakeServerSlot(kServer, 2, milliseconds(0), kLongLease, kPatience);
  const RedisSieve::ServerSlot second =
      b->TakeServerSlot(kServer, 2, milliseconds(0), kLongLease, kPatience);
  ASSERT_FALSE(first.token.empty());
  ASSERT_FALSE(second.token.empty());
  EXPECT_NE(first.token, second.token);
  // Both slots are held: refused, with no time to wait for (ask again).
  const RedisSieve::ServerSlot third =
      a->TakeServerSlot(kServer, 2, milliseconds(0), kLongLease, kPatience);
  EXPECT_TRUE(third.token.empty());
  EXPECT_EQ(third.retry_in, milliseconds(0));
  EXPECT_EQ(redis_.Command({"ZCARD", "slots:srv:10.0.0.7:443"}), "2");
  // Another server is another set of slots.
  EXPECT_FALSE(
      b->TakeServerSlot("10.0.0.8:443", 2, milliseconds(0), kLongLease, kPatience).token.empty());
  // A slot given back goes to the client refused before (a, in line).
  b->GiveServerSlot(kServer, second.token, milliseconds(0));
  EXPECT_FALSE(a->TakeServerSlot(kServer, 2, milliseconds(0), kLongLease, kPatience).token.empty());
  EXPECT_TRUE(b->TakeServerSlot(kServer, 2, milliseconds(0), kLongLease, kPatience).token.empty());
  EXPECT_TRUE(a->Health().ok()) << a->Health();
  EXPECT_TRUE(b->Health().ok()) << b->Health();
}

TEST_F(ServerSlotsTest, AStartWaitsForTheFleetsInterval) {
  auto a = Connect();
  auto b = Connect();
  ASSERT_TRUE(a && b);
  const milliseconds interval(60'000);
  const RedisSieve::ServerSlot first =
      a->TakeServerSlot(kServer, 0, interval, kLongLease, kPatience);
  ASSERT_FALSE(first.token.empty());
  // No slot limit, but the other client must wait out the interval: its
  // rest is the answer (a minute less the round trips).
  const RedisSieve::ServerSlot refused =
      b->TakeServerSlot(kServer, 0, interval, kLongLease, kPatience);
  EXPECT_TRUE(refused.token.empty());
  EXPECT_GT(refused.retry_in, milliseconds(50'000));
  EXPECT_LE(refused.retry_in, interval);
  // Given back with the interval counted again from now: still waiting.
  a->GiveServerSlot(kServer, first.token, interval);
  EXPECT_TRUE(b->TakeServerSlot(kServer, 0, interval, kLongLease, kPatience).token.empty());
}

TEST_F(ServerSlotsTest, ASlotNeverGivenBackReturnsAtItsLeasesEnd) {
  auto a = Connect();
  auto b = Connect();
  ASSERT_TRUE(a && b);
  // a takes the one slot for 200 ms and never gives it back (as a process
  // killed mid-fetch); b gets it once the lease ends, and not before.
  const auto before_take = std::chrono::steady_clock::now();
  ASSERT_FALSE(
      a->TakeServerSlot(kServer, 1, milliseconds(0), milliseconds(200), kPatience).token.empty());
  EXPECT_TRUE(b->TakeServerSlot(kServer, 1, milliseconds(0), kLongLease, kPatience).token.empty());
  bool taken = false;
  for (int attempt = 0; attempt < 100 && !taken; ++attempt) {  // bounded: 5 s at most
    std::this_thread::sleep_for(milliseconds(50));
    taken = !b->TakeServerSlot(kServer, 1, milliseconds(0), kLongLease, kPatience).token.empty();
  }
  EXPECT_TRUE(taken);
  // Redis's clock counts whole milliseconds: 2 ms of rounding at most.
  EXPECT_GE(std::chrono::steady_clock::now() - before_take, milliseconds(198));
}

// Whether `client` got a slot of kServer (limit 1, no interval).
bool TakesTheOneSlot(RedisSieve& client, milliseconds patience = kPatience) {
  return !client.TakeServerSlot(kServer, 1, milliseconds(0), kLongLease, patience).token.empty();
}

// Tickets are microseconds of Redis's clock: a pause makes two refusals'
// order certain.
void LetTheClockMove() { std::this_thread::sleep_for(milliseconds(2)); }

TEST_F(ServerSlotsTest, TheSlotGoesToTheClientWaitingLongest) {
  auto a = Connect();
  auto b = Connect();
  auto c = Connect();
  ASSERT_TRUE(a && b && c);
  const RedisSieve::ServerSlot held =
      a->TakeServerSlot(kServer, 1, milliseconds(0), kLongLease, kPatience);
  ASSERT_FALSE(held.token.empty());
  EXPECT_FALSE(TakesTheOneSlot(*b));  // b waits first
  LetTheClockMove();
  EXPECT_FALSE(TakesTheOneSlot(*c));  // then c
  EXPECT_EQ(redis_.Command({"ZCARD", "slots:srvline:10.0.0.7:443"}), "2");
  a->GiveServerSlot(kServer, held.token, milliseconds(0));
  // The slot is free, but b waited longest: c and a (asking again at once)
  // are refused, as often as they ask, until b took it.
  for (int ask = 0; ask < 3; ++ask) {
    EXPECT_FALSE(TakesTheOneSlot(*c)) << ask;
    EXPECT_FALSE(TakesTheOneSlot(*a)) << ask;
  }
  LetTheClockMove();
  const RedisSieve::ServerSlot to_b =
      b->TakeServerSlot(kServer, 1, milliseconds(0), kLongLease, kPatience);
  ASSERT_FALSE(to_b.token.empty());
  // b gives it back and asks again at once: c (then a) waited longer.
  b->GiveServerSlot(kServer, to_b.token, milliseconds(0));
  EXPECT_FALSE(TakesTheOneSlot(*b));
  EXPECT_FALSE(TakesTheOneSlot(*a));
  const RedisSieve::ServerSlot to_c =
      c->TakeServerSlot(kServer, 1, milliseconds(0), kLongLease, kPatience);
  ASSERT_FALSE(to_c.token.empty());
  c->GiveServerSlot(kServer, to_c.token, milliseconds(0));
  EXPECT_FALSE(TakesTheOneSlot(*b));  // a was refused before b asked again
  EXPECT_TRUE(TakesTheOneSlot(*a));
  EXPECT_EQ(redis_.Command({"ZCARD", "slots:srvline:10.0.0.7:443"}), "1");  // b
  for (auto* client : {a.get(), b.get(), c.get()}) {
    EXPECT_TRUE(client->Health().ok()) << client->Health();
  }
}

TEST_F(ServerSlotsTest, AClientGivingBackAndAskingAtOnceDoesNotOutrunAWaiter) {
  auto a = Connect();
  auto b = Connect();
  ASSERT_TRUE(a && b);
  // One slot, two clients that want it all the time: the holder gives it
  // back and asks again at once, before the other asks; the other, waiting
  // longer, gets it every time, and the holder waits in its turn.
  RedisSieve* holder = a.get();
  RedisSieve* waiter = b.get();
  std::string token =
      holder->TakeServerSlot(kServer, 1, milliseconds(0), kLongLease, kPatience).token;
  ASSERT_FALSE(token.empty());
  EXPECT_FALSE(TakesTheOneSlot(*waiter));
  int a_starts = 1;
  for (int round = 0; round < 10; ++round) {
    holder->GiveServerSlot(kServer, token, milliseconds(0));
    EXPECT_FALSE(TakesTheOneSlot(*holder)) << round;
    token = waiter->TakeServerSlot(kServer, 1, milliseconds(0), kLongLease, kPatience).token;
    ASSERT_FALSE(token.empty()) << round;
    if (waiter == a.get()) ++a_starts;
    std::swap(holder, waiter);
  }
  EXPECT_EQ(redis_.Command({"ZCARD", "slots:srv:10.0.0.7:443"}), "1");
  EXPECT_EQ(a_starts, 6);  // 11 starts, alternating from a's
}

TEST_F(ServerSlotsTest, AWaiterThatStopsAskingLeavesTheLineAfterItsPatience) {
  auto a = Connect();
  auto b = Connect();
  auto c = Connect();
  ASSERT_TRUE(a && b && c);
  const RedisSieve::ServerSlot held =
      a->TakeServerSlot(kServer, 1, milliseconds(0), kLongLease, kPatience);
  ASSERT_FALSE(held.token.empty());
  // b is refused with 200 ms of patience and never asks again (as a
  // process killed while waiting); c waits after it.
  const auto b_asked = std::chrono::steady_clock::now();
  EXPECT_FALSE(TakesTheOneSlot(*b, milliseconds(200)));
  LetTheClockMove();
  EXPECT_FALSE(TakesTheOneSlot(*c));
  a->GiveServerSlot(kServer, held.token, milliseconds(0));
  // The keys of the line lapse with their last waiter's place.
  const long long line_ttl = std::stoll(redis_.Command({"PTTL", "slots:srvline:10.0.0.7:443"}));
  EXPECT_GT(line_ttl, 200);
  EXPECT_LE(line_ttl, kPatience.count() + 1);
  // The free slot is b's until b's place lapses: c gets it then, not before.
  bool taken = false;
  for (int attempt = 0; attempt < 100 && !taken; ++attempt) {  // bounded: 5 s at most
    taken = TakesTheOneSlot(*c);
    if (!taken) std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_TRUE(taken);
  // Redis's clock counts whole milliseconds: 2 ms of rounding at most.
  EXPECT_GE(std::chrono::steady_clock::now() - b_asked, milliseconds(198));
  EXPECT_EQ(redis_.Command({"ZCARD", "slots:srvline:10.0.0.7:443"}), "0");
  EXPECT_EQ(redis_.Command({"ZCARD", "slots:srvlive:10.0.0.7:443"}), "0");
}

TEST_F(ServerSlotsTest, TheIntervalsNextStartGoesToTheClientWaitingLongest) {
  auto a = Connect();
  auto b = Connect();
  auto c = Connect();
  ASSERT_TRUE(a && b && c);
  const milliseconds interval(100);
  ASSERT_FALSE(a->TakeServerSlot(kServer, 0, interval, kLongLease, kPatience).token.empty());
  // No slot limit: b then c wait for the interval's rest.
  const RedisSieve::ServerSlot b_refused =
      b->TakeServerSlot(kServer, 0, interval, kLongLease, kPatience);
  EXPECT_TRUE(b_refused.token.empty());
  EXPECT_GT(b_refused.retry_in, milliseconds(0));
  LetTheClockMove();
  EXPECT_TRUE(c->TakeServerSlot(kServer, 0, interval, kLongLease, kPatience).token.empty());
  std::this_thread::sleep_for(interval + milliseconds(5));
  // The interval is over: its one start is b's, whoever asks first.
  const RedisSieve::ServerSlot c_early =
      c->TakeServerSlot(kServer, 0, interval, kLongLease, kPatience);
  EXPECT_TRUE(c_early.token.empty());
  const RedisSieve::ServerSlot a_again =
      a->TakeServerSlot(kServer, 0, interval, kLongLease, kPatience);
  EXPECT_TRUE(a_again.token.empty());
  EXPECT_FALSE(b->TakeServerSlot(kServer, 0, interval, kLongLease, kPatience).token.empty());
  // Then the next interval's start is c's (a came after it).
  std::this_thread::sleep_for(interval + milliseconds(5));
  EXPECT_TRUE(a->TakeServerSlot(kServer, 0, interval, kLongLease, kPatience).token.empty());
  EXPECT_FALSE(c->TakeServerSlot(kServer, 0, interval, kLongLease, kPatience).token.empty());
}

}  // namespace
