// Several threads writing at once (run under TSan in CI), a queue limit small
// enough that writers block on the disk thread, and TruncateTornWarc on a file
// cut at many offsets (what kill -9 mid-write leaves).
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "crawler/warc.h"
#include "gtest/gtest.h"
#include "test_exchanges.h"
#include "warc_reader.h"

namespace crawler {
namespace {

using crawler_test::NumberedExchange;
using crawler_test::ReadWarcFile;

TEST(WarcConcurrency, FourThreadsWriteEveryPairIntact) {
  WarcOptions options = crawler_test::OptionsWithPrefix(crawler_test::MakeTempDir("conc") + "/c");
  options.queue_limit_bytes = 4096;  // writers wait for the disk thread
  options.max_file_size = 100000;    // and rotate while racing
  auto writer = WarcWriter::Create(options);
  ASSERT_TRUE(writer.ok());
  constexpr int kThreads = 4;
  constexpr int kPerThread = 100;
  std::vector<std::vector<WarcLocation>> at(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto location = (*writer)->Write(NumberedExchange(t * kPerThread + i, 1500));
        if (location.ok()) at[t].push_back(*location);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_TRUE((*writer)->Close().ok());
  const WarcStats stats = (*writer)->Stats();
  EXPECT_EQ(stats.responses, uint64_t{kThreads * kPerThread});
  EXPECT_EQ(stats.queued_bytes, 0u);
  std::map<std::pair<std::string, uint64_t>, std::string> responses;  // (file, offset) -> URI
  std::set<std::string> uris;
  for (uint64_t f = 0; f < stats.files; ++f) {
    char name[32];
    std::snprintf(name, sizeof name, "-%05d.warc.gz", static_cast<int>(f));
    auto records = ReadWarcFile(options.prefix + name);
    ASSERT_TRUE(records.ok()) << records.status();
    for (size_t r = 1; r < records->size(); r += 2) {
      const auto& response = (*records)[r];
      const auto& request = (*records)[r + 1];
      ASSERT_EQ(request.Field("WARC-Concurrent-To"), response.Field("WARC-Record-ID"));
      ASSERT_EQ(request.Field("WARC-Target-URI"), response.Field("WARC-Target-URI"));
      EXPECT_EQ(response.Field("WARC-Payload-Digest"),
                crawler_test::TestSha1Base32(response.HttpPayload()));
      responses[{options.prefix + name, response.offset}] = response.Field("WARC-Target-URI");
      uris.insert(response.Field("WARC-Target-URI"));
    }
  }
  EXPECT_EQ(uris.size(), size_t{kThreads * kPerThread});
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(at[t].size(), size_t{kPerThread});
    for (int i = 0; i < kPerThread; ++i) {
      const std::pair<std::string, uint64_t> key = {at[t][i].file, at[t][i].offset};
      EXPECT_EQ(responses[key], NumberedExchange(t * kPerThread + i, 0).target_uri);
    }
  }
}

// Our choice: the disk thread writes in batches, but a record that fills no
// batch still reaches the file within the batch delay (50 ms), without Close:
// a crawl killed with -9 loses at most that much, not everything queued.
TEST(WarcDisk, ALoneRecordReachesTheFileWithoutClose) {
  WarcOptions options = crawler_test::OptionsWithPrefix(crawler_test::MakeTempDir("lone") + "/l");
  auto writer = WarcWriter::Create(options);
  ASSERT_TRUE(writer.ok());
  auto at = (*writer)->Write(NumberedExchange(7, 300));
  ASSERT_TRUE(at.ok());
  const std::string path = options.prefix + "-00000.warc.gz";
  const uint64_t written = (*writer)->Stats().written_bytes;  // warcinfo + this pair
  // The file appears with the first batch: until then, size 0.
  const auto size_now = [&] {
    std::error_code error;
    const uint64_t size = std::filesystem::file_size(path, error);
    return error ? uint64_t{0} : size;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (size_now() < written && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(size_now(), written);
  auto records = ReadWarcFile(path);  // complete members, read while the writer is open
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 3u);  // warcinfo, response, request
  EXPECT_EQ((*records)[1].offset, at->offset);
  EXPECT_EQ((*records)[1].Field("WARC-Target-URI"), NumberedExchange(7, 0).target_uri);
  ASSERT_TRUE((*writer)->Close().ok());
}

// A checkpoint calls Sync: every record queued before it is in the file when
// it returns, at once, not after the batch delay; writers go on meanwhile.
TEST(WarcDisk, SyncPutsEveryQueuedRecordOnDisk) {
  WarcOptions options = crawler_test::OptionsWithPrefix(crawler_test::MakeTempDir("sync") + "/s");
  auto writer = WarcWriter::Create(options);
  ASSERT_TRUE(writer.ok());
  const std::string path = options.prefix + "-00000.warc.gz";
  std::atomic<bool> stop{false};
  std::thread other([&] {  // keeps appending while Sync runs
    for (int i = 1000; !stop.load(); ++i)
      ASSERT_TRUE((*writer)->Write(NumberedExchange(i, 200)).ok());
  });
  for (int round = 0; round < 20; ++round) {
    auto at = (*writer)->Write(NumberedExchange(round, 300));
    ASSERT_TRUE(at.ok());
    ASSERT_TRUE((*writer)->Sync().ok());
    std::error_code error;
    const uint64_t size = std::filesystem::file_size(path, error);
    ASSERT_FALSE(error);
    EXPECT_GT(size, at->offset) << "round " << round;  // this pair's response is written
  }
  stop = true;
  other.join();
  auto records = ReadWarcFile(path);
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_GE(records->size(), 1u + 2u * 20u);
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_TRUE((*writer)->Sync().ok());  // after Close: Close's result
}

TEST(WarcTorn, CutAtAnyOffsetKeepsExactlyTheCompleteRecords) {
  const std::string dir = crawler_test::MakeTempDir("torn");
  WarcOptions options = crawler_test::OptionsWithPrefix(dir + "/t");
  auto writer = WarcWriter::Create(options);
  ASSERT_TRUE(writer.ok());
  for (int i = 0; i < 6; ++i) ASSERT_TRUE((*writer)->Write(NumberedExchange(i, 700)).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  const std::string whole = crawler_test::ReadWholeFile(options.prefix + "-00000.warc.gz");
  auto records = ReadWarcFile(options.prefix + "-00000.warc.gz");
  ASSERT_TRUE(records.ok());
  std::vector<uint64_t> ends;  // where each complete member ends
  for (const auto& r : *records) ends.push_back(r.offset + r.member_size);
  const std::string cut_path = dir + "/cut.warc.gz";
  for (size_t cut = 0; cut <= whole.size(); cut += 11) {
    {
      std::ofstream out(cut_path, std::ios::binary | std::ios::trunc);
      out.write(whole.data(), static_cast<std::streamsize>(cut));
    }
    ASSERT_TRUE(TruncateTornWarc(cut_path).ok());
    uint64_t expected = 0;
    for (uint64_t end : ends) {
      if (end <= cut) expected = end;
    }
    ASSERT_EQ(std::filesystem::file_size(cut_path), expected) << "cut at " << cut;
    ASSERT_TRUE(ReadWarcFile(cut_path).ok());
  }
  ASSERT_TRUE(TruncateTornWarc(options.prefix + "-00000.warc.gz").ok());
  EXPECT_EQ(std::filesystem::file_size(options.prefix + "-00000.warc.gz"), whole.size());
  EXPECT_TRUE(absl::IsNotFound(TruncateTornWarc(dir + "/missing.warc.gz")));
}

TEST(WarcTorn, GarbageAfterTheLastRecordIsRemoved) {
  const std::string dir = crawler_test::MakeTempDir("garbage");
  WarcOptions options = crawler_test::OptionsWithPrefix(dir + "/g");
  auto writer = WarcWriter::Create(options);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Write(NumberedExchange(1, 100)).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  const std::string path = options.prefix + "-00000.warc.gz";
  const uint64_t size = std::filesystem::file_size(path);
  {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << "\x1f\x8b garbage that is not deflate";
  }
  ASSERT_TRUE(TruncateTornWarc(path).ok());
  EXPECT_EQ(std::filesystem::file_size(path), size);
}

}  // namespace
}  // namespace crawler
