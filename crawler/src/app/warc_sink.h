// WarcSink: the crawl's WARC archive (--warc). Turns each FetchResult that got
// a response into a WarcExchange for the WarcWriter (crawler/warc.h) and
// returns where its response record landed, for pages.jsonl.
//
//   absl::StatusOr<std::unique_ptr<WarcSink>> sink = WarcSink::Create(options);
//   if (!sink.ok()) return sink.status();   // *sink is null without --warc
//   absl::StatusOr<std::optional<WarcLocation>> at = (*sink)->Archive(result);
//   if (!at.ok()) StopTheCrawl();  // a disk error, logged once by the sink
//   PageRecord record = ...;
//   NoteWarcLocation(*at, &record);  // warc_file, warc_offset for pages.jsonl
//   absl::Status closed = (*sink)->Close();
//
// What is archived: every fetch that received a response (status != 0),
// redirects and errors included, with the request curl sent; a body cut by
// --max-body ("body_too_large") carries WARC-Truncated: length. Fetches with
// no response (timeouts before headers, refused connections) are not.
//
// --resume: Create cuts a torn last record off the newest existing WARC file
// of the prefix (RepairLastWarc) before the writer starts the next file.
//
// Where it runs: the crawl calls Archive for pages on the parser threads,
// just before parsing (retried answers, robots.txt and sitemaps on the
// fetcher threads). The digests and gzip cost ~15 us per 5 KB page (ISA-L
// igzip, sha1 twice over the body); in the fetchers' curl loops that work
// delayed every transfer of the loop and cost more CPU per page in polls and
// wake-ups than it did itself (bench/warc-crawl/run). Disk I/O is the
// writer's own thread.
//
// Threading: Archive and Stats are safe to call concurrently (the writer's own
// rule); Close once, after the last Archive.
#ifndef CRAWLER_APP_WARC_SINK_H_
#define CRAWLER_APP_WARC_SINK_H_

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "crawler/fetch.h"
#include "crawler/host_queues.h"
#include "crawler/options.h"
#include "crawler/output.h"
#include "crawler/warc.h"

namespace crawler {

class WarcSink {
 public:
  // Null (and OK) when options.warc_prefix is empty. Creates the prefix's
  // folder if needed, repairs the last file when options.resume, and opens
  // the first new file with a warcinfo holding OptionsAsLines(options).
  static absl::StatusOr<std::unique_ptr<WarcSink>> Create(const CrawlOptions& options);

  // Archives `result` if it got a response; nullopt if it did not. An error
  // means the writer failed (disk full, ...) and stays failed; the first one
  // is logged ("--warc: ... stopping the crawl"), the caller stops the crawl.
  absl::StatusOr<std::optional<WarcLocation>> Archive(const FetchResult& result);

  // Archive without copying: `*result`'s request, headers and body are moved
  // into the exchange for the call and moved back, unchanged, before it
  // returns. Pages go this way; a copy of a 5 KB body per page cost an
  // allocation through glibc's large-chunk bins, a memcpy and a free.
  // `payload_sha1`: PayloadSha1 of the body if the caller has it ("": computed).
  // `refers_to`: a recrawl's 304 or unchanged 200, written as a `revisit` of
  // the previous crawl's record (RevisitOfPrevious).
  absl::StatusOr<std::optional<WarcLocation>> ArchiveBorrowing(
      FetchResult* result, std::string payload_sha1 = "",
      std::optional<WarcRefersTo> refers_to = std::nullopt);

  WarcStats Stats() const { return writer_->Stats(); }

  // Every record archived so far is on disk (fsynced); for checkpoints.
  absl::Status Sync() { return writer_->Sync(); }

  // Flushes, fsyncs and closes the current file; the first disk error, if any.
  absl::Status Close() { return writer_->Close(); }

 private:
  explicit WarcSink(std::unique_ptr<WarcWriter> writer) : writer_(std::move(writer)) {}
  absl::StatusOr<std::optional<WarcLocation>> Write(const WarcExchange& exchange);
  std::unique_ptr<WarcWriter> writer_;
  std::atomic<bool> failed_{false};  // the first error is logged, later ones not
};

// What a recrawl's fetch of `url` refers to in the previous crawl's archive:
// its record of the same URL, dated by the previous fetched_at (the WARC-Date
// this crawler wrote for it, to the millisecond), for a 304 (profile
// server-not-modified, the previous digest) or an unchanged 200
// (identical-payload-digest). nullopt for any other verdict.
std::optional<WarcRefersTo> RevisitOfPrevious(const std::string& url,
                                              const std::optional<PreviousFetch>& previous,
                                              Revisit verdict);

// Copies `at` (if any) into the record's warc_file and warc_offset.
void NoteWarcLocation(const std::optional<WarcLocation>& at, PageRecord* record);

// The exchange a fetch result makes: request, response headers, the decoded
// body (content_decoded), truncation, peer address and capture date.
WarcExchange ExchangeOf(const FetchResult& result);

// For --resume after kill -9: finds the highest-numbered PREFIX-NNNNN.warc.gz
// that exists and cuts a torn last record off it (TruncateTornWarc). OK when
// there is no such file.
absl::Status RepairLastWarc(const std::string& prefix);

}  // namespace crawler

#endif  // CRAWLER_APP_WARC_SINK_H_
