// The version-3 checkpoint as files: spilled segments are hard-linked, not
// copied, so a second Save writes only the in-memory parts; a restore pops the
// same FIFO byte for byte and leaves the checkpoint untouched; a damaged
// segment is reported naming its file; checkpoints of versions 1 and 2 are
// still read; and a full disk is a reported error that leaves the last good
// checkpoint whole.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "../../sieve/src/file_io.h"
#include "bloom/filter.h"
#include "bloom/hash.h"
#include "fuzz/checksum_fixup.h"
#include "gtest/gtest.h"
#include "sieve/sieve.h"
#include "sieve/test_urls.h"

namespace sieve {
namespace {

namespace fs = std::filesystem;
using sieve_test::ScratchDir;
using sieve_test::TestUrl;

SieveOptions Options(const ScratchDir& dir, size_t budget) {
  SieveOptions options;
  options.expected_count = 2'000'000;  // few false positives among these tests' URLs
  options.spill_dir = dir.path() / "spill";
  options.queue_memory_budget_bytes = budget;
  return options;
}

std::unique_ptr<Sieve> Make(const SieveOptions& options) {
  absl::StatusOr<std::unique_ptr<Sieve>> sieve = Sieve::Create(options);
  EXPECT_TRUE(sieve.ok()) << sieve.status();
  return *std::move(sieve);
}

// What a crawler attaches: a depth byte and the parent URL (30 siblings share one).
std::string ParentPayload(int i) {
  return std::string(1, static_cast<char>(1 + i % 5)) + TestUrl(i / 30 + 1000000);
}

std::vector<SieveEntry> DrainEntries(Sieve& sieve) {
  std::vector<SieveEntry> entries;
  while (std::optional<SieveEntry> entry = sieve.TryPopEntry()) entries.push_back(*entry);
  return entries;
}

struct FileFacts {
  uint64_t size = 0;
  uint64_t links = 0;
};

std::map<std::string, FileFacts> Files(const fs::path& dir) {
  std::map<std::string, FileFacts> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    struct stat st;
    if (::stat(entry.path().c_str(), &st) != 0) continue;
    files[entry.path().filename().string()] = {static_cast<uint64_t>(st.st_size),
                                               static_cast<uint64_t>(st.st_nlink)};
  }
  return files;
}

bool IsSegment(const std::string& name) { return name.rfind("sieve-seg-", 0) == 0; }

TEST(CheckpointFilesTest, SecondSaveLinksSpilledSegmentsAndWritesOnlyTheInMemoryParts) {
  ScratchDir dir;
  auto sieve = Make(Options(dir, 256 << 10));
  for (int i = 0; i < 60000; ++i) sieve->Push(TestUrl(i), ParentPayload(i));
  for (int i = 0; i < 5; ++i) sieve->Pop();
  const SieveStats stats = sieve->Stats();
  ASSERT_GT(stats.spilled_segments, 10u);
  const fs::path ckpt = dir.path() / "ckpt";
  {
    const absl::Status saved = sieve->Save(ckpt);
    ASSERT_TRUE(saved.ok()) << saved;
  }

  // Save 1: every spilled segment is a second link to its spill file; at most
  // the in-flight, head and tail parts are files of their own.
  const std::map<std::string, FileFacts> first = Files(ckpt);
  size_t linked = 0;
  size_t own = 0;
  for (const auto& [name, facts] : first) {
    if (!IsSegment(name)) continue;
    (facts.links == 2 ? linked : own) += 1;
  }
  EXPECT_EQ(linked, stats.spilled_segments);
  EXPECT_LE(own, 3u);

  // A little change, then Save 2 into the same directory: the bytes of new
  // files are the in-memory parts and the filter, small next to the queue.
  for (int i = 0; i < 100; ++i) sieve->MarkDone(*sieve->Pop());
  for (int i = 60000; i < 60100; ++i) sieve->Push(TestUrl(i), ParentPayload(i));
  {
    const absl::Status saved = sieve->Save(ckpt);
    ASSERT_TRUE(saved.ok()) << saved;
  }
  const std::map<std::string, FileFacts> second = Files(ckpt);
  uint64_t new_segment_bytes = 0;
  for (const auto& [name, facts] : second) {
    if (IsSegment(name) && first.count(name) == 0) new_segment_bytes += facts.size;
  }
  const uint64_t queue_disk = sieve->Stats().queue_disk_bytes;
  EXPECT_GT(new_segment_bytes, 0u);
  EXPECT_LT(new_segment_bytes * 10, queue_disk) << new_segment_bytes << " of " << queue_disk;
  // The filter is a chain (filter_checkpoint.h): Save 1's file stays, named
  // by Save 2's manifest, and Save 2 adds one delta of the changed blocks.
  auto is_filter = [](const auto& f) { return f.first.rfind("filter-", 0) == 0; };
  EXPECT_EQ(std::count_if(first.begin(), first.end(), is_filter), 1);
  EXPECT_EQ(std::count_if(second.begin(), second.end(), is_filter), 2);
  for (const auto& [name, facts] : first) {
    if (name.rfind("filter-", 0) == 0) {
      EXPECT_EQ(second.count(name), 1u) << name;
    }
  }

  // The restore pops the same FIFO, payloads byte for byte, and leaves the
  // checkpoint as it was: it opens again, whole.
  absl::StatusOr<std::unique_ptr<Sieve>> restored = Sieve::Open(ckpt, Options(dir, 256 << 10));
  ASSERT_TRUE(restored.ok()) << restored.status();
  const std::vector<SieveEntry> want = DrainEntries(*sieve);
  const std::vector<SieveEntry> got = DrainEntries(**restored);
  ASSERT_EQ(got.size(), want.size() + 5);  // + the 5 still in flight, first
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i + 5].url, want[i].url) << i;
    ASSERT_EQ(got[i + 5].payload, want[i].payload) << i;
  }
  EXPECT_EQ(Files(ckpt).size(), second.size());
  absl::StatusOr<std::unique_ptr<Sieve>> again = Sieve::Open(ckpt, Options(dir, 256 << 10));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->Stats().queued, got.size());
}

// The sieve fuzzer's tests/fuzz/crashes/sieve/manifest-segment-count-
// allocates-1gib.bin, its checksums repaired as the fuzzer does: a manifest
// claiming more segments than its body can hold is refused, naming the
// count, before a vector is sized from it (it asked for 1 GiB).
TEST(CheckpointFilesTest, ASegmentCountTheBodyCannotHoldIsRefusedBeforeAllocating) {
  std::ifstream in(std::string(CRAWL_SOURCE_DIR) +
                       "/tests/fuzz/crashes/sieve/manifest-segment-count-allocates-1gib.bin",
                   std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(bytes.empty());
  fuzz::RepairChecksums(bytes);
  fuzz::RepairTrailer(bytes);
  ScratchDir dir;
  std::ofstream(Sieve::CheckpointPath(dir.path()), std::ios::binary) << bytes;
  SieveOptions runtime;
  runtime.spill_dir = dir.path() / "spill";
  const absl::StatusOr<std::unique_ptr<Sieve>> opened = Sieve::Open(dir.path(), runtime);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), absl::StatusCode::kDataLoss) << opened.status();
  EXPECT_NE(opened.status().message().find("segments"), absl::string_view::npos) << opened.status();
}

TEST(CheckpointFilesTest, DamagedSegmentIsDataLossNamingTheFile) {
  ScratchDir dir;
  auto sieve = Make(Options(dir, 64 << 10));
  for (int i = 0; i < 20000; ++i) sieve->Push(TestUrl(i), ParentPayload(i));
  const fs::path ckpt = dir.path() / "ckpt";
  {
    const absl::Status saved = sieve->Save(ckpt);
    ASSERT_TRUE(saved.ok()) << saved;
  }
  std::string victim;
  uint64_t largest = 0;
  for (const auto& [name, facts] : Files(ckpt)) {
    if (IsSegment(name) && facts.size > largest)
      std::tie(victim, largest) = std::tie(name, facts.size);
  }
  ASSERT_GT(largest, 200u);
  {
    std::fstream f(ckpt / victim, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(largest / 2));
    f.put('\x5a');
  }
  // The header still matches: Open adopts it; the pop that loads it finds
  // the damage, counts the URLs lost, and Health() names the file.
  absl::StatusOr<std::unique_ptr<Sieve>> restored = Sieve::Open(ckpt, Options(dir, 64 << 10));
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_TRUE((*restored)->Health().ok());
  const size_t popped = DrainEntries(**restored).size();
  EXPECT_LT(popped, 20000u);
  EXPECT_GT((*restored)->Stats().lost, 0u);
  const absl::Status health = (*restored)->Health();
  EXPECT_EQ(health.code(), absl::StatusCode::kDataLoss) << health;
  EXPECT_NE(health.message().find(victim), std::string::npos) << health;
}

// A checkpoint of version 1 or 2 (one file: header, filter, every URL), as
// the Sieve wrote them before version 3.
void WriteLegacyCheckpoint(const fs::path& dir, uint32_t version, int urls) {
  absl::StatusOr<bloom::BloomFilter> filter = bloom::BloomFilter::Create({.expected_count = 1000});
  ASSERT_TRUE(filter.ok());
  for (int i = 0; i < urls; ++i) filter->InsertIfNew(bloom::HashKey(TestUrl(i)));
  fs::create_directories(dir);
  ASSERT_TRUE(internal::WriteFileAtomically(Sieve::CheckpointPath(dir), [&](std::ostream& out) {
                out << "SIEVECKP";
                internal::WriteU32(out, version);
                internal::WriteU32(out, 0);  // policy warn
                for (uint64_t counter : {uint64_t(urls), uint64_t{7}, uint64_t{0}, uint64_t{0},
                                         uint64_t{0}, uint64_t{0}}) {
                  internal::WriteU64(out, counter);
                }
                if (absl::Status s = filter->Save(out); !s.ok()) return s;
                internal::WriteU64(out, static_cast<uint64_t>(urls));
                for (int i = 0; i < urls; ++i) {
                  const std::string url = TestUrl(i);
                  internal::WriteU32(out, static_cast<uint32_t>(url.size()));
                  out << url;
                  if (version == 2) {
                    const std::string payload = "p" + std::to_string(i);
                    internal::WriteU32(out, static_cast<uint32_t>(payload.size()));
                    out << payload;
                  }
                }
                return absl::OkStatus();
              }).ok());
}

TEST(CheckpointFilesTest, VersionsOneAndTwoAreMigrated) {
  for (uint32_t version : {1u, 2u}) {
    ScratchDir dir;
    const fs::path old = dir.path() / "old";
    WriteLegacyCheckpoint(old, version, 500);
    absl::StatusOr<std::unique_ptr<Sieve>> opened = Sieve::Open(old, Options(dir, 64 << 10));
    ASSERT_TRUE(opened.ok()) << "version " << version << ": " << opened.status();
    EXPECT_EQ((*opened)->Stats().dropped, 7u);
    EXPECT_FALSE((*opened)->Push(TestUrl(3)));  // the filter came along
    // Saved again, it is a version-3 checkpoint with the same queue.
    ASSERT_TRUE((*opened)->Save(dir.path() / "new").ok());
    absl::StatusOr<std::unique_ptr<Sieve>> reopened =
        Sieve::Open(dir.path() / "new", Options(dir, 64 << 10));
    ASSERT_TRUE(reopened.ok()) << reopened.status();
    const std::vector<SieveEntry> entries = DrainEntries(**reopened);
    ASSERT_EQ(entries.size(), 500u);
    for (int i = 0; i < 500; ++i) {
      EXPECT_EQ(entries[i].url, TestUrl(i));
      EXPECT_EQ(entries[i].payload, version == 2 ? "p" + std::to_string(i) : "");
    }
  }
}

// A full disk, simulated with RLIMIT_FSIZE (a write past it fails with EFBIG,
// as a full disk fails with ENOSPC: the same error path; no mount needed).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    old_handler_ = ::signal(SIGXFSZ, SIG_IGN);  // the write fails instead of killing us
    ::getrlimit(RLIMIT_FSIZE, &old_);
    rlimit limited = old_;
    limited.rlim_cur = bytes;
    EXPECT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    ::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_;
  sighandler_t old_handler_;
};

TEST(CheckpointFilesTest, FullDiskIsReportedAndTheLastCheckpointStaysWhole) {
  ScratchDir dir;
  const size_t budget = 64 << 10;
  auto sieve = Make(Options(dir, budget));
  for (int i = 0; i < 3000; ++i) sieve->Push(TestUrl(i), ParentPayload(i));
  const fs::path ckpt = dir.path() / "ckpt";
  {
    const absl::Status saved = sieve->Save(ckpt);
    ASSERT_TRUE(saved.ok()) << saved;
  }
  const std::map<std::string, FileFacts> good = Files(ckpt);
  {
    FileSizeLimit limit(256);  // below any segment file or filter file
    for (int i = 3000; i < 10000; ++i) sieve->Push(TestUrl(i), ParentPayload(i));
    const absl::Status health = sieve->Health();
    EXPECT_EQ(health.code(), absl::StatusCode::kResourceExhausted) << health;
    EXPECT_NE(health.message().find((dir.path() / "spill").string()), std::string::npos) << health;
    EXPECT_NE(health.message().find("File too large"), std::string::npos) << health;
    EXPECT_GT(sieve->Stats().spill_failures, 0u);
    EXPECT_GT(sieve->Stats().queue_memory_bytes, budget);  // kept, over the budget

    const absl::Status saved = sieve->Save(ckpt);
    EXPECT_EQ(saved.code(), absl::StatusCode::kResourceExhausted) << saved;
    EXPECT_NE(saved.message().find(ckpt.string()), std::string::npos) << saved;
  }
  // The last good checkpoint: its manifest and files as they were.
  EXPECT_EQ(Files(ckpt).size(), good.size());
  absl::StatusOr<std::unique_ptr<Sieve>> restored = Sieve::Open(ckpt, Options(dir, budget));
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ((*restored)->Stats().queued, 3000u);
  // With room again, the next spill succeeds, Health() clears, nothing is lost.
  for (int i = 10000; i < 14000; ++i) sieve->Push(TestUrl(i), ParentPayload(i));
  EXPECT_TRUE(sieve->Health().ok()) << sieve->Health();
  const std::vector<SieveEntry> all = DrainEntries(*sieve);
  ASSERT_EQ(all.size(), 14000u);
  for (int i = 0; i < 14000; ++i) ASSERT_EQ(all[i].url, TestUrl(i));
  {
    const absl::Status saved = sieve->Save(ckpt);
    ASSERT_TRUE(saved.ok()) << saved;
  }
}

}  // namespace
}  // namespace sieve
