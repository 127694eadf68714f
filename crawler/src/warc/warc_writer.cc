// WarcWriter's implementation: records are built and gzipped on the calling
// thread; one lock orders them into files (rotation, offsets, revisit table)
// and hands them to the DiskWriter thread in that order.
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "crawler/warc.h"
#include "warc/digest.h"
#include "warc/disk_writer.h"
#include "warc/exchange_records.h"
#include "warc/gzip_member.h"
#include "warc/http_headers.h"
#include "warc/record.h"
#include "warc/revisit_table.h"

namespace crawler {
namespace {

using warc_internal::AppendGzipMember;

std::string WarcPath(const std::string& prefix, int index) {
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "-%05d.warc.gz", index);
  return prefix + suffix;
}

// Per-thread record buffers keep their capacity from page to page, except
// past 1 MiB (a large body): that memory goes back rather than staying
// resident in every parser thread.
void ReleaseIfLarge(std::string* buffer) {
  constexpr size_t kKeepBytes = 1 << 20;
  if (buffer->capacity() > kKeepBytes) std::string().swap(*buffer);
}

bool FileExists(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

absl::Status ValidateOptions(const WarcOptions& options) {
  if (options.prefix.empty()) return absl::InvalidArgumentError("WARC prefix is empty");
  if (options.max_file_size < 1024) {
    return absl::InvalidArgumentError("WARC max_file_size must be >= 1024");
  }
  if (options.queue_limit_bytes == 0) {
    return absl::InvalidArgumentError("WARC queue_limit_bytes must be > 0");
  }
  if (options.compression_level < 1 || options.compression_level > 9) {
    return absl::InvalidArgumentError("WARC compression_level must be 1..9");
  }
  std::error_code error;
  const std::filesystem::path folder = std::filesystem::path(options.prefix).parent_path();
  if (!folder.empty() && !std::filesystem::is_directory(folder, error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("WARC folder does not exist: ", folder.string()));
  }
  return absl::OkStatus();
}

class WarcWriterImpl : public WarcWriter {
 public:
  WarcWriterImpl(const WarcOptions& options, int first_index)
      : options_(options),
        disk_(options.queue_limit_bytes),
        revisits_(options.revisit_table_entries),
        file_index_(first_index - 1) {}

  ~WarcWriterImpl() override { Close().IgnoreError(); }

  absl::Status Start() {
    std::lock_guard lock(mutex_);
    return StartNextFile();
  }

  absl::StatusOr<WarcLocation> Write(const WarcExchange& exchange) override;
  WarcStats Stats() const override;
  absl::Status Sync() override { return disk_.Sync(); }
  absl::Status Close() override;

 private:
  absl::Status StartNextFile() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  std::optional<warc_internal::RevisitTable::Original> FindOriginal(
      const WarcExchange& exchange, const warc_internal::Sha1Bytes& payload_digest);
  absl::StatusOr<WarcLocation> Enqueue(absl::string_view members, uint64_t uncompressed,
                                       bool revisit);

  const WarcOptions options_;
  warc_internal::DiskWriter disk_;
  mutable std::mutex mutex_;
  warc_internal::RevisitTable revisits_ ABSL_GUARDED_BY(mutex_);
  int file_index_ ABSL_GUARDED_BY(mutex_);
  std::string file_path_ ABSL_GUARDED_BY(mutex_);
  uint64_t file_bytes_ ABSL_GUARDED_BY(mutex_) = 0;
  bool file_has_records_ ABSL_GUARDED_BY(mutex_) = false;
  bool closed_ ABSL_GUARDED_BY(mutex_) = false;
  WarcStats stats_ ABSL_GUARDED_BY(mutex_);
};

absl::Status WarcWriterImpl::StartNextFile() {
  ++file_index_;
  file_path_ = WarcPath(options_.prefix, file_index_);
  const std::string filename = std::filesystem::path(file_path_).filename().string();
  const std::string record = warc_internal::BuildWarcinfo(
      options_, filename, warc_internal::FormatWarcDate(std::chrono::system_clock::now()));
  std::string member;
  if (absl::Status s = AppendGzipMember(record, options_.compression_level, &member); !s.ok()) {
    return s;
  }
  file_bytes_ = member.size();
  file_has_records_ = false;
  ++stats_.files;
  ++stats_.records;
  stats_.uncompressed_bytes += record.size();
  stats_.written_bytes += member.size();
  return disk_.Append(file_path_, member);
}

std::optional<warc_internal::RevisitTable::Original> WarcWriterImpl::FindOriginal(
    const WarcExchange& exchange, const warc_internal::Sha1Bytes& payload_digest) {
  // Empty bodies (redirects, 304s) all share one digest: a revisit would save
  // nothing. A truncated payload is not the page, so it neither refers to nor
  // stands for an original.
  if (exchange.body.empty() || exchange.truncated) return std::nullopt;
  std::lock_guard lock(mutex_);
  return revisits_.FindOrInsert(payload_digest, {exchange.target_uri, exchange.date});
}

absl::StatusOr<WarcLocation> WarcWriterImpl::Write(const WarcExchange& exchange) {
  const std::string http_headers = warc_internal::RewriteResponseHeaders(
      exchange.response_headers, exchange.body.size(), exchange.content_decoded);
  // One SHA-1 of the body: its bytes key the revisit table, its text is the
  // payload digest.
  warc_internal::Sha1Bytes payload;
  if (exchange.payload_sha1.size() == payload.size()) {
    std::memcpy(payload.data(), exchange.payload_sha1.data(), payload.size());
  } else {
    payload = warc_internal::Sha1Of({exchange.body});
  }
  const warc_internal::ExchangeIds ids = {warc_internal::FormatWarcDate(exchange.date),
                                          warc_internal::NewRecordId(),
                                          warc_internal::NewRecordId()};
  // A recrawl's revisit names the previous crawl's record itself; it is not
  // an original for the table (it holds no payload).
  const bool not_modified = exchange.refers_to.has_value() &&
                            exchange.refers_to->profile == WarcRevisitProfile::kServerNotModified;
  const std::string payload_digest =
      not_modified ? exchange.refers_to->payload_digest : warc_internal::WarcDigestText(payload);
  const auto original = exchange.refers_to.has_value()
                            ? std::optional<warc_internal::RevisitTable::Original>(
                                  {exchange.refers_to->target_uri, exchange.refers_to->date})
                            : FindOriginal(exchange, payload);
  // Per thread and reused: the records' text and their gzip members (the
  // disk queue copies the members: DiskWriter).
  thread_local std::string request, response, members;
  request.clear();
  response.clear();
  members.clear();
  warc_internal::AppendRequest(exchange, ids, &request);
  if (original) {
    warc_internal::AppendRevisit(
        exchange, ids, http_headers, payload_digest, original->target_uri,
        warc_internal::FormatWarcDate(original->date), &response,
        not_modified ? warc_internal::kNotModifiedProfile : warc_internal::kRevisitProfile);
  } else {
    warc_internal::AppendResponse(exchange, ids, http_headers, payload_digest, &response);
  }
  // Response first, as Heritrix does: a crash between the two members leaves
  // a response without its request (still a valid archive), never a request
  // whose WARC-Concurrent-To names nothing.
  absl::Status s = AppendGzipMember(response, options_.compression_level, &members);
  if (s.ok()) s = AppendGzipMember(request, options_.compression_level, &members);
  absl::StatusOr<WarcLocation> location =
      s.ok() ? Enqueue(members, request.size() + response.size(), original.has_value())
             : absl::StatusOr<WarcLocation>(s);
  for (std::string* buffer : {&request, &response, &members}) ReleaseIfLarge(buffer);
  return location;
}

absl::StatusOr<WarcLocation> WarcWriterImpl::Enqueue(absl::string_view members,
                                                     uint64_t uncompressed, bool revisit) {
  std::lock_guard lock(mutex_);
  if (closed_) return absl::FailedPreconditionError("WARC writer is closed");
  if (file_has_records_ && file_bytes_ + members.size() > options_.max_file_size) {
    if (absl::Status s = StartNextFile(); !s.ok()) return s;
  }
  WarcLocation location{file_path_, file_bytes_};
  file_bytes_ += members.size();
  file_has_records_ = true;
  stats_.records += 2;
  ++stats_.responses;
  if (revisit) ++stats_.revisits;
  stats_.uncompressed_bytes += uncompressed;
  stats_.written_bytes += members.size();
  // Under the lock, so the disk order is the offset order; Append blocks here
  // only when the queue is full, and then every writer has to wait anyway.
  if (absl::Status s = disk_.Append(file_path_, members); !s.ok()) return s;
  return location;
}

WarcStats WarcWriterImpl::Stats() const {
  std::lock_guard lock(mutex_);
  WarcStats stats = stats_;
  stats.queued_bytes = disk_.QueuedBytes();
  return stats;
}

absl::Status WarcWriterImpl::Close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  return disk_.Finish();
}

}  // namespace

absl::StatusOr<std::unique_ptr<WarcWriter>> WarcWriter::Create(const WarcOptions& options) {
  if (absl::Status s = ValidateOptions(options); !s.ok()) return s;
  int first_index = 0;
  while (FileExists(WarcPath(options.prefix, first_index))) ++first_index;
  auto writer = std::make_unique<WarcWriterImpl>(options, first_index);
  if (absl::Status s = writer->Start(); !s.ok()) return s;
  return writer;
}

}  // namespace crawler
