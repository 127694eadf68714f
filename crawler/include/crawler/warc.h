// WarcWriter: archives fetches as WARC 1.1 (ISO 28500), the format Heritrix,
// wget --warc-file and Browsertrix write and warcio, pywb and the Common Crawl
// tooling read.
//
// Files are PREFIX-00000.warc.gz, PREFIX-00001.warc.gz, ... Each starts with a
// `warcinfo` record (software, format, the crawl's options), rotates once the
// next record would pass `max_file_size`, and never overwrites: the first index
// is the first one whose file does not exist yet (so a resumed crawl appends
// new files). Every record is its own gzip member, so a reader can seek to the
// offset `Write` returns and inflate just that record.
//
// Per fetch, `Write` stores a `response` then a `request` record (in that
// order, so a crash between them never leaves a dangling link) linked by
// WARC-Concurrent-To, with WARC-Target-URI, WARC-Date (UTC, microseconds, as
// WARC 1.1 allows), WARC-Record-ID (<urn:uuid:...>, random v4),
// WARC-IP-Address, WARC-Block-Digest and WARC-Payload-Digest (sha1, base32).
// When the payload digest equals one seen before (a bounded table of the most
// recent `revisit_table_entries` digests), the response is a `revisit` record
// (profile identical-payload-digest, WARC-Refers-To-Target-URI/-Date) holding
// the HTTP headers only; so is an exchange whose `refers_to` names a previous
// crawl's record (profile identical-payload-digest or server-not-modified). Bodies cut by
// --max-body carry `WARC-Truncated: length`.
//
// The payload we store, and why. WARC wants the HTTP entity as transmitted,
// but libcurl hands the crawler a de-chunked and (when `content_decoded`)
// content-decoded body. Storing decoded bytes under the original
// `Content-Encoding: gzip` header would make every reader fail to gunzip it.
// So, as wget does when it rewrites what it saved, the stored response headers
// are made true of the stored body:
//   - Transfer-Encoding is renamed X-Crawl-Original-Transfer-Encoding (the body
//     is never chunked once curl has it);
//   - if `content_decoded`, Content-Encoding is renamed
//     X-Crawl-Original-Content-Encoding;
//   - a Content-Length that differs from the stored body is renamed
//     X-Crawl-Original-Content-Length and a true Content-Length is added.
// The payload digest is then simply sha1(stored body): no reader has to guess
// whether chunking or compression was part of it (warcio and pywb compute it
// on the de-chunked entity, which is this). Nothing is rewritten in requests.
//
// Example:
//   auto warc = crawler::WarcWriter::Create({.prefix = "out/crawl"});
//   if (!warc.ok()) return warc.status();
//   absl::StatusOr<crawler::WarcLocation> at = (*warc)->Write({
//       .target_uri = url, .request_headers = request, .response_headers =
//       result.headers, .body = result.body, .remote_ip = result.remote_ip,
//       .date = std::chrono::system_clock::now()});
//   ...  // at->file, at->offset go to pages.jsonl
//   absl::Status closed = (*warc)->Close();
//
// Cost per page of ~5 KB (testsite crawl): ~9 us of ISA-L igzip for the
// response record and ~1 us for the request, ~6.5 us of SHA-1 (payload, and
// block digests that hash the body again), a few us of record text built in
// per-thread buffers; see crawler/src/warc/README.md.
//
// Threading: Write, Stats and Close are safe to call from any thread. Write does
// the CPU work (digests, gzip) on the calling thread, so fetcher threads share
// it; one dedicated writer thread does all disk I/O, in batches. Write blocks
// only while more than `queue_limit_bytes` of compressed records wait for the
// disk.
#ifndef CRAWLER_WARC_H_
#define CRAWLER_WARC_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace crawler {

struct WarcOptions {
  // Path prefix of the files: PREFIX-00000.warc.gz, ... Its folder must exist.
  std::string prefix;
  // A file is closed and the next one started when the next record would
  // make it larger than this (a single larger record still gets written, alone
  // after the warcinfo). Must be >= 1024. Default 1 GB, as Heritrix.
  uint64_t max_file_size = 1ull << 30;
  // The warcinfo `software` field.
  std::string software = "crawl/" CRAWL_VERSION;
  // The crawl's options as "key: value" lines, appended to each warcinfo.
  std::string warcinfo_fields;
  // Compressed bytes waiting for the disk before Write blocks. Bounds memory
  // when the disk is slower than the fetchers. Must be > 0.
  size_t queue_limit_bytes = 64 << 20;
  // Payload digests remembered for revisit records (oldest forgotten first);
  // about 100 bytes each plus the URI. 0 turns revisit records off.
  size_t revisit_table_entries = 1 << 18;
  // gzip effort 1..9, mapped to ISA-L igzip's levels 0..3 (1 -> 0, 2 -> 1,
  // 3 -> 2, 4..9 -> 3). Level 1 (igzip 0) gzips a 6 KB testsite response
  // record in ~8 us for 2183 bytes; 2 (igzip 1) in ~13 us for 1922; for
  // comparison libdeflate's level 1 took ~24 us for 1877 and zlib's ~41 us
  // (microbenchmark, one 2-core box). Compression runs on the crawl's own
  // threads and the crawl is CPU-bound, so the cheapest level keeps pages/s.
  int compression_level = 1;
};

// How a recrawl's answer stands for the previous crawl's record of the same
// URL (--recrawl): the WARC 1.1 revisit profiles.
enum class WarcRevisitProfile {
  // A 200 whose payload digest equals the previous one.
  kIdenticalPayloadDigest,
  // A 304 to a conditional GET.
  kServerNotModified,
};

// The earlier record a `revisit` refers to: WARC-Refers-To-Target-URI and
// WARC-Refers-To-Date. `payload_digest` ("sha1:...", may be empty) is the
// WARC-Payload-Digest a server-not-modified revisit carries: the previous
// payload's, which the 304 says still holds (an identical-payload one carries
// its own body's, the same).
struct WarcRefersTo {
  WarcRevisitProfile profile = WarcRevisitProfile::kIdenticalPayloadDigest;
  std::string target_uri;
  std::chrono::system_clock::time_point date;
  std::string payload_digest;
};

// One HTTP exchange as the fetcher saw it.
struct WarcExchange {
  std::string target_uri;
  // Raw request as sent (or reconstructed): request line + headers, with or
  // without the final empty line.
  std::string request_headers;
  // Raw status line + headers as received, with or without the empty line.
  std::string response_headers;
  // The body as the fetcher holds it; see `content_decoded`.
  std::string body;
  // True when `body` was content-decoded (gzip/br/...) by the fetcher, which
  // is what crawler::Fetcher does: the stored headers are rewritten to match.
  bool content_decoded = true;
  std::string remote_ip;  // empty: no WARC-IP-Address
  std::chrono::system_clock::time_point date;
  // The body was cut by --max-body, or not downloaded (a type refused by
  // --accept-type/--reject-type): WARC-Truncated: length.
  bool truncated = false;
  // PayloadSha1(body) when the caller computed it already (the crawl does,
  // for pages.jsonl's `digest`): Write then hashes the body once less. Empty:
  // Write computes it. Anything but 20 bytes is ignored.
  std::string payload_sha1;
  // Set by a recrawl for a 304 or an unchanged 200: the response is written
  // as a `revisit` record of that profile referring to the previous crawl's
  // record, whatever the revisit table holds, with the HTTP headers only.
  std::optional<WarcRefersTo> refers_to;
};

// Where a response (or revisit) record starts: the gzip member at `offset` of
// `file` (the path as PREFIX-NNNNN.warc.gz).
struct WarcLocation {
  std::string file;
  uint64_t offset = 0;
};

struct WarcStats {
  uint64_t records = 0;  // warcinfo, request, response and revisit
  uint64_t responses = 0;
  uint64_t revisits = 0;
  uint64_t files = 0;
  uint64_t uncompressed_bytes = 0;  // WARC records before gzip
  uint64_t written_bytes = 0;       // gzip bytes handed to the disk
  uint64_t queued_bytes = 0;        // waiting for the writer thread now
};

class WarcWriter {
 public:
  // Validates options, creates the first file and starts the writer thread.
  static absl::StatusOr<std::unique_ptr<WarcWriter>> Create(const WarcOptions& options);
  virtual ~WarcWriter() = default;

  // Queues one request + response pair (or request + revisit when the payload
  // digest repeats). Returns where the response/revisit record will be. After
  // a disk error or Close, returns that error / FailedPrecondition.
  virtual absl::StatusOr<WarcLocation> Write(const WarcExchange& exchange) = 0;

  virtual WarcStats Stats() const = 0;

  // Returns once every record queued before the call is written and fsynced
  // (a crawl checkpoint calls it, so a page recorded before the checkpoint
  // has its records on disk); the first disk error, if any. After Close,
  // returns what Close returned.
  virtual absl::Status Sync() = 0;

  // Writes everything queued, fsyncs and closes the file, stops the thread.
  // Returns the first disk error, if any. Idempotent; the destructor calls it.
  virtual absl::Status Close() = 0;
};

// The SHA-1 of `body` as 20 raw bytes, for WarcExchange::payload_sha1.
// Thread-safe. ~3 us for a 5 KB body.
std::string PayloadSha1(std::string_view body);

// "sha1:" + RFC 4648 base32 of a 20-byte SHA-1 (32 letters, no padding): the
// form of WARC-Payload-Digest, which pages.jsonl's `digest` also uses.
std::string DigestText(std::string_view sha1);

// For --resume after a crash (kill -9 mid-write): cuts `path` after its last
// complete gzip member, removing a torn last record. A file with no complete
// member becomes empty. NotFound if the file does not exist.
absl::Status TruncateTornWarc(const std::string& path);

}  // namespace crawler

#endif  // CRAWLER_WARC_H_
