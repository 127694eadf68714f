// The C API (sieve/sieve_c.h), called as a C program would. Our own contract:
// codes plus messages, payloads as bytes, the three pops,
// checkpoints, producers, the log callback.
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "sieve/sieve_c.h"
#include "sieve/test_urls.h"

namespace {

using sieve_test::ScratchDir;
using sieve_test::TestUrl;

struct SieveHandle {
  sieve_t* sieve = nullptr;
  ~SieveHandle() { sieve_free(sieve); }
};

// `spill` must outlive the options (they point into it).
sieve_options SmallOptions(const std::string& spill) {
  sieve_options options;
  sieve_options_init(&options);
  options.expected_count = 10000;
  options.queue_memory_budget_bytes = 64 << 10;
  options.spill_dir = spill.c_str();
  return options;
}

sieve_status Push(sieve_t* sieve, const std::string& url, const std::string& payload,
                  int* accepted = nullptr) {
  return sieve_push(sieve, url.data(), url.size(), payload.data(), payload.size(), accepted);
}

TEST(CApiTest, OptionsInitGivesTheCppDefaults) {
  sieve_options options;
  sieve_options_init(&options);
  EXPECT_EQ(options.expected_count, 10'000'000u);
  EXPECT_DOUBLE_EQ(options.fp_rate, 0.01);
  EXPECT_EQ(options.queue_memory_budget_bytes, uint64_t{64} << 20);
  EXPECT_EQ(options.spill_dir, nullptr);
  EXPECT_EQ(options.overflow_grow, 0);
  EXPECT_EQ(options.log, nullptr);
}

TEST(CApiTest, InvalidOptionsAreACodeAndAMessageNamingTheField) {
  sieve_options options;
  sieve_options_init(&options);
  options.fp_rate = 1.5;
  sieve_t* sieve = nullptr;
  EXPECT_EQ(sieve_create(&options, &sieve), SIEVE_INVALID_ARGUMENT);
  EXPECT_EQ(sieve, nullptr);
  EXPECT_NE(std::string(sieve_last_error()).find("fp_rate"), std::string::npos)
      << sieve_last_error();
  EXPECT_STREQ(sieve_status_name(SIEVE_INVALID_ARGUMENT), "SIEVE_INVALID_ARGUMENT");
}

// The structs can grow: options carry their size (set by init), stats are
// filled to the size the caller gives; a size no header ever had is refused
// with a message, and a struct cut after an older last field still works.
TEST(CApiTest, OptionsAndStatsSayTheirSizeSoTheyCanGrow) {
  sieve_options options;
  sieve_options_init(&options);
  EXPECT_EQ(options.struct_size, sizeof(sieve_options));
  sieve_t* sieve = nullptr;
  options.struct_size = 0;  // a struct not made by sieve_options_init
  EXPECT_EQ(sieve_create(&options, &sieve), SIEVE_INVALID_ARGUMENT);
  EXPECT_EQ(sieve, nullptr);
  EXPECT_NE(std::string(sieve_last_error()).find("struct_size"), std::string::npos)
      << sieve_last_error();

  // A caller whose header ends before `lifo`'s successor fields (here: all
  // it has) gets the rest at their defaults; one from a longer, later header
  // is read as far as this library knows.
  sieve_options_init(&options);
  options.expected_count = 1000;
  options.struct_size = sizeof(sieve_options) + 64;
  ASSERT_EQ(sieve_create(&options, &sieve), SIEVE_OK) << sieve_last_error();
  SieveHandle h{sieve};
  EXPECT_EQ(sieve_health(h.sieve), SIEVE_OK);

  sieve_stats stats;
  EXPECT_EQ(sieve_get_stats(h.sieve, &stats, 8), SIEVE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(sieve_last_error()).find("stats_size"), std::string::npos);
  EXPECT_EQ(Push(h.sieve, "https://a.example/", ""), SIEVE_OK);
  ASSERT_EQ(sieve_get_stats(h.sieve, &stats, sizeof stats), SIEVE_OK);
  EXPECT_EQ(stats.queued, 1u);
  EXPECT_EQ(stats.capacity >= 1000u, true);
}

// sieve_health reports a Sieve whose spills fail: its spill directory is
// removed after creation, so the queue past its budget cannot be written.
TEST(CApiTest, HealthSaysWhenSpillsFail) {
  ScratchDir scratch;
  const std::string dir = scratch.path().string() + "/spill";
  std::filesystem::create_directories(dir);
  sieve_options options = SmallOptions(dir);
  sieve_t* sieve = nullptr;
  ASSERT_EQ(sieve_create(&options, &sieve), SIEVE_OK) << sieve_last_error();
  SieveHandle h{sieve};
  EXPECT_EQ(sieve_health(h.sieve), SIEVE_OK);
  std::filesystem::remove_all(dir);
  for (int i = 0; i < 20000; ++i) Push(h.sieve, TestUrl(i), "payload");
  sieve_stats stats;
  ASSERT_EQ(sieve_get_stats(h.sieve, &stats, sizeof stats), SIEVE_OK);  // waits for the writer
  const sieve_status health = sieve_health(h.sieve);
  EXPECT_NE(health, SIEVE_OK);
  EXPECT_NE(std::string(sieve_last_error()).find(dir), std::string::npos)
      << sieve_status_name(health) << ": " << sieve_last_error();
  EXPECT_EQ(stats.queued, stats.accepted);  // kept in memory: nothing lost
  EXPECT_EQ(stats.lost, 0u);
}

TEST(CApiTest, PushesOnceAndPopsInOrderWithPayloads) {
  ScratchDir dir;
  const std::string spill = dir.path().string();
  sieve_options options = SmallOptions(spill);
  SieveHandle h;
  ASSERT_EQ(sieve_create(&options, &h.sieve), SIEVE_OK) << sieve_last_error();
  int accepted = -1;
  ASSERT_EQ(Push(h.sieve, "https://a.test/1", std::string("\0x\1", 3), &accepted), SIEVE_OK);
  EXPECT_EQ(accepted, 1);
  ASSERT_EQ(Push(h.sieve, "https://a.test/1", "other", &accepted), SIEVE_OK);
  EXPECT_EQ(accepted, 0);  // seen
  ASSERT_EQ(Push(h.sieve, "https://a.test/2", "", &accepted), SIEVE_OK);
  EXPECT_EQ(accepted, 1);

  sieve_entry entry;
  ASSERT_EQ(sieve_try_pop(h.sieve, &entry), SIEVE_OK);
  EXPECT_EQ(std::string(entry.url, entry.url_len), "https://a.test/1");
  EXPECT_EQ(entry.url[entry.url_len], '\0');
  EXPECT_EQ(std::string(static_cast<char*>(entry.payload), entry.payload_len),
            std::string("\0x\1", 3));
  EXPECT_EQ(sieve_done(h.sieve, entry.url, entry.url_len), SIEVE_OK);
  EXPECT_EQ(sieve_done(h.sieve, entry.url, entry.url_len), SIEVE_NOT_FOUND);
  EXPECT_NE(std::string(sieve_last_error()).find("https://a.test/1"), std::string::npos);
  sieve_entry_free(&entry);
  EXPECT_EQ(entry.url, nullptr);

  ASSERT_EQ(sieve_pop_for(h.sieve, 100, &entry), SIEVE_OK);
  EXPECT_EQ(std::string(entry.url, entry.url_len), "https://a.test/2");
  EXPECT_EQ(entry.payload, nullptr);
  EXPECT_EQ(entry.payload_len, 0u);
  // Empty queue, one URL in flight: try_pop says EMPTY, pop_for times out.
  sieve_entry none;
  EXPECT_EQ(sieve_try_pop(h.sieve, &none), SIEVE_EMPTY);
  EXPECT_EQ(sieve_pop_for(h.sieve, 10, &none), SIEVE_TIMEOUT);
  EXPECT_EQ(sieve_done(h.sieve, entry.url, entry.url_len), SIEVE_OK);
  sieve_entry_free(&entry);
  EXPECT_EQ(sieve_pop(h.sieve, &none), SIEVE_FINISHED);
  EXPECT_EQ(sieve_is_finished(h.sieve), 1);

  sieve_stats stats;
  sieve_get_stats(h.sieve, &stats, sizeof stats);
  EXPECT_EQ(stats.accepted, 2u);
  EXPECT_EQ(stats.dropped, 1u);
  EXPECT_EQ(stats.done, 2u);
  EXPECT_EQ(stats.capacity, 10000u);
  EXPECT_GT(stats.filter_bytes, 0u);
}

TEST(CApiTest, AnOversizedPayloadIsRefusedAndAClosedSieveSaysSo) {
  ScratchDir dir;
  const std::string spill = dir.path().string();
  sieve_options options = SmallOptions(spill);
  SieveHandle h;
  ASSERT_EQ(sieve_create(&options, &h.sieve), SIEVE_OK);
  int accepted = -1;
  EXPECT_EQ(
      Push(h.sieve, "https://a.test/big", std::string(SIEVE_MAX_PAYLOAD_BYTES + 1, 'x'), &accepted),
      SIEVE_REFUSED);
  EXPECT_EQ(accepted, 0);
  EXPECT_NE(std::string(sieve_last_error()).find("SIEVE_MAX_PAYLOAD_BYTES"), std::string::npos);
  sieve_stats stats;
  sieve_get_stats(h.sieve, &stats, sizeof stats);
  EXPECT_EQ(stats.refused, 1u);
  sieve_close(h.sieve);
  EXPECT_EQ(Push(h.sieve, "https://a.test/late", "", &accepted), SIEVE_CLOSED);
  sieve_entry entry;
  EXPECT_EQ(sieve_pop(h.sieve, &entry), SIEVE_FINISHED);
}

TEST(CApiTest, PrioritiesPopHighestFirstAndLifoIsAnOption) {
  for (int lifo : {0, 1}) {
    ScratchDir dir;
    const std::string spill = dir.path().string();
    sieve_options options = SmallOptions(spill);
    options.lifo = lifo;
    SieveHandle h;
    ASSERT_EQ(sieve_create(&options, &h.sieve), SIEVE_OK);
    const int32_t priorities[] = {0, 3, 0, 3, -1};
    for (int i = 0; i < 5; ++i) {
      const std::string url = TestUrl(i);
      int accepted = 0;
      ASSERT_EQ(sieve_push_priority(h.sieve, url.data(), url.size(), nullptr, 0, priorities[i],
                                    &accepted),
                SIEVE_OK);
      EXPECT_EQ(accepted, 1);
    }
    sieve_stats stats;
    sieve_get_stats(h.sieve, &stats, sizeof stats);
    EXPECT_EQ(stats.lanes, 3u);
    sieve_lane lanes[4];
    ASSERT_EQ(sieve_get_lanes(h.sieve, lanes, 4), 3u);
    EXPECT_EQ(lanes[0].priority, 3);
    EXPECT_EQ(lanes[0].queued, 2u);
    EXPECT_EQ(lanes[2].priority, -1);
    // FIFO: 1, 3, 0, 2, 4; LIFO: 3, 1, 2, 0, 4.
    const std::vector<int> want =
        lifo ? std::vector<int>{3, 1, 2, 0, 4} : std::vector<int>{1, 3, 0, 2, 4};
    for (int i : want) {
      sieve_entry entry;
      ASSERT_EQ(sieve_try_pop(h.sieve, &entry), SIEVE_OK);
      EXPECT_EQ(std::string(entry.url, entry.url_len), TestUrl(i)) << "lifo " << lifo;
      EXPECT_EQ(entry.priority, priorities[i]);
      sieve_entry_free(&entry);
    }
  }
}

TEST(CApiTest, APushPastTheLaneBoundIsRefusedWithAMessage) {
  ScratchDir dir;
  const std::string spill = dir.path().string();
  sieve_options options = SmallOptions(spill);
  SieveHandle h;
  ASSERT_EQ(sieve_create(&options, &h.sieve), SIEVE_OK);
  for (size_t i = 0; i < SIEVE_MAX_LANES; ++i) {
    const std::string url = TestUrl(i);
    ASSERT_EQ(sieve_push_priority(h.sieve, url.data(), url.size(), nullptr, 0,
                                  static_cast<int32_t>(i), nullptr),
              SIEVE_OK);
  }
  const std::string url = TestUrl(SIEVE_MAX_LANES);
  int accepted = -1;
  EXPECT_EQ(sieve_push_priority(h.sieve, url.data(), url.size(), nullptr, 0, -7, &accepted),
            SIEVE_REFUSED);
  EXPECT_EQ(accepted, 0);
  EXPECT_NE(std::string(sieve_last_error()).find("SIEVE_MAX_LANES"), std::string::npos);
  // A seen URL at a lane that exists is not an error: it is just not new.
  const std::string seen = TestUrl(0);
  EXPECT_EQ(sieve_push_priority(h.sieve, seen.data(), seen.size(), nullptr, 0, 5, &accepted),
            SIEVE_OK);
  EXPECT_EQ(accepted, 0);
}

TEST(CApiTest, BatchPushReportsEachUrl) {
  ScratchDir dir;
  const std::string spill = dir.path().string();
  sieve_options options = SmallOptions(spill);
  SieveHandle h;
  ASSERT_EQ(sieve_create(&options, &h.sieve), SIEVE_OK);
  const std::vector<std::string> urls = {"https://b.test/1", "https://b.test/2",
                                         "https://b.test/1"};
  const std::vector<std::string> payloads = {"p1", "p2", "p3"};
  const char* url_ptrs[3];
  size_t url_lens[3];
  const void* payload_ptrs[3];
  size_t payload_lens[3];
  for (int i = 0; i < 3; ++i) {
    url_ptrs[i] = urls[i].data();
    url_lens[i] = urls[i].size();
    payload_ptrs[i] = payloads[i].data();
    payload_lens[i] = payloads[i].size();
  }
  unsigned char accepted[3] = {9, 9, 9};
  size_t count = 0;
  ASSERT_EQ(sieve_push_batch(h.sieve, 3, url_ptrs, url_lens, payload_ptrs, payload_lens, accepted,
                             &count),
            SIEVE_OK);
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(accepted[0], 1);
  EXPECT_EQ(accepted[1], 1);
  EXPECT_EQ(accepted[2], 0);
  sieve_entry entry;
  ASSERT_EQ(sieve_try_pop(h.sieve, &entry), SIEVE_OK);
  EXPECT_EQ(std::string(static_cast<char*>(entry.payload), entry.payload_len), "p1");
  sieve_entry_free(&entry);
  EXPECT_EQ(
      sieve_push_batch(h.sieve, 3, url_ptrs, url_lens, payload_ptrs, nullptr, nullptr, nullptr),
      SIEVE_INVALID_ARGUMENT);
}

TEST(CApiTest, SaveAndOpenKeepTheQueueAndTheSeenSet) {
  ScratchDir dir;
  const std::string spill = dir.path().string();
  const std::string checkpoint = (dir.path() / "cp").string();
  sieve_options options = SmallOptions(spill);
  {
    SieveHandle h;
    ASSERT_EQ(sieve_create(&options, &h.sieve), SIEVE_OK);
    for (int i = 0; i < 100; ++i) ASSERT_EQ(Push(h.sieve, TestUrl(i), std::to_string(i)), SIEVE_OK);
    ASSERT_EQ(sieve_save(h.sieve, checkpoint.c_str()), SIEVE_OK) << sieve_last_error();
  }
  SieveHandle h;
  ASSERT_EQ(sieve_open(checkpoint.c_str(), &options, &h.sieve), SIEVE_OK) << sieve_last_error();
  int accepted = -1;
  ASSERT_EQ(Push(h.sieve, TestUrl(5), "", &accepted), SIEVE_OK);
  EXPECT_EQ(accepted, 0);
  for (int i = 0; i < 100; ++i) {
    sieve_entry entry;
    ASSERT_EQ(sieve_try_pop(h.sieve, &entry), SIEVE_OK);
    EXPECT_EQ(std::string(entry.url, entry.url_len), TestUrl(i));
    EXPECT_EQ(std::string(static_cast<char*>(entry.payload), entry.payload_len), std::to_string(i));
    sieve_entry_free(&entry);
  }
  SieveHandle missing;
  EXPECT_EQ(sieve_open((dir.path() / "none").c_str(), nullptr, &missing.sieve), SIEVE_NOT_FOUND);
  EXPECT_NE(std::string(sieve_last_error()).find("none"), std::string::npos);
}

TEST(CApiTest, AConsumerWaitsForAnOpenProducer) {
  ScratchDir dir;
  const std::string spill = dir.path().string();
  sieve_options options = SmallOptions(spill);
  SieveHandle h;
  ASSERT_EQ(sieve_create(&options, &h.sieve), SIEVE_OK);
  sieve_add_producer(h.sieve);
  int popped = 0;
  std::thread consumer([&] {
    sieve_entry entry;
    while (sieve_pop(h.sieve, &entry) == SIEVE_OK) {
      ++popped;
      sieve_done(h.sieve, entry.url, entry.url_len);
      sieve_entry_free(&entry);
    }
  });
  for (int i = 0; i < 50; ++i) ASSERT_EQ(Push(h.sieve, TestUrl(i), ""), SIEVE_OK);
  sieve_producer_done(h.sieve);
  consumer.join();
  EXPECT_EQ(popped, 50);
}

TEST(CApiTest, MessagesReachTheLogCallback) {
  ScratchDir dir;
  const std::string spill = dir.path().string();
  sieve_options options = SmallOptions(spill);
  options.expected_count = 100;
  std::vector<std::pair<int, std::string>> messages;
  options.log = [](void* context, int level, const char* message, size_t length) {
    EXPECT_EQ(message[length], '\0');
    static_cast<std::vector<std::pair<int, std::string>>*>(context)->emplace_back(
        level, std::string(message, length));
  };
  options.log_context = &messages;
  SieveHandle h;
  ASSERT_EQ(sieve_create(&options, &h.sieve), SIEVE_OK);
  for (int i = 0; i < 150; ++i) ASSERT_EQ(Push(h.sieve, TestUrl(i), ""), SIEVE_OK);
  int warnings = 0;
  for (const auto& [level, text] : messages) {
    if (level == SIEVE_LOG_WARNING) {
      ++warnings;
      EXPECT_NE(text.find("expected_count"), std::string::npos) << text;
    }
  }
  EXPECT_EQ(warnings, 1);
}

}  // namespace
