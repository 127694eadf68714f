// CrawlStateDir: a crawl's checkpoints on disk (--state DIR), so that
// `crawl --resume` continues after a crash, a kill -9 or a clean stop.
//
//   DIR/CURRENT            "ckpt-000042\n": the checkpoint to resume from
//   DIR/ckpt-000042/       one checkpoint, complete before CURRENT names it
//       sieve.checkpoint   the Sieve (filter, queue, in-flight URLs queued again)
//                          and whatever else Sieve::Save writes there (e.g.
//                          hard links to its immutable spilled segments)
//       frontier.json      the Frontier's counters and per-host counts;
//                          nothing per URL (a URL's depth and parent are
//                          its payload in the Sieve's checkpoint)
//       counters.json      the crawl's counters (what summary.json reports)
//       options.toml       the crawl's options (a resume must not change them)
//       seeds.txt          the normalized seeds (scope derives from them)
//       cookies.txt        the cookie jar (Netscape cookie-file lines, as
//                          curl writes them; empty with --cookies off)
//       MANIFEST           format version, pages.jsonl length, the size and
//                          CRC-32 of the five files above; itself checksummed
//
// The Sieve's files carry their own checksums and are verified by
// Sieve::Open; the MANIFEST does not list them, and neither Write nor Open
// reads them, so a checkpoint's cost does not grow with the spilled queue.
// Old checkpoint folders are removed by unlinking: a hard-linked segment
// lives on while the newer checkpoint (or the spill dir) links it.
//
// A checkpoint is written into a new directory (every file fsynced), then
// CURRENT is replaced atomically (temporary file, fsync, rename, fsync of
// DIR), then older checkpoint directories are removed: a crash at any point
// leaves CURRENT naming a whole checkpoint (the LevelDB CURRENT/MANIFEST
// pattern). Any damage (missing file, wrong size or CRC, unknown version,
// a key options.toml does not know) is a DataLoss or InvalidArgument error
// naming the file; nothing is modified by Open.
//
//   auto state = crawler::CrawlStateDir::Create(options.state_dir, options.fresh);
//   ...
//   absl::Status s = (*state)->Write([&](const std::filesystem::path& dir) {
//     return CaptureUnderLocks(dir);   // saves the Sieve into dir, returns the rest
//   });
//   // later, crawl --resume:
//   auto resumed = crawler::CrawlStateDir::Open(options.state_dir);
//   sieve::Sieve::Open((*resumed)->checkpoint_dir(), runtime);
//
// Threading: one thread uses a CrawlStateDir (the crawl's scheduler); the
// free functions are safe from any thread.
#ifndef CRAWLER_CRAWL_STATE_H_
#define CRAWLER_CRAWL_STATE_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "crawler/frontier.h"
#include "crawler/options.h"
#include "crawler/output.h"

namespace crawler {

// Bumped on any change of the files' layout; Open refuses other versions,
// but for the one it migrates.
// Version 2: frontier.json holds no URLs (their depth and parent travel in
// the Sieve's payloads); version 1 state is refused, naming its MANIFEST.
// Version 3: cookies.txt, the cookie jar. A version 2 checkpoint is read as
// one with an empty jar (it predates the jar's saving: its cookies are lost,
// as they were with the build that wrote it).
// Version 4: traps.txt, the crawler-trap counts (app/trap_guard.h). A version
// 2 or 3 checkpoint is read with none: the resumed crawl counts from zero, as
// the build that wrote it did. The next checkpoint is a 4.
inline constexpr int kCrawlStateVersion = 4;
inline constexpr int kCrawlStateVersionOldest = 2;  // older ones are refused

// The file of a checkpoint's folder that holds CrawlCheckpoint::traps.
inline constexpr std::string_view kCrawlStateTrapsFile = "traps.txt";

// What a checkpoint holds besides the Sieve (which saves itself into the
// checkpoint's directory).
// A crawl's normalized seeds. Shared and immutable: a crawl of a million
// seeds keeps one copy, and a checkpoint takes it without copying.
using SeedList = std::shared_ptr<const std::vector<std::string>>;

struct CrawlCheckpoint {
  CrawlOptions options;  // as the crawl runs; resume and fresh are stored false
  SeedList seeds = std::make_shared<const std::vector<std::string>>();  // normalized; never null
  CrawlSummary counters;  // duration_s: crawl time so far, all runs
  // pages.jsonl's length: every record of a page Done at the checkpoint lies
  // below it; pages handed out and not Done are queued again in the Sieve.
  int64_t log_bytes = 0;
  FrontierSnapshot frontier;
  // The cookie jar as Netscape cookie-file lines (Fetcher::CookieJar), so a
  // resumed crawl sends back what servers set before the stop. Bound: what
  // the crawled servers set, at most 50 cookies per domain (libcurl's cap).
  std::string cookies;
  // The crawler-trap counts (TrapGuard::Encode), so a resumed crawl does not
  // give a trap a fresh budget. Bound: ~10 MB with every slot in use.
  std::string traps;
};

namespace state_internal {
struct PreviousCheckpoint;  // state/checkpoint_codec.h
}  // namespace state_internal

class CrawlStateDir {
 public:
  ~CrawlStateDir();
  // For a crawl that is not resumed. An existing non-empty `dir` is an
  // InvalidArgument error asking for --resume or --fresh, unless `fresh`:
  // then its checkpoints are deleted. Creates `dir`; an unwritable place is
  // an Unavailable error naming it.
  static absl::StatusOr<std::unique_ptr<CrawlStateDir>> Create(const std::string& dir, bool fresh);

  // For --resume: reads CURRENT and verifies the whole checkpoint it names
  // (the Sieve's file is verified by Sieve::Open). No checkpoint: an
  // InvalidArgument error; damage: DataLoss or InvalidArgument naming the file.
  static absl::StatusOr<std::unique_ptr<CrawlStateDir>> Open(const std::string& dir);

  // The checkpoint Open loaded (empty after Create).
  const CrawlCheckpoint& loaded() const { return loaded_; }
  // Where Open's Sieve checkpoint is: pass it to sieve::Sieve::Open.
  const std::filesystem::path& checkpoint_dir() const { return checkpoint_dir_; }
  // Checkpoints written by this object.
  int64_t written() const { return written_; }
  // The last successful Write: its wall time (capture included) and the
  // bytes it wrote: the sizes of the checkpoint's files that have one link
  // (a hard-linked spilled segment was written once, when it spilled, and is
  // not counted again). Both 0 before the first.
  int64_t last_write_ms() const { return last_write_ms_; }
  int64_t last_write_bytes() const { return last_write_bytes_; }
  // Files of at least 64 KiB that a checkpoint holds unchanged from the
  // previous one (the seeds) are hard-linked from it, not written again;
  // seeds that are the very SeedList this object wrote last are linked
  // without being encoded or compared.

  // Writes the next checkpoint. `capture` gets the new checkpoint's
  // directory (created, empty), must save the Sieve there and return the
  // rest, all of one moment. On any error the previous checkpoint stays
  // current and whole; the error names the file that failed.
  using Capture = std::function<absl::StatusOr<CrawlCheckpoint>(const std::filesystem::path& dir)>;
  absl::Status Write(const Capture& capture);

 private:
  CrawlStateDir(std::filesystem::path dir, int64_t sequence);

  const std::filesystem::path dir_;
  int64_t sequence_;  // of the current checkpoint; 0 = none
  int64_t written_ = 0;
  int64_t last_write_ms_ = 0;
  int64_t last_write_bytes_ = 0;
  CrawlCheckpoint loaded_;
  std::filesystem::path checkpoint_dir_;
  // The current checkpoint (written or opened), whose unchanged files the
  // next one links.
  std::unique_ptr<state_internal::PreviousCheckpoint> previous_;
};

// The options of `crawl --resume ARGS`: ARGS (without the program name) are
// parsed on top of the options stored in the state directory's current
// checkpoint, so an option not given keeps its stored value. A flag (or
// --config key) that changes a stored value is an InvalidArgument error
// naming it and both values, except the options a resume may change:
// --log-level, --quiet, --max-pages, --threads, --connections,
// --checkpoint-every, --queue-memory, --spill-dir, --timeout,
// --connect-timeout. `state_dir` is where the checkpoint is looked for.
absl::StatusOr<CrawlOptions> ResumeOptions(int argc, const char* const* argv,
                                           const std::string& state_dir);

// Prepares `path` (pages.jsonl) for appending after a resume: the records
// written after the checkpoint are kept (those pages will be fetched again,
// so each may appear twice), a torn last line is cut. Returns the number of
// whole lines kept beyond `log_bytes`. A file shorter than `log_bytes` lost
// records of finished pages: a DataLoss error naming it. A missing file with
// log_bytes 0 is fine.
absl::StatusOr<int64_t> RepairPageLog(const std::string& path, int64_t log_bytes);

}  // namespace crawler

#endif  // CRAWLER_CRAWL_STATE_H_
