// Save and Open: the same queue order, seen set and stats after a restore;
// in-flight URLs queued again first; a truncated or corrupted checkpoint fails
// cleanly; a failed save leaves the previous checkpoint whole; and a golden
// test freezes the format's own bytes.
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"
#include "sieve/sieve.h"
#include "sieve/test_urls.h"

namespace sieve {
namespace {

using sieve_test::ScratchDir;
using sieve_test::TestUrl;

SieveOptions CheckpointOptions(const ScratchDir& dir, uint64_t expected) {
  SieveOptions options;
  options.expected_count = expected;
  options.spill_dir = dir.path() / "spill";
  options.queue_memory_budget_bytes = 64 << 10;
  return options;
}

std::unique_ptr<Sieve> OpenSieve(const SieveOptions& options) {
  absl::StatusOr<std::unique_ptr<Sieve>> sieve = Sieve::Create(options);
  EXPECT_TRUE(sieve.ok()) << sieve.status();
  return *std::move(sieve);
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteFile(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::vector<std::string> Drain(Sieve& sieve) {
  std::vector<std::string> urls;
  while (std::optional<std::string> url = sieve.TryPop()) urls.push_back(*url);
  return urls;
}

// A sieve whose queue is partly on disk, with 3 URLs in flight.
std::unique_ptr<Sieve> BusySieve(const SieveOptions& options) {
  auto sieve = OpenSieve(options);
  for (int i = 0; i < 20000; ++i) sieve->Push(TestUrl(i));
  for (int i = 0; i < 3; ++i) sieve->Pop();
  EXPECT_GT(sieve->Stats().spilled_segments, 0u);
  return sieve;
}

TEST(CheckpointTest, RestoresOrderSeenSetAndStats) {
  ScratchDir dir;
  auto original = BusySieve(CheckpointOptions(dir, 50000));
  const auto ckpt = dir.path() / "ckpt";
  ASSERT_TRUE(original->Save(ckpt).ok());
  absl::StatusOr<std::unique_ptr<Sieve>> restored = Sieve::Open(ckpt, CheckpointOptions(dir, 1));
  ASSERT_TRUE(restored.ok()) << restored.status();

  const SieveStats before = original->Stats();
  const SieveStats after = (*restored)->Stats();
  EXPECT_EQ(after.queued, before.queued + before.in_flight);  // in flight -> queued
  EXPECT_EQ(after.in_flight, 0u);
  EXPECT_EQ(after.accepted, before.accepted);
  EXPECT_EQ(after.dropped, before.dropped);
  EXPECT_EQ(after.popped, before.popped);
  EXPECT_EQ(after.capacity, 50000u);  // from the checkpoint, not from runtime options
  EXPECT_EQ(after.filter_bytes, before.filter_bytes);
  EXPECT_EQ(after.estimated_count, before.estimated_count);
  EXPECT_DOUBLE_EQ(after.fill_ratio, before.fill_ratio);

  // Seen set: every URL pushed before is still seen; fresh ones are not
  // (except at the filter's false-positive rate, identical in both).
  for (int i = 0; i < 20000; i += 7) ASSERT_FALSE((*restored)->Push(TestUrl(i)));
  int fresh_original = 0;
  int fresh_restored = 0;
  for (int i = 100000; i < 102000; ++i) {
    fresh_original += original->Push(TestUrl(i));
    fresh_restored += (*restored)->Push(TestUrl(i));
  }
  EXPECT_EQ(fresh_original, fresh_restored);
  EXPECT_GT(fresh_restored, 1900);

  // Order: the 3 in-flight URLs first (in pop order), then the queue as it was.
  std::vector<std::string> expected = {TestUrl(0), TestUrl(1), TestUrl(2)};
  for (std::string& url : Drain(*original)) expected.push_back(std::move(url));
  EXPECT_EQ(Drain(**restored), expected);
}

// Binary payloads of varied lengths (empty, one byte with NUL, up to 2 KiB).
std::string PayloadFor(int i) {
  std::string payload(static_cast<size_t>(i % 5 == 0 ? 0 : (i * 37) % 2048), '\0');
  for (size_t j = 0; j < payload.size(); ++j) payload[j] = static_cast<char>((i + j) & 0xff);
  return payload;
}

TEST(CheckpointTest, PayloadsSurviveMemorySpillDeferSaveAndRestoreInFifoOrder) {
  ScratchDir dir;
  auto sieve = OpenSieve(CheckpointOptions(dir, 50000));
  for (int i = 0; i < 20000; ++i) ASSERT_TRUE(sieve->Push(TestUrl(i), PayloadFor(i)));
  ASSERT_GT(sieve->Stats().spilled_segments, 0u);  // part of the queue is on disk
  // Three in flight; the second is given back (to the tail, with its payload).
  std::vector<SieveEntry> popped;
  for (int i = 0; i < 3; ++i) popped.push_back(*sieve->TryPopEntry());
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(popped[i].url, TestUrl(i));
    EXPECT_EQ(popped[i].payload, PayloadFor(i));
  }
  ASSERT_TRUE(sieve->Defer(TestUrl(1)));
  ASSERT_TRUE(sieve->Save(dir.path() / "ckpt").ok());
  absl::StatusOr<std::unique_ptr<Sieve>> restored =
      Sieve::Open(dir.path() / "ckpt", CheckpointOptions(dir, 1));
  ASSERT_TRUE(restored.ok()) << restored.status();

  // In flight first (0, 2 in pop order), then 3..19999, then the deferred 1.
  std::vector<int> order = {0, 2};
  for (int i = 3; i < 20000; ++i) order.push_back(i);
  order.push_back(1);
  for (int i : order) {
    std::optional<SieveEntry> entry = (*restored)->TryPopEntry();
    ASSERT_TRUE(entry.has_value()) << i;
    ASSERT_EQ(entry->url, TestUrl(i));
    ASSERT_EQ(entry->payload, PayloadFor(i)) << TestUrl(i);
  }
  EXPECT_FALSE((*restored)->TryPopEntry().has_value());
}

TEST(CheckpointTest, OversizedPayloadIsRefusedWithoutTouchingTheFilter) {
  ScratchDir dir;
  auto sieve = OpenSieve(CheckpointOptions(dir, 1000));
  const std::string big(kMaxPayloadBytes + 1, 'x');
  EXPECT_FALSE(sieve->Push("https://a.example/", big));
  EXPECT_EQ(sieve->Stats().refused, 1u);
  EXPECT_EQ(sieve->Stats().accepted, 0u);
  std::vector<std::string_view> urls = {"https://b.example/", "https://a.example/"};
  std::vector<std::string_view> payloads = {big, "ok"};
  bool accepted[2] = {true, false};
  EXPECT_EQ(sieve->PushBatch(urls, payloads, absl::MakeSpan(accepted, 2)), 1u);
  EXPECT_FALSE(accepted[0]);
  EXPECT_TRUE(accepted[1]);  // the refused push left the URL unseen
  EXPECT_EQ(sieve->Stats().refused, 2u);
  EXPECT_EQ(sieve->TryPopEntry()->payload, "ok");
}

TEST(CheckpointTest, GrowPolicyRoundTrips) {
  ScratchDir dir;
  SieveOptions options = CheckpointOptions(dir, 1000);
  options.overflow_policy = OverflowPolicy::kGrow;
  auto original = OpenSieve(options);
  for (int i = 0; i < 5000; ++i) original->Push(TestUrl(i));
  ASSERT_TRUE(original->Save(dir.path()).ok());
  absl::StatusOr<std::unique_ptr<Sieve>> restored =
      Sieve::Open(dir.path(), CheckpointOptions(dir, 1));
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ((*restored)->Stats().capacity, original->Stats().capacity);
  EXPECT_GT((*restored)->Stats().capacity, 5000u);  // still the growing filter
  for (int i = 0; i < 5000; i += 3) ASSERT_FALSE((*restored)->Push(TestUrl(i)));
}

TEST(CheckpointTest, EveryTenthTruncationFailsCleanly) {
  ScratchDir dir;
  auto sieve = BusySieve(CheckpointOptions(dir, 50000));
  ASSERT_TRUE(sieve->Save(dir.path()).ok());
  const auto path = Sieve::CheckpointPath(dir.path());
  const std::string whole = ReadFile(path);
  ASSERT_GT(whole.size(), 1000000u);
  for (int tenth = 0; tenth < 10; ++tenth) {
    WriteFile(path, std::string_view(whole).substr(0, whole.size() * tenth / 10));
    absl::StatusOr<std::unique_ptr<Sieve>> restored =
        Sieve::Open(dir.path(), CheckpointOptions(dir, 1));
    ASSERT_FALSE(restored.ok()) << "truncated at " << tenth << "/10";
    EXPECT_EQ(restored.status().code(), absl::StatusCode::kDataLoss) << restored.status();
  }
  WriteFile(path, whole);
  EXPECT_TRUE(Sieve::Open(dir.path(), CheckpointOptions(dir, 1)).ok());
}

TEST(CheckpointTest, CorruptedBytesFailCleanly) {
  ScratchDir dir;
  auto sieve = BusySieve(CheckpointOptions(dir, 50000));
  ASSERT_TRUE(sieve->Save(dir.path()).ok());
  const auto path = Sieve::CheckpointPath(dir.path());
  const std::string whole = ReadFile(path);
  for (size_t at : {size_t{0}, size_t{9}, size_t{40}, whole.size() / 3, whole.size() - 1}) {
    std::string bad = whole;
    bad[at] ^= 0x01;
    WriteFile(path, bad);
    absl::StatusOr<std::unique_ptr<Sieve>> restored =
        Sieve::Open(dir.path(), CheckpointOptions(dir, 1));
    EXPECT_EQ(restored.status().code(), absl::StatusCode::kDataLoss) << "byte " << at;
  }
}

TEST(CheckpointTest, MissingCheckpointIsNotFound) {
  ScratchDir dir;
  EXPECT_EQ(Sieve::Open(dir.path() / "none").status().code(), absl::StatusCode::kNotFound);
}

TEST(CheckpointTest, FailedSaveKeepsThePreviousCheckpoint) {
  ScratchDir dir;
  auto sieve = OpenSieve(CheckpointOptions(dir, 1000));
  sieve->Push(TestUrl(1));
  ASSERT_TRUE(sieve->Save(dir.path()).ok());
  sieve->Push(TestUrl(2));
  // A directory where the temporary file would go makes the next save fail.
  const auto temp = Sieve::CheckpointPath(dir.path()).concat(".tmp-" + std::to_string(getpid()));
  std::filesystem::create_directory(temp);
  EXPECT_FALSE(sieve->Save(dir.path()).ok());
  std::filesystem::remove(temp);
  absl::StatusOr<std::unique_ptr<Sieve>> restored =
      Sieve::Open(dir.path(), CheckpointOptions(dir, 1));
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ((*restored)->Stats().queued, 1u);  // the first checkpoint, whole
}

// Freezes the checkpoint's own bytes (header and URL records; the filter in
// between is bloom's format, frozen by bloom's tests). If this fails, the
// format changed: bump kCheckpointVersion in sieve/src/checkpoint.cc.
TEST(CheckpointTest, GoldenBytes) {
  ScratchDir dir;
  SieveOptions options = CheckpointOptions(dir, 100);
  auto sieve = OpenSieve(options);
  sieve->Push("https://a.example/");
  sieve->Push("https://b.example/", "pb");
  sieve->Push("https://a.example/");
  ASSERT_EQ(*sieve->Pop(), "https://a.example/");
  ASSERT_TRUE(sieve->Save(dir.path()).ok());
  const std::string bytes = ReadFile(Sieve::CheckpointPath(dir.path()));
  ASSERT_GT(bytes.size(), 64u + 60u);
  EXPECT_EQ(absl::BytesToHexString(bytes.substr(0, 64)),
            "5349455645434b50"    // "SIEVECKP"
            "02000000"            // version 2
            "00000000"            // policy warn
            "0200000000000000"    // accepted
            "0100000000000000"    // dropped
            "0100000000000000"    // popped
            "0000000000000000"    // done
            "0000000000000000"    // lost
            "0000000000000000");  // overflow warnings
  // URL count 2, then (u32 length, URL, u32 length, payload) in flight first,
  // then the 8-byte checksum.
  EXPECT_EQ(absl::BytesToHexString(bytes.substr(bytes.size() - 8 - 62, 62)),
            "0200000000000000"
            "12000000" +
                absl::BytesToHexString("https://a.example/") + "00000000" + "12000000" +
                absl::BytesToHexString("https://b.example/") + "02000000" +
                absl::BytesToHexString("pb"));
}

}  // namespace
}  // namespace sieve
