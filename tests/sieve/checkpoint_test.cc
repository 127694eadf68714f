// Save and Open: the same queue order, seen set and stats after a restore;
// in-flight URLs queued again first; a truncated or corrupted checkpoint fails
// cleanly; a failed save leaves the previous checkpoint whole; and a golden
// test freezes the format's own bytes.
#include <xxhash.h>

#include <algorithm>
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

std::string Hex(absl::string_view bytes) { return absl::BytesToHexString(bytes); }

std::string HexU32(uint32_t v) {
  std::string le(4, '\0');
  for (int i = 0; i < 4; ++i) le[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return Hex(le);
}

std::string HexU64(uint64_t v) {
  std::string le(8, '\0');
  for (int i = 0; i < 8; ++i) le[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return Hex(le);
}

// The one file in `dir` whose name starts with `prefix`.
std::string OnlyFileStartingWith(const std::filesystem::path& dir, std::string_view prefix) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0) names.push_back(name);
  }
  EXPECT_EQ(names.size(), 1u) << prefix;
  return names.empty() ? "" : names[0];
}

// Each kind of file of a checkpoint (manifest, filter, the first, a middle
// and the last segment), cut at every tenth of its length: Open fails with
// DataLoss naming the file, never crashes or restores a partial queue.
TEST(CheckpointTest, EveryTenthTruncationOfEachFileFailsCleanly) {
  ScratchDir dir;
  auto sieve = BusySieve(CheckpointOptions(dir, 50000));
  const auto ckpt = dir.path() / "ckpt";
  ASSERT_TRUE(sieve->Save(ckpt).ok());
  std::vector<std::filesystem::path> segments;
  for (const auto& entry : std::filesystem::directory_iterator(ckpt)) {
    if (entry.path().filename().string().rfind("sieve-seg-", 0) == 0) {
      segments.push_back(entry.path());
    }
  }
  ASSERT_GT(segments.size(), 3u);
  std::sort(segments.begin(), segments.end());  // by name: an arbitrary but fixed pick
  const std::vector<std::filesystem::path> files = {
      Sieve::CheckpointPath(ckpt), ckpt / OnlyFileStartingWith(ckpt, "filter-"), segments.front(),
      segments[segments.size() / 2], segments.back()};
  for (const std::filesystem::path& path : files) {
    const std::string whole = ReadFile(path);
    for (int tenth = 0; tenth < 10; ++tenth) {
      WriteFile(path, std::string_view(whole).substr(0, whole.size() * tenth / 10));
      absl::StatusOr<std::unique_ptr<Sieve>> restored =
          Sieve::Open(ckpt, CheckpointOptions(dir, 1));
      ASSERT_FALSE(restored.ok()) << path << " truncated at " << tenth << "/10";
      EXPECT_EQ(restored.status().code(), absl::StatusCode::kDataLoss) << restored.status();
      if (path.filename() != "sieve.checkpoint") {  // the damaged file is named
        EXPECT_NE(restored.status().message().find(path.filename().string()), std::string::npos)
            << restored.status();
      }
    }
    WriteFile(path, whole);
  }
  EXPECT_TRUE(Sieve::Open(ckpt, CheckpointOptions(dir, 1)).ok());
}

TEST(CheckpointTest, CorruptedManifestBytesFailCleanly) {
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

// Bytes of the files in `dir` that are not hard links shared with another
// directory: what a Save actually wrote there.
uint64_t NewBytesIn(const std::filesystem::path& dir) {
  uint64_t bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (std::filesystem::hard_link_count(entry.path()) == 1) bytes += entry.file_size();
  }
  return bytes;
}

// A checkpoint's cost follows the change, not the state. A fresh
// filter's first checkpoint is a small delta, not the filter; a later one
// writes the changed blocks and links the rest; a Sieve reopened from it
// goes on appending deltas. Both overflow policies.
TEST(CheckpointTest, CheckpointsWriteTheChangedFilterBlocksNotTheFilter) {
  for (OverflowPolicy policy : {OverflowPolicy::kWarn, OverflowPolicy::kGrow}) {
    ScratchDir dir;
    SieveOptions options = CheckpointOptions(dir, 10'000'000);  // a ~12 MB filter
    options.overflow_policy = policy;
    auto sieve = OpenSieve(options);
    const uint64_t filter_bytes = sieve->Stats().filter_bytes;
    ASSERT_GT(filter_bytes, 10'000'000u);
    ASSERT_TRUE(sieve->Save(dir.path() / "1").ok());
    EXPECT_LT(NewBytesIn(dir.path() / "1"), 10'000u) << "first checkpoint of a fresh filter";
    for (int i = 0; i < 2000; ++i) sieve->Push(TestUrl(i));
    ASSERT_TRUE(sieve->Save(dir.path() / "2").ok());
    EXPECT_LT(NewBytesIn(dir.path() / "2"), filter_bytes / 20);
    absl::StatusOr<std::unique_ptr<Sieve>> reopened =
        Sieve::Open(dir.path() / "2", CheckpointOptions(dir, 1));
    ASSERT_TRUE(reopened.ok()) << reopened.status();
    std::filesystem::remove_all(dir.path() / "1");  // as the crawler drops older checkpoints
    for (int i = 2000; i < 4000; ++i) (*reopened)->Push(TestUrl(i));
    ASSERT_TRUE((*reopened)->Save(dir.path() / "3").ok());
    EXPECT_LT(NewBytesIn(dir.path() / "3"), filter_bytes / 20);
    absl::StatusOr<std::unique_ptr<Sieve>> last =
        Sieve::Open(dir.path() / "3", CheckpointOptions(dir, 1));
    ASSERT_TRUE(last.ok()) << last.status();
    for (int i = 0; i < 4000; i += 13) EXPECT_FALSE((*last)->Push(TestUrl(i))) << i;
    EXPECT_EQ((*last)->Stats().queued, 4000u);
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

// The manifest bytes of a version-3 checkpoint (written before lanes) of the
// scenario below, as the golden test froze them then; `filter`, its bytes
// and the segments' stored sizes are computed as there.
std::string Version3ManifestHex(const std::string& filter, const std::string& filter_bytes,
                                uint64_t stored_a, uint64_t stored_b) {
  return Hex("SIEVECKP") + "03000000"                                             // version 3
         + "00000000"                                                             // policy warn
         + HexU64(2) + HexU64(1) + HexU64(1) + HexU64(0) + HexU64(0) + HexU64(0)  // counters
         + HexU32(4 + 4 + filter.size() + 8 + 8)                                  // filter part:
         + HexU32(1) + HexU32(filter.size()) + Hex(filter)                        //  one file,
         + HexU64(filter_bytes.size())                                            //  its size
         + HexU64(XXH3_64bits(filter_bytes.data(), filter_bytes.size()))          //  and checksum
         + HexU64(2)                                                              // queued URLs
         + HexU32(2)                                                              // segments
         + HexU32(30) + Hex("sieve-seg-e129179416c2b676.zst") + HexU64(1) + HexU64(20) +
         HexU64(stored_a) + "76b6c216941729e1"  // XXH3-64 of 12 "https://a.example/" 00
         + HexU32(30) + Hex("sieve-seg-a4bca4ef092d38a6.zst") + HexU64(1) + HexU64(22) +
         HexU64(stored_b) + "a6382d09efa4bca4";  // XXH3-64 of 12 "https://b.example/" 02 "pb"
}

// The scenario of the golden tests: a.example popped (in flight), b.example
// queued with payload "pb", all at priority 0, saved into dir/ckpt.
std::filesystem::path SaveGoldenScenario(const ScratchDir& dir) {
  auto sieve = OpenSieve(CheckpointOptions(dir, 100));
  sieve->Push("https://a.example/");
  sieve->Push("https://b.example/", "pb");
  sieve->Push("https://a.example/");
  EXPECT_EQ(*sieve->Pop(), "https://a.example/");
  const auto ckpt = dir.path() / "ckpt";
  EXPECT_TRUE(sieve->Save(ckpt).ok());
  return ckpt;
}

// The scenario of the lanes' golden tests: a.example popped (in flight) and
// b.example queued with payload "pb" at priority 0, c.example queued at -3,
// saved into dir/ckpt.
std::filesystem::path SaveLanesGoldenScenario(const ScratchDir& dir) {
  auto sieve = OpenSieve(CheckpointOptions(dir, 100));
  sieve->Push("https://a.example/");
  sieve->Push("https://b.example/", "pb");
  sieve->Push("https://c.example/", "", -3);
  sieve->Push("https://a.example/");
  EXPECT_EQ(*sieve->Pop(), "https://a.example/");
  const auto ckpt = dir.path() / "ckpt";
  EXPECT_TRUE(sieve->Save(ckpt).ok());
  return ckpt;
}

// The manifest bytes (without their checksum) of the lanes' golden scenario,
// in version 4 (no offsets) or 5 (a u64 offset after each segment's name).
// Some fields are not frozen but computed: the filter file's name (random
// per Save; its size and checksum follow from bloom's delta format, frozen
// by bloom's tests) and the segments' compressed sizes (zstd's output may
// change with its version); the segments' names and checksums are of the
// raw records, so they are frozen.
std::string LanesManifestHex(uint32_t version, const std::filesystem::path& ckpt) {
  const std::string filter = OnlyFileStartingWith(ckpt, "filter-");  // a fresh filter's delta
  EXPECT_TRUE(filter.ends_with(".delta")) << filter;
  const std::string filter_bytes = ReadFile(ckpt / filter);
  const std::string seg_a = "sieve-seg-e129179416c2b676.zst";  // in flight: a.example
  const std::string seg_b = "sieve-seg-a4bca4ef092d38a6.zst";  // queued: b.example + "pb"
  const std::string seg_c = "sieve-seg-a459f02e8e212ef0.zst";  // queued at -3: c.example
  auto stored = [&](const std::string& name) {
    return std::filesystem::file_size(ckpt / name) - 48;  // minus the segment header
  };
  auto segment = [&](const std::string& name) {
    return HexU32(name.size()) + Hex(name) + (version >= 5 ? HexU64(0) : "");  // offset 0
  };
  return Hex("SIEVECKP") + HexU32(version)                                        // version
         + "00000000"                                                             // policy warn
         + HexU64(3) + HexU64(1) + HexU64(1) + HexU64(0) + HexU64(0) + HexU64(0)  // counters
         + HexU32(4 + 4 + filter.size() + 8 + 8)                                  // filter part:
         + HexU32(1) + HexU32(filter.size()) + Hex(filter)                        //  one file,
         + HexU64(filter_bytes.size())                                            //  its size
         + HexU64(XXH3_64bits(filter_bytes.data(), filter_bytes.size()))          //  and checksum
         + "00000000"                                                             // lane order FIFO
         + HexU64(3)                                                              // queued URLs
         + HexU32(2)                                                              // lanes
         + "00000000" + HexU32(2)                                                 // priority 0
         + segment(seg_a) + HexU64(1) + HexU64(20) + HexU64(stored(seg_a)) +
         "76b6c216941729e1"  // XXH3-64 of 12 "https://a.example/" 00, little-endian
         + segment(seg_b) + HexU64(1) + HexU64(22) + HexU64(stored(seg_b)) +
         "a6382d09efa4bca4"        // XXH3-64 of 12 "https://b.example/" 02 "pb"
         + "fdffffff" + HexU32(1)  // priority -3
         + segment(seg_c) + HexU64(1) + HexU64(20) + HexU64(stored(seg_c)) +
         "f02e218e2ef059a4";  // XXH3-64 of 12 "https://c.example/" 00
}

// Freezes the manifest's bytes (version 5).
// If this fails, the format changed: bump kManifestVersion in
// sieve/src/checkpoint_manifest.h and keep reading the old one.
TEST(CheckpointTest, GoldenManifestBytes) {
  ScratchDir dir;
  const auto ckpt = SaveLanesGoldenScenario(dir);
  const std::string bytes = ReadFile(Sieve::CheckpointPath(ckpt));
  const std::string expected = LanesManifestHex(5, ckpt);
  ASSERT_EQ(bytes.size(), expected.size() / 2 + 8);  // + the manifest's checksum
  EXPECT_EQ(Hex(bytes.substr(0, bytes.size() - 8)), expected);
}

// A checkpoint of version 4 (a file per segment, no offsets; bytes as its
// golden test froze them) opens unchanged: each segment at offset 0.
TEST(CheckpointTest, Version4CheckpointOpensWithEverySegmentAtOffsetZero) {
  ScratchDir dir;
  const auto ckpt = SaveLanesGoldenScenario(dir);
  const std::string body = absl::HexStringToBytes(LanesManifestHex(4, ckpt));
  const uint64_t digest = XXH3_64bits(body.data(), body.size());
  WriteFile(Sieve::CheckpointPath(ckpt), body + absl::HexStringToBytes(HexU64(digest)));
  absl::StatusOr<std::unique_ptr<Sieve>> opened = Sieve::Open(ckpt, CheckpointOptions(dir, 1));
  ASSERT_TRUE(opened.ok()) << opened.status();
  Sieve& sieve = **opened;
  EXPECT_EQ(sieve.Stats().queued, 3u);
  EXPECT_EQ(sieve.Stats().lanes, 2u);
  const std::vector<std::pair<std::string, int32_t>> want = {
      {"https://a.example/", 0}, {"https://b.example/", 0}, {"https://c.example/", -3}};
  for (const auto& [url, priority] : want) {
    std::optional<SieveEntry> entry = sieve.TryPopEntry();
    ASSERT_TRUE(entry.has_value()) << url;
    EXPECT_EQ(entry->url, url);
    EXPECT_EQ(entry->priority, priority);
  }
  EXPECT_TRUE(sieve.Health().ok()) << sieve.Health();
  // The next Save writes version 5.
  ASSERT_TRUE(sieve.Save(ckpt).ok());
  EXPECT_EQ(ReadFile(Sieve::CheckpointPath(ckpt)).substr(8, 4), std::string("\x05\0\0\0", 4));
}

// A checkpoint written before lanes (version 3, bytes as its golden test
// froze them) opens as one FIFO lane at priority 0, in its order.
TEST(CheckpointTest, Version3CheckpointOpensAsOneFifoLane) {
  ScratchDir dir;
  const auto ckpt = SaveGoldenScenario(dir);
  const std::string filter = OnlyFileStartingWith(ckpt, "filter-");
  const std::string filter_bytes = ReadFile(ckpt / filter);
  auto stored = [&](const std::string& name) {
    return std::filesystem::file_size(ckpt / name) - 48;
  };
  const std::string body = absl::HexStringToBytes(
      Version3ManifestHex(filter, filter_bytes, stored("sieve-seg-e129179416c2b676.zst"),
                          stored("sieve-seg-a4bca4ef092d38a6.zst")));
  const uint64_t digest = XXH3_64bits(body.data(), body.size());
  std::string file = body + absl::HexStringToBytes(HexU64(digest));
  {
    std::ofstream out(Sieve::CheckpointPath(ckpt), std::ios::binary | std::ios::trunc);
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
  }
  absl::StatusOr<std::unique_ptr<Sieve>> opened = Sieve::Open(ckpt, CheckpointOptions(dir, 1));
  ASSERT_TRUE(opened.ok()) << opened.status();
  Sieve& sieve = **opened;
  const SieveStats stats = sieve.Stats();
  EXPECT_EQ(stats.queued, 2u);
  EXPECT_EQ(stats.lanes, 1u);
  ASSERT_EQ(stats.top_lanes.size(), 1u);
  EXPECT_EQ(stats.top_lanes[0], (LaneStats{0, 2}));
  // FIFO, the in-flight URL first; a new push at a higher priority overtakes both.
  EXPECT_TRUE(sieve.Push("https://d.example/", "", 1));
  EXPECT_FALSE(sieve.Push("https://b.example/", "", 9));  // seen: the filter came back too
  std::optional<SieveEntry> d = sieve.TryPopEntry();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->url, "https://d.example/");
  EXPECT_EQ(d->priority, 1);
  std::optional<SieveEntry> a = sieve.TryPopEntry();
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->url, "https://a.example/");
  std::optional<SieveEntry> b = sieve.TryPopEntry();
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->url, "https://b.example/");
  EXPECT_EQ(b->payload, "pb");
  EXPECT_EQ(b->priority, 0);
}

}  // namespace
}  // namespace sieve
