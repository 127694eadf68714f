// SieveOptions::log_sink (sieve/log.h): every message of the Sieve reaches the
// embedder's sink, in the library's terms. Our own contract.
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "sieve/log.h"
#include "sieve/sieve.h"
#include "sieve/test_urls.h"

namespace sieve {
namespace {

using sieve_test::ScratchDir;
using sieve_test::TestUrl;

// A sink that keeps what it was given (thread-safe, as a sink must be).
struct Recorder {
  std::mutex mutex;
  std::vector<std::pair<LogLevel, std::string>> messages;

  LogSink Sink() {
    return [this](LogLevel level, std::string_view message) {
      std::lock_guard<std::mutex> lock(mutex);
      messages.emplace_back(level, std::string(message));
    };
  }
  std::vector<std::string> At(LogLevel level) {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<std::string> out;
    for (const auto& [l, m] : messages) {
      if (l == level) out.push_back(m);
    }
    return out;
  }
};

SieveOptions Sized(const ScratchDir& dir, uint64_t expected, LogSink sink) {
  SieveOptions options;
  options.expected_count = expected;
  options.spill_dir = dir.path();
  options.queue_memory_budget_bytes = 64 << 10;
  options.log_sink = std::move(sink);
  return options;
}

TEST(LogSinkTest, CapacityWarningGoesToTheSinkInTheLibrarysTerms) {
  ScratchDir dir;
  Recorder recorder;
  auto sieve = Sieve::Create(Sized(dir, 1000, recorder.Sink()));
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  for (uint64_t i = 0; i < 1500; ++i) (*sieve)->Push(TestUrl(i));
  const std::vector<std::string> warnings = recorder.At(LogLevel::kWarning);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ((*sieve)->Stats().overflow_warnings, 1u);
  EXPECT_NE(warnings[0].find("SieveOptions::expected_count"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("OverflowPolicy::kGrow"), std::string::npos) << warnings[0];
  EXPECT_EQ(warnings[0].find("--"), std::string::npos) << "a CLI flag: " << warnings[0];
}

TEST(LogSinkTest, BatchPushesWarnThroughTheSinkToo) {
  ScratchDir dir;
  Recorder recorder;
  auto sieve = Sieve::Create(Sized(dir, 1000, recorder.Sink()));
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  std::vector<std::string> urls;
  for (uint64_t i = 0; i < 1500; ++i) urls.push_back(TestUrl(i));
  std::vector<std::string_view> views(urls.begin(), urls.end());
  (*sieve)->PushBatch(views);
  EXPECT_EQ(recorder.At(LogLevel::kWarning).size(), 1u);
}

TEST(LogSinkTest, CreationReportsTheFilterSizeAtDebugLevel) {
  ScratchDir dir;
  Recorder recorder;
  auto sieve = Sieve::Create(Sized(dir, 5000, recorder.Sink()));
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  const std::vector<std::string> debug = recorder.At(LogLevel::kDebug);
  ASSERT_EQ(debug.size(), 1u);
  EXPECT_NE(debug[0].find("expected_count 5000"), std::string::npos) << debug[0];
}

TEST(LogSinkTest, OpenTakesTheSinkFromItsRuntimeOptions) {
  ScratchDir dir;
  {
    auto sieve = Sieve::Create(Sized(dir, 1000, nullptr));
    ASSERT_TRUE(sieve.ok()) << sieve.status();
    for (uint64_t i = 0; i < 900; ++i) (*sieve)->Push(TestUrl(i));
    ASSERT_TRUE((*sieve)->Save(dir.path() / "cp").ok());
  }
  Recorder recorder;
  auto reopened = Sieve::Open(dir.path() / "cp", Sized(dir, 1, recorder.Sink()));
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  for (uint64_t i = 900; i < 1500; ++i) (*reopened)->Push(TestUrl(i));
  EXPECT_EQ(recorder.At(LogLevel::kWarning).size(), 1u);
}

TEST(LogSinkTest, LevelNames) {
  EXPECT_STREQ(LogLevelName(LogLevel::kDebug), "debug");
  EXPECT_STREQ(LogLevelName(LogLevel::kInfo), "info");
  EXPECT_STREQ(LogLevelName(LogLevel::kWarning), "warning");
  EXPECT_STREQ(LogLevelName(LogLevel::kError), "error");
}

}  // namespace
}  // namespace sieve
