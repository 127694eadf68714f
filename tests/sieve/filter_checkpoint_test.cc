// The filter's checkpoint chain: a fresh filter's first checkpoint is a small
// delta; base + deltas rebuild the filter bit for bit; a chain restarts with a
// base once its deltas pass 1.25x a base, keeping the bytes written <= 2x the
// bytes changed; files move between directories by link; every committed
// checkpoint stays readable whatever later Saves do; damaged files are refused
// naming the file.
#include "../../sieve/src/filter_checkpoint.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "bloom/hash.h"
#include "gtest/gtest.h"
#include "sieve/test_urls.h"

namespace sieve::internal {
namespace {

namespace fs = std::filesystem;
using sieve_test::ScratchDir;

SieveOptions FilterOptions(OverflowPolicy policy, bloom::Layout layout, uint64_t expected) {
  SieveOptions options;
  options.expected_count = expected;
  options.overflow_policy = policy;
  options.layout = layout;
  return options;
}

SeenFilter Make(const SieveOptions& options) {
  absl::StatusOr<SeenFilter> filter = SeenFilter::Create(options);
  EXPECT_TRUE(filter.ok()) << filter.status();
  return *std::move(filter);
}

void Insert(SeenFilter& filter, uint64_t begin, uint64_t end) {
  for (uint64_t i = begin; i < end; ++i) {
    filter.InsertIfNew(bloom::HashKey("https://f.example/" + std::to_string(i)));
  }
}

std::string Image(const SeenFilter& filter) {
  std::ostringstream out;
  EXPECT_TRUE(filter.Save(out).ok());
  return out.str();
}

FilterFiles Save(SeenFilter& filter, const fs::path& dir, FilterChain& chain) {
  absl::StatusOr<FilterFiles> files = SaveFilterCheckpoint(filter, dir, chain);
  EXPECT_TRUE(files.ok()) << files.status();
  return files.ok() ? *files : FilterFiles{};
}

std::string Load(OverflowPolicy policy, const fs::path& dir, const FilterFiles& files,
                 FilterChain* chain = nullptr) {
  absl::StatusOr<SeenFilter> loaded = LoadFilterCheckpoint(policy, dir, files, chain);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return loaded.ok() ? Image(*loaded) : "";
}

class FilterCheckpointTest : public testing::TestWithParam<bloom::Layout> {};

TEST_P(FilterCheckpointTest, FreshFilterStartsWithASmallDeltaAndTheChainRebuildsIt) {
  const ScratchDir scratch;
  // 1e7: ~190k blocks, so even the classic layout's 7 blocks per key leave
  // most of them clean after 2000 keys.
  const SieveOptions options = FilterOptions(OverflowPolicy::kWarn, GetParam(), 10'000'000);
  SeenFilter live = Make(options);
  FilterChain chain;
  FilterFiles files = Save(live, scratch.path(), chain);
  ASSERT_EQ(files.files.size(), 1u);
  EXPECT_TRUE(files.files[0].name.ends_with(".delta"));
  EXPECT_EQ(files.raw_bytes, bloom::BloomFilter::DeltaBytes(0));  // nothing inserted yet
  for (uint64_t round = 0; round < 5; ++round) {
    Insert(live, round * 2000, (round + 1) * 2000);
    files = Save(live, scratch.path(), chain);
    EXPECT_LT(files.written_bytes, live.MemoryBytes() / 10);
  }
  EXPECT_EQ(files.files.size(), 6u);
  EXPECT_EQ(Load(OverflowPolicy::kWarn, scratch.path(), files), Image(live));
  SeenFilter reference = Make(options);
  Insert(reference, 0, 10'000);
  EXPECT_EQ(Image(reference), Image(live));
}

TEST_P(FilterCheckpointTest, DeltasPastTheBoundRestartTheChainWithABase) {
  const ScratchDir scratch;
  SeenFilter live = Make(FilterOptions(OverflowPolicy::kWarn, GetParam(), 20'000));
  FilterChain chain;
  uint64_t written = 0;
  uint64_t written_raw = 0;  // the same before zstd: the bound holds for both
  uint64_t changed = 0;      // bytes of the blocks dirty at each save
  bool saw_base = false;
  FilterFiles files;
  for (uint64_t round = 0; round < 40; ++round) {
    Insert(live, round * 1000, (round + 1) * 1000);
    changed += live.fixed()->DirtyBlockCount() * 64;
    files = Save(live, scratch.path(), chain);
    written += files.written_bytes;
    written_raw += files.raw_bytes;
    saw_base = saw_base || files.files.size() == 1;
    uint64_t deltas = 0;
    for (const FilterFile& f : files.files) deltas += f.name.ends_with(".delta") ? f.bytes : 0;
    EXPECT_LE(deltas, (64 + live.MemoryBytes() + 8) / 4 * 5);
    ASSERT_TRUE(RemoveUnreferencedFilterFiles(scratch.path(), files).ok());
    EXPECT_EQ(sieve_test::CountFiles(scratch.path()), files.files.size());
  }
  EXPECT_TRUE(saw_base);
  EXPECT_TRUE(files.files[0].name.ends_with(".base") || files.files.size() > 1);
  EXPECT_LE(written, 2 * changed) << written << " bytes written for " << changed << " changed";
  EXPECT_LE(written_raw, 2 * changed) << written_raw << " bytes before zstd for " << changed;
  EXPECT_EQ(Load(OverflowPolicy::kWarn, scratch.path(), files), Image(live));
}

INSTANTIATE_TEST_SUITE_P(Layouts, FilterCheckpointTest,
                         testing::Values(bloom::Layout::kBlocked, bloom::Layout::kClassic),
                         [](const auto& info) {
                           return std::string(bloom::LayoutName(info.param));
                         });

std::string FileHead(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(4, '\0');
  in.read(head.data(), 4);
  return head;
}

// Each delta is a zstd frame of bloom's format: a delta of sparse blocks (as
// between two checkpoints of a large filter) is several times smaller than
// the format's bytes, and rebuilds the filter.
TEST(FilterCheckpoint, DeltasAreZstdFramesSeveralTimesSmallerThanTheFormat) {
  const ScratchDir scratch;
  SeenFilter live = Make(FilterOptions(OverflowPolicy::kWarn, bloom::Layout::kBlocked, 1e6));
  FilterChain chain;
  Insert(live, 0, 20'000);  // ~1 per block: most dirty blocks hold 1-2 keys
  const uint64_t dirty = live.fixed()->DirtyBlockCount();
  FilterFiles files = Save(live, scratch.path(), chain);
  ASSERT_EQ(files.files.size(), 1u);
  EXPECT_EQ(FileHead(scratch.path() / files.files[0].name), std::string("\x28\xb5\x2f\xfd"));
  EXPECT_EQ(files.written_bytes, files.files[0].bytes);
  EXPECT_EQ(files.raw_bytes, bloom::BloomFilter::DeltaBytes(dirty));
  EXPECT_LT(files.written_bytes * 3, files.raw_bytes)
      << files.written_bytes << " bytes on disk for " << files.raw_bytes;
  EXPECT_EQ(Load(OverflowPolicy::kWarn, scratch.path(), files), Image(live));
}

// Writes `content` into `dir`/`name` as a build before zstd did: the format's
// bytes as they are; returns the manifest's record of it.
FilterFile WriteUncompressed(const fs::path& dir, const std::string& name,
                             const std::string& content) {
  std::ofstream(dir / name, std::ios::binary) << content;
  return FilterFile{name, content.size(), XXH3_64bits(content.data(), content.size())};
}

// Migration: a chain written before zstd (a base and a delta, uncompressed)
// loads bit for bit, and a resumed chain appends zstd deltas to it.
TEST(FilterCheckpoint, AChainWrittenBeforeZstdStillLoadsAndKeepsGrowing) {
  const ScratchDir scratch;
  SeenFilter live = Make(FilterOptions(OverflowPolicy::kWarn, bloom::Layout::kBlocked, 1e5));
  Insert(live, 0, 3000);
  FilterFiles old_files;
  old_files.files.push_back(
      WriteUncompressed(scratch.path(), "filter-00000000000000a1.base", Image(live)));
  live.fixed()->ClearDirtyBlocks();
  Insert(live, 3000, 4000);
  std::ostringstream delta;
  ASSERT_TRUE(live.fixed()->SaveDirtyBlocks(delta).ok());
  live.fixed()->ClearDirtyBlocks();
  old_files.files.push_back(
      WriteUncompressed(scratch.path(), "filter-00000000000000a2.delta", delta.str()));
  ASSERT_NE(FileHead(scratch.path() / old_files.files[0].name), std::string("\x28\xb5\x2f\xfd"));

  FilterChain chain;
  absl::StatusOr<SeenFilter> resumed =
      LoadFilterCheckpoint(OverflowPolicy::kWarn, scratch.path(), old_files, &chain);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(Image(*resumed), Image(live));
  Insert(*resumed, 4000, 5000);
  Insert(live, 4000, 5000);
  const FilterFiles next = Save(*resumed, scratch.path(), chain);
  ASSERT_EQ(next.files.size(), 3u);
  EXPECT_EQ(next.files[1], old_files.files[1]);
  EXPECT_EQ(FileHead(scratch.path() / next.files[2].name), std::string("\x28\xb5\x2f\xfd"));
  EXPECT_EQ(Load(OverflowPolicy::kWarn, scratch.path(), next), Image(live));
}

TEST(FilterCheckpoint, AnEarlierCheckpointStaysExactWhateverLaterSavesDo) {
  // A kill -9 after checkpoint 1: its files must give the filter as of
  // checkpoint 1, not a superset, even after later saves and a new base.
  const ScratchDir scratch;
  SeenFilter live = Make(FilterOptions(OverflowPolicy::kWarn, bloom::Layout::kBlocked, 20'000));
  FilterChain chain;
  Insert(live, 0, 3000);
  const FilterFiles first = Save(live, scratch.path(), chain);
  const std::string at_first = Image(live);
  for (uint64_t round = 1; round < 20; ++round) {
    Insert(live, round * 3000, (round + 1) * 3000);
    Save(live, scratch.path(), chain);  // not committed: RemoveUnreferenced is never called
  }
  EXPECT_EQ(Load(OverflowPolicy::kWarn, scratch.path(), first), at_first);
}

TEST(FilterCheckpoint, ResumedChainKeepsAppendingDeltas) {
  const ScratchDir scratch;
  const SieveOptions options = FilterOptions(OverflowPolicy::kWarn, bloom::Layout::kBlocked, 1e6);
  SeenFilter live = Make(options);
  FilterChain chain;
  Insert(live, 0, 5000);
  const FilterFiles saved = Save(live, scratch.path(), chain);

  FilterChain resumed_chain;
  absl::StatusOr<SeenFilter> resumed =
      LoadFilterCheckpoint(OverflowPolicy::kWarn, scratch.path(), saved, &resumed_chain);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  Insert(*resumed, 5000, 6000);
  const FilterFiles next = Save(*resumed, scratch.path(), resumed_chain);
  ASSERT_EQ(next.files.size(), 2u);
  EXPECT_EQ(next.files[0], saved.files[0]);
  EXPECT_TRUE(next.files[1].name.ends_with(".delta"));
  EXPECT_LT(next.written_bytes, saved.written_bytes);
  Insert(live, 5000, 6000);
  EXPECT_EQ(Load(OverflowPolicy::kWarn, scratch.path(), next), Image(live));
}

TEST(FilterCheckpoint, AnotherDirectoryGetsLinksAndAGoneChainGetsABase) {
  const ScratchDir scratch;
  const fs::path a = scratch.path() / "a";
  const fs::path b = scratch.path() / "b";
  SeenFilter live = Make(FilterOptions(OverflowPolicy::kWarn, bloom::Layout::kBlocked, 1e6));
  FilterChain chain;
  Insert(live, 0, 5000);
  Save(live, a, chain);
  Insert(live, 5000, 6000);
  const FilterFiles in_b = Save(live, b, chain);
  ASSERT_EQ(in_b.files.size(), 2u);
  EXPECT_EQ(fs::hard_link_count(b / in_b.files[0].name), 2u);
  fs::remove_all(a);
  EXPECT_EQ(Load(OverflowPolicy::kWarn, b, in_b), Image(live));

  fs::remove_all(b);  // the chain's files are gone: the next save is a base
  Insert(live, 6000, 7000);
  const FilterFiles fresh = Save(live, a, chain);
  ASSERT_EQ(fresh.files.size(), 1u);
  EXPECT_TRUE(fresh.files[0].name.ends_with(".base"));
  EXPECT_EQ(Load(OverflowPolicy::kWarn, a, fresh), Image(live));
}

TEST(FilterCheckpoint, AFilterLoadedFromAnImageStartsItsChainWithABase) {
  const ScratchDir scratch;
  SeenFilter original = Make(FilterOptions(OverflowPolicy::kWarn, bloom::Layout::kBlocked, 1e5));
  Insert(original, 0, 1000);
  std::istringstream image(Image(original));
  absl::StatusOr<SeenFilter> loaded = SeenFilter::Load(OverflowPolicy::kWarn, image);
  ASSERT_TRUE(loaded.ok());
  FilterChain chain;
  const FilterFiles files = Save(*loaded, scratch.path(), chain);
  ASSERT_EQ(files.files.size(), 1u);
  EXPECT_TRUE(files.files[0].name.ends_with(".base"));
  EXPECT_EQ(FileHead(scratch.path() / files.files[0].name), "CRAW");  // bases stay uncompressed
  EXPECT_EQ(Load(OverflowPolicy::kWarn, scratch.path(), files), Image(original));
}

TEST(FilterCheckpoint, GrowingFilterSavesDeltasAcrossNewStagesAndTheChainRebuildsIt) {
  const ScratchDir scratch;
  // The first stage holds 100,000 keys at ~120 KB: a few hundred keys touch
  // a small share of its blocks, so its deltas are far smaller than an image.
  SeenFilter live = Make(FilterOptions(OverflowPolicy::kGrow, bloom::Layout::kBlocked, 100'000));
  FilterChain chain;
  FilterFiles files = Save(live, scratch.path(), chain);  // fresh: a delta from zero
  ASSERT_EQ(files.files.size(), 1u);
  EXPECT_TRUE(files.files[0].name.ends_with(".delta"));
  EXPECT_LT(files.written_bytes, 1000u);
  Insert(live, 0, 300);
  files = Save(live, scratch.path(), chain);
  ASSERT_EQ(files.files.size(), 2u);
  EXPECT_TRUE(files.files[1].name.ends_with(".delta"));
  EXPECT_LT(files.written_bytes, live.scalable()->ImageBytes() / 5);
  EXPECT_EQ(Load(OverflowPolicy::kGrow, scratch.path(), files), Image(live));

  // Past the first stage's capacity: a second stage opens between two saves.
  Insert(live, 300, 100'500);
  ASSERT_EQ(live.scalable()->StageCount(), 2u);
  FilterChain resumed;
  files = Save(live, scratch.path(), chain);
  EXPECT_EQ(Load(OverflowPolicy::kGrow, scratch.path(), files, &resumed), Image(live));
  // A chain resumed from those files keeps appending deltas.
  absl::StatusOr<SeenFilter> reopened =
      LoadFilterCheckpoint(OverflowPolicy::kGrow, scratch.path(), files, &resumed);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  Insert(*reopened, 200'000, 200'100);
  Insert(live, 200'000, 200'100);
  const FilterFiles next = Save(*reopened, scratch.path() / "next", resumed);
  EXPECT_TRUE(next.files.back().name.ends_with(".delta"));
  EXPECT_EQ(Load(OverflowPolicy::kGrow, scratch.path() / "next", next), Image(live));
  EXPECT_FALSE(LoadFilterCheckpoint(OverflowPolicy::kWarn, scratch.path(), files, nullptr).ok());
}

TEST(FilterCheckpoint, DamagedFilesAreRefusedNamingTheFile) {
  const ScratchDir scratch;
  SeenFilter live = Make(FilterOptions(OverflowPolicy::kWarn, bloom::Layout::kBlocked, 1e5));
  FilterChain chain;
  Insert(live, 0, 1000);
  Save(live, scratch.path(), chain);
  Insert(live, 1000, 2000);
  const FilterFiles files = Save(live, scratch.path(), chain);
  const fs::path delta = scratch.path() / files.files[1].name;

  FilterFiles wrong_sum = files;
  wrong_sum.files[1].checksum ^= 1;
  absl::StatusOr<SeenFilter> loaded =
      LoadFilterCheckpoint(OverflowPolicy::kWarn, scratch.path(), wrong_sum, nullptr);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(loaded.status().message().find(files.files[1].name), absl::string_view::npos);

  {
    std::fstream f(delta, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x5a');
  }
  loaded = LoadFilterCheckpoint(OverflowPolicy::kWarn, scratch.path(), files, nullptr);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << loaded.status();

  fs::resize_file(delta, files.files[1].bytes - 1);
  loaded = LoadFilterCheckpoint(OverflowPolicy::kWarn, scratch.path(), files, nullptr);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << loaded.status();
  EXPECT_NE(loaded.status().message().find("bytes"), absl::string_view::npos);

  fs::remove(delta);
  loaded = LoadFilterCheckpoint(OverflowPolicy::kWarn, scratch.path(), files, nullptr);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound) << loaded.status();
}

// A stand-in for the Sieve's manifest: round number and the files, committed
// by rename after fsync.
void CommitManifest(const fs::path& dir, uint64_t round, const FilterFiles& files) {
  const fs::path temporary = dir / "manifest.tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << round << "\n";
    for (const FilterFile& f : files.files)
      out << f.name << " " << f.bytes << " " << f.checksum << "\n";
  }
  FILE* synced = std::fopen(temporary.c_str(), "r");
  ::fsync(::fileno(synced));
  std::fclose(synced);
  fs::rename(temporary, dir / "manifest");
}

bool ReadManifest(const fs::path& dir, uint64_t& round, FilterFiles& files) {
  std::ifstream in(dir / "manifest");
  if (!(in >> round)) return false;
  FilterFile f;
  while (in >> f.name >> f.bytes >> f.checksum) files.files.push_back(f);
  return true;
}

constexpr uint64_t kKeysPerRound = 700;

// Saves forever: insert a round of keys, save, commit, clean up.
[[noreturn]] void SaveUntilKilled(const fs::path& dir) {
  SeenFilter live = Make(FilterOptions(OverflowPolicy::kWarn, bloom::Layout::kBlocked, 20'000));
  FilterChain chain;
  for (uint64_t round = 0;; ++round) {
    Insert(live, round * kKeysPerRound, (round + 1) * kKeysPerRound);
    absl::StatusOr<FilterFiles> files = SaveFilterCheckpoint(live, dir, chain);
    if (!files.ok()) ::_exit(3);
    CommitManifest(dir, round, *files);
    if (!RemoveUnreferencedFilterFiles(dir, *files).ok()) ::_exit(4);
  }
}

TEST(FilterCheckpoint, KillNineAtAnyMomentResumesTheLastCommittedFilterExactly) {
  // The child saves in a loop (deltas, and a new base every ~8 rounds); it is
  // killed at a few moments (a save plus its fsyncs takes ~10-100 ms here, so
  // the moments fall anywhere in it). Whatever the moment, the committed
  // manifest's files must give exactly the filter of its round: no bit lost,
  // none extra.
  for (int delay_ms : {150, 500, 1000, 2000}) {
    const ScratchDir scratch;
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) SaveUntilKilled(scratch.path());
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the saver exited by itself: " << status;
    uint64_t round = 0;
    FilterFiles files;
    if (!ReadManifest(scratch.path(), round, files)) continue;  // killed before the first commit

    SeenFilter reference =
        Make(FilterOptions(OverflowPolicy::kWarn, bloom::Layout::kBlocked, 20'000));
    Insert(reference, 0, (round + 1) * kKeysPerRound);
    FilterChain chain;
    EXPECT_EQ(Load(OverflowPolicy::kWarn, scratch.path(), files, &chain), Image(reference))
        << "killed after " << delay_ms << " ms, at round " << round;
    // Resume: the chain continues from the committed files.
    absl::StatusOr<SeenFilter> resumed =
        LoadFilterCheckpoint(OverflowPolicy::kWarn, scratch.path(), files, &chain);
    ASSERT_TRUE(resumed.ok());
    Insert(*resumed, (round + 1) * kKeysPerRound, (round + 2) * kKeysPerRound);
    Insert(reference, (round + 1) * kKeysPerRound, (round + 2) * kKeysPerRound);
    const FilterFiles next = Save(*resumed, scratch.path(), chain);
    EXPECT_EQ(Load(OverflowPolicy::kWarn, scratch.path(), next), Image(reference));
  }
}

}  // namespace
}  // namespace sieve::internal
