// CrawlStateDir and RepairPageLog: a checkpoint written is read back whole; a
// damaged one is refused with the damaged file's name and nothing changed; a
// failed write leaves the previous checkpoint current; pages.jsonl loses its
// torn last line and nothing else.
#include "crawler/crawl_state.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sieve/sieve.h"

namespace crawler {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class StateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("crawl-state-test-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string StateDir() const { return (root_ / "state").string(); }

  static CrawlCheckpoint Sample() {
    CrawlCheckpoint c;
    c.options.seeds_file = "seeds.txt";
    c.options.delay_s = 0.25;
    c.options.max_depth = 4;
    c.seeds = std::make_shared<const std::vector<std::string>>(
        std::vector<std::string>{"http://127.0.0.1:1/", "http://127.0.0.1:1/b"});
    c.counters.pages = 42;
    c.counters.pages_ok = 40;
    c.counters.errors_by_kind["timeout"] = 2;
    c.counters.status_counts[200] = 40;
    c.counters.status_counts[0] = 2;
    c.counters.links_new = 99;
    c.counters.duration_s = 12.5;
    HostSummary dropped;
    dropped.authority = "http://down.test:8080";
    dropped.pages = 7;
    dropped.errors = 7;
    dropped.mean_delay_ms = 1000.5;
    dropped.delay_samples = 6;
    dropped.dropped = "5 consecutive failures, last: http 500";
    HostSummary busy;
    busy.authority = "https://a.test";
    busy.pages = 35;
    busy.robots_blocked = 3;
    c.counters.hosts = {dropped, busy};
    c.counters.hosts_not_listed = 4;
    c.log_bytes = 1234;
    c.frontier.per_host = {{0x0123456789abcdefull, 17}, {0xfedcba9876543210ull, 3}};
    c.frontier.per_host_shared = {{5, 2}};
    c.frontier.queued_hosts = {{7, 40}, {4095, 1}};
    c.frontier.stats.offered = 500;
    c.frontier.stats.accepted = 100;
    c.frontier.stats.done = 42;
    c.cookies =
        "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc123\n"
        "#HttpOnly_.a.test\tTRUE\t/x\tTRUE\t2000000000\tconsent\tyes\n";
    c.traps = "traps\t1\t262144\nhost\t102316\t2\t400000000000\npath\t57594\t1\n";
    return c;
  }

  // An empty Sieve's checkpoint in `dir`, for captures about the crawler's files.
  static absl::Status SaveEmptySieve(const fs::path& dir) {
    sieve::SieveOptions options;
    options.expected_count = 1000;
    auto sieve = sieve::Sieve::Create(options);
    if (!sieve.ok()) return sieve.status();
    return (*sieve)->Save(dir);
  }

  // Writes one checkpoint whose Sieve holds /a (in flight) and /b (queued).
  void WriteSample(CrawlStateDir& state) {
    absl::Status written = state.Write([](const fs::path& dir) -> absl::StatusOr<CrawlCheckpoint> {
      sieve::SieveOptions options;
      options.expected_count = 1000;
      auto sieve = sieve::Sieve::Create(options);
      if (!sieve.ok()) return sieve.status();
      (*sieve)->Push("http://127.0.0.1:1/a");
      (*sieve)->Push("http://127.0.0.1:1/b");
      (*sieve)->TryPop();  // /a in flight
      absl::Status saved = (*sieve)->Save(dir);
      if (!saved.ok()) return saved;
      return Sample();
    });
    ASSERT_TRUE(written.ok()) << written;
  }

  fs::path CurrentFolder() const { return CurrentFolderOf(StateDir()); }

  // The folder CURRENT names in state directory `dir`.
  static fs::path CurrentFolderOf(const fs::path& dir) {
    std::ifstream in(dir / "CURRENT");
    std::string name;
    in >> name;
    return dir / name;
  }

  // A second state directory under the test's root holding one sample
  // checkpoint; returns that checkpoint's folder.
  fs::path WriteSecondState(const std::string& name) {
    const fs::path dir = root_ / name;
    auto state = CrawlStateDir::Create(dir.string(), false);
    EXPECT_TRUE(state.ok()) << state.status();
    if (state.ok()) WriteSample(**state);
    return CurrentFolderOf(dir);
  }

  fs::path root_;
};

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void WriteAll(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST_F(StateTest, CheckpointReadsBackWhole) {
  auto state = CrawlStateDir::Create(StateDir(), false);
  ASSERT_TRUE(state.ok()) << state.status();
  WriteSample(**state);
  auto opened = CrawlStateDir::Open(StateDir());
  ASSERT_TRUE(opened.ok()) << opened.status();
  const CrawlCheckpoint& got = (*opened)->loaded();
  const CrawlCheckpoint want = Sample();
  EXPECT_EQ(got.options, want.options);
  EXPECT_EQ(*got.seeds, *want.seeds);
  EXPECT_EQ(got.counters.pages, 42);
  EXPECT_EQ(got.counters.errors_by_kind.at("timeout"), 2);
  EXPECT_EQ(got.counters.status_counts.at(0), 2);
  EXPECT_EQ(got.counters.links_new, 99);
  EXPECT_DOUBLE_EQ(got.counters.duration_s, 12.5);
  // Per-host counters and drop decisions (politeness state) come back too.
  ASSERT_EQ(got.counters.hosts.size(), 2u);
  EXPECT_EQ(got.counters.hosts[0].authority, "http://down.test:8080");
  EXPECT_EQ(got.counters.hosts[0].errors, 7);
  EXPECT_DOUBLE_EQ(got.counters.hosts[0].mean_delay_ms, 1000.5);
  EXPECT_EQ(got.counters.hosts[0].delay_samples, 6);
  EXPECT_EQ(got.counters.hosts[0].dropped, "5 consecutive failures, last: http 500");
  EXPECT_EQ(got.counters.hosts[1].robots_blocked, 3);
  EXPECT_EQ(got.counters.hosts[1].dropped, "");
  EXPECT_EQ(got.counters.hosts_not_listed, 4);
  EXPECT_EQ(got.log_bytes, 1234);
  EXPECT_EQ(got.frontier.per_host, want.frontier.per_host);
  EXPECT_EQ(got.frontier.per_host_shared, want.frontier.per_host_shared);
  EXPECT_EQ(got.frontier.queued_hosts, want.frontier.queued_hosts);
  EXPECT_EQ(got.frontier.stats.done, 42u);
  EXPECT_EQ(got.frontier.stats.offered, 500u);
  EXPECT_EQ(got.cookies, want.cookies);
  EXPECT_EQ(got.traps, want.traps);

  // The Sieve saved beside it queues the in-flight URL first.
  auto sieve = sieve::Sieve::Open((*opened)->checkpoint_dir());
  ASSERT_TRUE(sieve.ok()) << sieve.status();
  EXPECT_EQ((*sieve)->TryPop(), "http://127.0.0.1:1/a");
  EXPECT_EQ((*sieve)->TryPop(), "http://127.0.0.1:1/b");
  EXPECT_FALSE((*sieve)->Push("http://127.0.0.1:1/a"));  // still seen
}

TEST_F(StateTest, ManifestStartsWithMagicAndVersion) {
  auto state = CrawlStateDir::Create(StateDir(), false);
  ASSERT_TRUE(state.ok());
  WriteSample(**state);
  const std::string manifest = ReadAll(CurrentFolder() / "MANIFEST");
  EXPECT_EQ(manifest.rfind("crawl-state 4\n", 0), 0u) << manifest;
  EXPECT_THAT(manifest, HasSubstr("\"cookies.txt\":{"));
  EXPECT_THAT(manifest, HasSubstr("\"traps.txt\":{"));
  EXPECT_THAT(manifest, ::testing::MatchesRegex("(.|\n)*\ncrc32 [0-9a-f]{8}\n"));
}

TEST_F(StateTest, NewerCheckpointReplacesTheOlderOne) {
  auto state = CrawlStateDir::Create(StateDir(), false);
  ASSERT_TRUE(state.ok());
  WriteSample(**state);
  const fs::path first = CurrentFolder();
  WriteSample(**state);
  EXPECT_NE(CurrentFolder(), first);
  EXPECT_FALSE(fs::exists(first));
  EXPECT_EQ((*state)->written(), 2);
}

TEST_F(StateTest, ExistingStateNeedsResumeOrFresh) {
  {
    auto state = CrawlStateDir::Create(StateDir(), false);
    ASSERT_TRUE(state.ok());
    WriteSample(**state);
  }
  auto again = CrawlStateDir::Create(StateDir(), false);
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(again.status()));
  EXPECT_THAT(again.status().message(), HasSubstr("--resume"));
  EXPECT_THAT(again.status().message(), HasSubstr("--fresh"));
  EXPECT_TRUE(fs::exists(fs::path(StateDir()) / "CURRENT"));  // untouched

  auto fresh = CrawlStateDir::Create(StateDir(), true);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  EXPECT_TRUE(fs::is_empty(StateDir()));
}

TEST_F(StateTest, FreshRefusesToDeleteForeignFiles) {
  fs::create_directories(StateDir());
  WriteAll(fs::path(StateDir()) / "thesis.tex", "precious");
  auto fresh = CrawlStateDir::Create(StateDir(), true);
  ASSERT_FALSE(fresh.ok());
  EXPECT_THAT(fresh.status().message(), HasSubstr("thesis.tex"));
  EXPECT_TRUE(fs::exists(fs::path(StateDir()) / "thesis.tex"));
}

TEST_F(StateTest, ResumeWithoutCheckpointIsAClearError) {
  auto opened = CrawlStateDir::Open(StateDir());
  ASSERT_FALSE(opened.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(opened.status()));
  EXPECT_THAT(opened.status().message(), HasSubstr("no checkpoint"));
}

TEST_F(StateTest, UnwritablePlaceFailsAtCreate) {
  // A path under a regular file: mkdir fails even for root (chmod would not).
  WriteAll(root_ / "file", "x");
  auto state = CrawlStateDir::Create((root_ / "file" / "state").string(), false);
  ASSERT_FALSE(state.ok());
  EXPECT_THAT(state.status().message(), HasSubstr("file/state"));
}

TEST_F(StateTest, FailedWriteKeepsThePreviousCheckpoint) {
  auto state = CrawlStateDir::Create(StateDir(), false);
  ASSERT_TRUE(state.ok());
  WriteSample(**state);
  const fs::path good = CurrentFolder();
  absl::Status failed = (*state)->Write([](const fs::path&) -> absl::StatusOr<CrawlCheckpoint> {
    return absl::ResourceExhaustedError("No space left on device");
  });
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.message(), HasSubstr("No space left"));
  EXPECT_EQ(CurrentFolder(), good);
  auto opened = CrawlStateDir::Open(StateDir());
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ((*opened)->loaded().counters.pages, 42);
}

TEST_F(StateTest, EveryDamagedFileIsNamed) {
  for (const char* name :
       {"MANIFEST", "options.toml", "seeds.txt", "frontier.json", "counters.json"}) {
    for (const bool truncate : {false, true}) {
      SCOPED_TRACE(std::string(name) + (truncate ? " truncated" : " byte flipped"));
      fs::remove_all(StateDir());
      auto state = CrawlStateDir::Create(StateDir(), false);
      ASSERT_TRUE(state.ok());
      WriteSample(**state);
      const fs::path path = CurrentFolder() / name;
      std::string bytes = ReadAll(path);
      ASSERT_GT(bytes.size(), 4u);
      if (truncate) {
        bytes.resize(bytes.size() / 2);
      } else {
        bytes[bytes.size() / 2] ^= 0x20;
      }
      WriteAll(path, bytes);
      auto opened = CrawlStateDir::Open(StateDir());
      ASSERT_FALSE(opened.ok());
      EXPECT_THAT(opened.status().message(), HasSubstr(path.string()));
      EXPECT_EQ(ReadAll(path), bytes);  // nothing modified
    }
  }
}

TEST_F(StateTest, MissingFileAndBadCurrentAreNamed) {
  auto state = CrawlStateDir::Create(StateDir(), false);
  ASSERT_TRUE(state.ok());
  WriteSample(**state);
  fs::remove(CurrentFolder() / "frontier.json");
  auto opened = CrawlStateDir::Open(StateDir());
  ASSERT_FALSE(opened.ok());
  EXPECT_THAT(opened.status().message(), HasSubstr("frontier.json"));

  WriteAll(fs::path(StateDir()) / "CURRENT", "garbage\n");
  opened = CrawlStateDir::Open(StateDir());
  ASSERT_FALSE(opened.ok());
  EXPECT_THAT(opened.status().message(), HasSubstr("CURRENT"));
}

TEST_F(StateTest, OtherFormatVersionIsRefused) {
  auto state = CrawlStateDir::Create(StateDir(), false);
  ASSERT_TRUE(state.ok());
  WriteSample(**state);
  const fs::path path = CurrentFolder() / "MANIFEST";
  std::string bytes = ReadAll(path);
  bytes.replace(0, 14, "crawl-state 9\n");
  WriteAll(path, bytes);  // checksum now wrong too: either way refused, file named
  auto opened = CrawlStateDir::Open(StateDir());
  ASSERT_FALSE(opened.ok());
  EXPECT_THAT(opened.status().message(), HasSubstr("MANIFEST"));
}

// Golden: the bytes of frontier.json, version 2 (counters and per-host
// counts, no URL). A change here is a change of format: bump
// kCrawlStateVersion.
TEST_F(StateTest, FrontierFileBytesAreFrozen) {
  auto state = CrawlStateDir::Create(StateDir(), false);
  ASSERT_TRUE(state.ok());
  WriteSample(**state);
  EXPECT_EQ(ReadAll(CurrentFolder() / "frontier.json"),
            "frontier\t2\n"
            "stats\t500\t100\t42\t0\n"
            "host\t0123456789abcdef\t17\n"
            "host\tfedcba9876543210\t3\n"
            "shared\t5\t2\n"
            "queued\t7\t40\n"
            "queued\t4095\t1\n");
}

// Golden: cookies.txt, version 3: the jar's Netscape lines as the Fetcher
// gives them, byte for byte (curl reads them back as they are).
TEST_F(StateTest, CookiesFileBytesAreFrozen) {
  auto state = CrawlStateDir::Create(StateDir(), false);
  ASSERT_TRUE(state.ok());
  WriteSample(**state);
  EXPECT_EQ(ReadAll(CurrentFolder() / "cookies.txt"),
            "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc123\n"
            "#HttpOnly_.a.test\tTRUE\t/x\tTRUE\t2000000000\tconsent\tyes\n");
}

// Golden: traps.txt, version 4: TrapGuard::Encode's text as it is
// (tests/crawler/app/trap_guard_test.cc freezes that text).
TEST_F(StateTest, TrapsFileBytesAreFrozen) {
  auto state = CrawlStateDir::Create(StateDir(), false);
  ASSERT_TRUE(state.ok());
  WriteSample(**state);
  EXPECT_EQ(ReadAll(CurrentFolder() / "traps.txt"),
            "traps\t1\t262144\nhost\t102316\t2\t400000000000\npath\t57594\t1\n");
}

// Rewrites the current MANIFEST as `version` without `drop` in its file
// list, with a valid checksum: what an older build wrote.
void RewriteManifest(const fs::path& folder, int version, const std::string& drop) {
  std::string manifest = ReadAll(folder / "MANIFEST");
  const size_t body_start = manifest.find('\n') + 1;
  const size_t crc_at = manifest.rfind("crc32 ");
  std::string body = manifest.substr(body_start, crc_at - body_start);
  const size_t entry = body.find("\"" + drop + "\":{");
  ASSERT_NE(entry, std::string::npos) << body;
  const size_t entry_end = body.find('}', entry) + 1;
  const bool comma_after = body[entry_end] == ',';
  body.erase(entry, entry_end - entry + (comma_after ? 1 : 0));
  if (!comma_after && body[entry - 1] == ',') body.erase(entry - 1, 1);
  const std::string covered = "crawl-state " + std::to_string(version) + "\n" + body;
  const uLong crc = crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(covered.data()),
                          static_cast<uInt>(covered.size()));
  char line[32];
  std::snprintf(line, sizeof line, "crc32 %08lx\n", crc);
  WriteAll(folder / "MANIFEST", covered + line);
}

// Migration: a version 2 checkpoint (before cookies.txt and traps.txt)
// resumes with an empty jar and no trap counts; the same layout claiming
// version 3 is damaged, naming MANIFEST.
TEST_F(StateTest, VersionTwoStateIsReadWithAnEmptyJar) {
  auto state = CrawlStateDir::Create(StateDir(), false);
  ASSERT_TRUE(state.ok());
  WriteSample(**state);
  fs::remove(CurrentFolder() / "cookies.txt");
  fs::remove(CurrentFolder() / "traps.txt");
  RewriteManifest(CurrentFolder(), 4, "traps.txt");
  RewriteManifest(CurrentFolder(), 2, "cookies.txt");
  auto opened = CrawlStateDir::Open(StateDir());
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ((*opened)->loaded().cookies, "");
  EXPECT_EQ((*opened)->loaded().traps, "");
  EXPECT_EQ((*opened)->loaded().counters.pages, 42);

  const fs::path folder = WriteSecondState("state3");
  RewriteManifest(folder, 4, "traps.txt");
  RewriteManifest(folder, 3, "cookies.txt");
  auto damaged = CrawlStateDir::Open((root_ / "state3").string());
  ASSERT_FALSE(damaged.ok());
  EXPECT_THAT(damaged.status().message(), HasSubstr("MANIFEST"));
}

// Migration: a version 3 checkpoint (before traps.txt) resumes with its jar
// and no trap counts (the resumed crawl counts traps from zero, as the build
// that wrote it did); the same layout claiming version 4 is damaged, naming
// MANIFEST.
TEST_F(StateTest, VersionThreeStateIsReadWithNoTrapCounts) {
  auto state = CrawlStateDir::Create(StateDir(), false);
  ASSERT_TRUE(state.ok());
  WriteSample(**state);
  fs::remove(CurrentFolder() / "traps.txt");
  RewriteManifest(CurrentFolder(), 3, "traps.txt");
  auto opened = CrawlStateDir::Open(StateDir());
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ((*opened)->loaded().traps, "");
  EXPECT_EQ((*opened)->loaded().cookies, Sample().cookies);

  const fs::path folder = WriteSecondState("state4");
  fs::remove(folder / "traps.txt");
  RewriteManifest(folder, 4, "traps.txt");
  auto damaged = CrawlStateDir::Open((root_ / "state4").string());
  ASSERT_FALSE(damaged.ok());
  EXPECT_THAT(damaged.status().message(), HasSubstr("traps.txt"));
}

// A state directory written by the build before payloads (format 1: URLs
// and parents in frontier.json) is refused, naming its MANIFEST and saying
// what to do, not misread.
TEST_F(StateTest, VersionOneStateIsRefusedWithWhatToDo) {
  const fs::path folder = fs::path(StateDir()) / "ckpt-000001";
  fs::create_directories(folder);
  WriteAll(fs::path(StateDir()) / "CURRENT", "ckpt-000001\n");
  const std::string body = "crawl-state 1\n{\"files\":{},\"log_bytes\":0,\"sequence\":1}\n";
  const uLong crc = crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(body.data()),
                          static_cast<uInt>(body.size()));
  char line[32];
  std::snprintf(line, sizeof line, "crc32 %08lx\n", crc);
  WriteAll(folder / "MANIFEST", body + line);
  auto opened = CrawlStateDir::Open(StateDir());
  ASSERT_FALSE(opened.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(opened.status())) << opened.status();
  EXPECT_THAT(opened.status().message(), HasSubstr((folder / "MANIFEST").string()));
  EXPECT_THAT(opened.status().message(), HasSubstr("version 1"));
  EXPECT_THAT(opened.status().message(), HasSubstr("older build"));
  EXPECT_THAT(opened.status().message(), HasSubstr("with the build that wrote it"));
  EXPECT_THAT(opened.status().message(), HasSubstr("--fresh"));
}

// The Sieve's own files (spilled segments it hard-links into the checkpoint)
// are neither listed in the MANIFEST nor read by Write or Open; a linked one
// is not counted as written, and removing the older checkpoint leaves the
// file its link pointed to whole.
TEST_F(StateTest, SieveFilesAreNotListedNorCountedWhenLinked) {
  const fs::path segment = root_ / "spill-segment";
  WriteAll(segment, std::string(100000, 's'));
  auto state = CrawlStateDir::Create(StateDir(), false);
  ASSERT_TRUE(state.ok());
  for (int round = 0; round < 2; ++round) {
    absl::Status written =
        (*state)->Write([&](const fs::path& dir) -> absl::StatusOr<CrawlCheckpoint> {
          absl::Status saved = SaveEmptySieve(dir);
          if (!saved.ok()) return saved;
          fs::create_hard_link(segment, dir / "segment-000001");  // as a spilling Sieve does
          return Sample();
        });
    ASSERT_TRUE(written.ok()) << written;
  }
  const std::string manifest = ReadAll(CurrentFolder() / "MANIFEST");
  EXPECT_THAT(manifest, ::testing::Not(HasSubstr("segment")));
  EXPECT_THAT(manifest, ::testing::Not(HasSubstr("sieve.checkpoint")));
  const int64_t sieve_file =
      static_cast<int64_t>(fs::file_size(CurrentFolder() / "sieve.checkpoint"));
  EXPECT_GT((*state)->last_write_bytes(), sieve_file);  // the crawler's files too
  EXPECT_LT((*state)->last_write_bytes(), 100000);      // not the linked segment
  EXPECT_GE((*state)->last_write_ms(), 0);
  EXPECT_EQ(fs::hard_link_count(segment), 2u);  // the older checkpoint's link is gone
  EXPECT_EQ(ReadAll(segment), std::string(100000, 's'));
  WriteAll(CurrentFolder() / "segment-000001", "damaged");  // not ours to verify
  EXPECT_TRUE(CrawlStateDir::Open(StateDir()).ok());
}

// A crawl's seeds are the same in every checkpoint: from 64 KiB on, the
// next checkpoint links them from the previous one (written and fsynced once)
// instead of writing them again, whether it is handed the very list the last
// checkpoint wrote or an equal copy; changed seeds are written; a resumed
// crawl links from the checkpoint it opened; every copy reads back whole.
TEST_F(StateTest, UnchangedSeedsAreLinkedFromThePreviousCheckpoint) {
  std::vector<std::string> urls;
  for (int i = 0; i < 20000; ++i) urls.push_back("http://127.0.0.1:1/seed/" + std::to_string(i));
  const SeedList seeds = std::make_shared<const std::vector<std::string>>(urls);
  // A checkpoint of the sample with `with`; returns the bytes it wrote.
  auto write = [&](CrawlStateDir& state, const SeedList& with) {
    absl::Status written = state.Write([&](const fs::path& dir) -> absl::StatusOr<CrawlCheckpoint> {
      absl::Status saved = SaveEmptySieve(dir);
      if (!saved.ok()) return saved;
      CrawlCheckpoint checkpoint = Sample();
      checkpoint.seeds = with;
      return checkpoint;
    });
    EXPECT_TRUE(written.ok()) << written;
    return state.last_write_bytes();
  };
  auto state = CrawlStateDir::Create(StateDir(), false);
  ASSERT_TRUE(state.ok());
  const int64_t first = write(**state, seeds);
  const int64_t seeds_bytes = static_cast<int64_t>(fs::file_size(CurrentFolder() / "seeds.txt"));
  ASSERT_GT(seeds_bytes, 64 << 10);
  EXPECT_GT(first, seeds_bytes);
  const int64_t second = write(**state, seeds);   // the same list
  EXPECT_LT(second, first - seeds_bytes + 4096);  // the seeds were not written again
  const int64_t equal = write(**state, std::make_shared<const std::vector<std::string>>(urls));
  EXPECT_LT(equal, first - seeds_bytes + 4096);  // an equal list: compared, then linked
  std::vector<std::string> changed = urls;
  changed.back() = "http://127.0.0.1:1/another";
  const SeedList changed_list = std::make_shared<const std::vector<std::string>>(changed);
  const int64_t third = write(**state, changed_list);
  EXPECT_GT(third, seeds_bytes);
  auto opened = CrawlStateDir::Open(StateDir());
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(*(*opened)->loaded().seeds, changed);
  const int64_t resumed = write(**opened, (*opened)->loaded().seeds);
  EXPECT_LT(resumed, seeds_bytes);
  auto reopened = CrawlStateDir::Open(StateDir());
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_EQ(*(*reopened)->loaded().seeds, changed);
  EXPECT_EQ(fs::hard_link_count(CurrentFolder() / "seeds.txt"), 1u);  // the older folders are gone
}

TEST_F(StateTest, RepairPageLogCutsOnlyATornLastLine) {
  const std::string path = (root_ / "pages.jsonl").string();
  WriteAll(path, "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n{\"d\":");
  absl::StatusOr<int64_t> kept = RepairPageLog(path, 8);  // checkpoint after line 1
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(*kept, 2);
  EXPECT_EQ(ReadAll(path), "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n");

  kept = RepairPageLog(path, 24);  // nothing after the checkpoint
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(*kept, 0);
  EXPECT_EQ(ReadAll(path).size(), 24u);

  absl::StatusOr<int64_t> shorter = RepairPageLog(path, 1000);
  ASSERT_FALSE(shorter.ok());
  EXPECT_THAT(shorter.status().message(), HasSubstr(path));

  EXPECT_TRUE(RepairPageLog((root_ / "none.jsonl").string(), 0).ok());
}

}  // namespace
}  // namespace crawler
