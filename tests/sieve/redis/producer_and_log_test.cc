// RedisSieve's producer counting (Sieve::AddProducer, this client's
// producers) and its LogSink (RedisSieveOptions::log_sink). Our own
// contract; a real redis-server on 127.0.0.1.
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "redis_fixture/redis_server.h"
#include "sieve/redis_sieve.h"

namespace sieve {
namespace {

TEST(RedisProducerTest, AConsumerStartedBeforeItsProducerGetsEveryUrl) {
  sieve_test::RedisServer server;
  ASSERT_TRUE(server.Start().ok());
  RedisSieveOptions options = server.Options("producers");
  options.expected_count = 10000;
  auto made = RedisSieve::Connect(options);
  ASSERT_TRUE(made.ok()) << made.status();
  RedisSieve& sieve = **made;
  Sieve::Producer producer(sieve);
  EXPECT_FALSE(sieve.IsFinished());
  std::atomic<int> popped{0};
  std::thread consumer([&] {
    while (std::optional<std::string> url = sieve.Pop()) {
      ++popped;
      sieve.MarkDone(*url);
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the consumer waits
  for (int i = 0; i < 100; ++i) sieve.Push("https://p.test/" + std::to_string(i));
  producer.Done();
  consumer.join();
  EXPECT_EQ(popped.load(), 100);
  EXPECT_TRUE(sieve.IsFinished());
}

TEST(RedisLogSinkTest, TheCapacityWarningGoesToTheSink) {
  sieve_test::RedisServer server;
  ASSERT_TRUE(server.Start().ok());
  RedisSieveOptions options = server.Options("logsink");
  options.expected_count = 100;
  std::mutex mutex;
  std::vector<std::string> warnings;
  options.log_sink = [&](LogLevel level, std::string_view message) {
    std::lock_guard<std::mutex> lock(mutex);
    if (level == LogLevel::kWarning) warnings.emplace_back(message);
  };
  auto made = RedisSieve::Connect(options);
  ASSERT_TRUE(made.ok()) << made.status();
  for (int i = 0; i < 300; ++i) (*made)->Push("https://w.test/" + std::to_string(i));
  (*made)->Stats();  // refreshes the fleet figures, which checks the capacity
  std::lock_guard<std::mutex> lock(mutex);
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings[0].find("SieveOptions::expected_count"), std::string::npos) << warnings[0];
}

}  // namespace
}  // namespace sieve
