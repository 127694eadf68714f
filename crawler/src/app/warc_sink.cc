// WarcSink: FetchResult -> WarcExchange, and the writer's life in a crawl.
#include "app/warc_sink.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "crawler/options.h"
#include "spdlog/spdlog.h"

namespace crawler {
namespace {

// The writer's file naming (crawler/src/warc/): PREFIX-00000.warc.gz, ...
std::string WarcPath(const std::string& prefix, int index) {
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "-%05d.warc.gz", index);
  return prefix + suffix;
}

absl::Status CreateParentFolder(const std::string& prefix) {
  const std::filesystem::path parent = std::filesystem::path(prefix).parent_path();
  if (parent.empty()) return absl::OkStatus();
  std::error_code error;
  std::filesystem::create_directories(parent, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("--warc: cannot create ", parent.string(), ": ", error.message()));
  }
  return absl::OkStatus();
}

// Cut by --max-body, or refused by --accept-type/--reject-type after the
// headers (the record keeps them, with no body): WARC-Truncated either way.
bool BodyWasCut(const FetchResult& result) {
  return result.error == kFetchBodyTooLarge || result.error == kFetchTypeRejected;
}

// WARC-Date to the millisecond, as pages.jsonl's fetched_at (the same
// started_at): a recrawl's revisit then names the previous record's
// WARC-Date exactly from the previous record's fetched_at.
std::chrono::system_clock::time_point CaptureDate(std::chrono::system_clock::time_point started) {
  return std::chrono::floor<std::chrono::milliseconds>(started);
}

}  // namespace

WarcExchange ExchangeOf(const FetchResult& result) {
  WarcExchange exchange;
  exchange.target_uri = result.url;
  exchange.request_headers = result.request_headers;
  exchange.response_headers = result.headers;
  exchange.body = result.body;
  exchange.content_decoded = true;  // the Fetcher always decodes
  exchange.remote_ip = result.remote_ip;
  exchange.date = CaptureDate(result.started_at);
  exchange.truncated = BodyWasCut(result);
  return exchange;
}

absl::Status RepairLastWarc(const std::string& prefix) {
  // The writer starts at the first index whose file is missing, so the files
  // of a prefix are 0..n-1 and the last one written is n-1.
  int next = 0;
  while (std::filesystem::exists(WarcPath(prefix, next))) ++next;
  if (next == 0) return absl::OkStatus();
  return TruncateTornWarc(WarcPath(prefix, next - 1));
}

absl::StatusOr<std::unique_ptr<WarcSink>> WarcSink::Create(const CrawlOptions& options) {
  if (options.warc_prefix.empty()) return nullptr;
  absl::Status folder = CreateParentFolder(options.warc_prefix);
  if (!folder.ok()) return folder;
  if (options.resume) {
    absl::Status repaired = RepairLastWarc(options.warc_prefix);
    if (!repaired.ok()) return repaired;
  }
  WarcOptions warc;
  warc.prefix = options.warc_prefix;
  warc.max_file_size = options.warc_max_size;
  warc.warcinfo_fields = OptionsAsLines(options);
  absl::StatusOr<std::unique_ptr<WarcWriter>> writer = WarcWriter::Create(warc);
  if (!writer.ok()) return writer.status();
  return std::unique_ptr<WarcSink>(new WarcSink(std::move(*writer)));
}

absl::StatusOr<std::optional<WarcLocation>> WarcSink::Archive(const FetchResult& result) {
  if (result.status == 0) return std::nullopt;
  return Write(ExchangeOf(result));
}

absl::StatusOr<std::optional<WarcLocation>> WarcSink::ArchiveBorrowing(
    FetchResult* result, std::string payload_sha1, std::optional<WarcRefersTo> refers_to) {
  if (result->status == 0) return std::nullopt;
  WarcExchange exchange;
  exchange.request_headers = std::move(result->request_headers);
  exchange.response_headers = std::move(result->headers);
  exchange.body = std::move(result->body);
  exchange.target_uri = result->url;
  exchange.content_decoded = true;  // as ExchangeOf
  exchange.remote_ip = result->remote_ip;
  exchange.date = CaptureDate(result->started_at);
  exchange.truncated = BodyWasCut(*result);
  exchange.payload_sha1 = std::move(payload_sha1);
  exchange.refers_to = std::move(refers_to);
  absl::StatusOr<std::optional<WarcLocation>> at = Write(exchange);
  result->request_headers = std::move(exchange.request_headers);
  result->headers = std::move(exchange.response_headers);
  result->body = std::move(exchange.body);
  return at;
}

absl::StatusOr<std::optional<WarcLocation>> WarcSink::Write(const WarcExchange& exchange) {
  absl::StatusOr<WarcLocation> at = writer_->Write(exchange);
  if (!at.ok()) {
    if (!failed_.exchange(true)) {
      spdlog::error("--warc: {}; stopping the crawl", std::string(at.status().message()));
    }
    return at.status();
  }
  return std::optional<WarcLocation>(std::move(*at));
}

std::optional<WarcRefersTo> RevisitOfPrevious(const std::string& url,
                                              const std::optional<PreviousFetch>& previous,
                                              Revisit verdict) {
  if (!previous.has_value()) return std::nullopt;
  if (verdict != Revisit::kNotModified && verdict != Revisit::kUnchanged) return std::nullopt;
  WarcRefersTo refers_to;
  refers_to.profile = verdict == Revisit::kNotModified
                          ? WarcRevisitProfile::kServerNotModified
                          : WarcRevisitProfile::kIdenticalPayloadDigest;
  refers_to.target_uri = url;
  refers_to.date = absl::ToChronoTime(previous->fetched_at);
  refers_to.payload_digest = previous->digest;
  return refers_to;
}

void NoteWarcLocation(const std::optional<WarcLocation>& at, PageRecord* record) {
  if (!at.has_value()) return;
  record->warc_file = at->file;
  record->warc_offset = at->offset;
}

}  // namespace crawler
