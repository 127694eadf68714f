#include "segment_file.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "file_io.h"

namespace sieve::internal {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMagic = "SIEVESGZ";
constexpr uint32_t kCodecZstd = 1;  // the only codec so far

void PutU32(std::string& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

void PutU64(std::string& out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t GetLe(std::string_view in, size_t at, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(in[at + i]);
  return value;
}

absl::Status Corrupt(const fs::path& path, absl::string_view why) {
  return absl::DataLossError(absl::StrCat("segment file ", path.string(), " is damaged: ", why));
}

// The header's fields, checked for what can be checked without the body.
absl::StatusOr<SegmentFileInfo> ParseHeader(std::string_view header, uint64_t file_size,
                                            const fs::path& path) {
  if (header.size() < kSegmentHeaderBytes || header.substr(0, 8) != kMagic) {
    return Corrupt(path, "no segment header (bad magic)");
  }
  const uint64_t version = GetLe(header, 8, 4);
  if (version != kSegmentFileVersion) {
    return absl::DataLossError(absl::StrCat("segment file ", path.string(), " has version ",
                                            version, "; this build reads ", kSegmentFileVersion));
  }
  const uint64_t codec = GetLe(header, 12, 4);
  SegmentFileInfo info;
  info.records = GetLe(header, 16, 8);
  info.raw_bytes = GetLe(header, 24, 8);
  info.stored_bytes = GetLe(header, 32, 8);
  info.checksum = GetLe(header, 40, 8);
  if (codec != kCodecZstd) return Corrupt(path, "unknown codec");
  if (info.raw_bytes > kMaxSegmentRawBytes) return Corrupt(path, "impossible raw size");
  if (file_size != info.FileBytes()) {
    return Corrupt(path,
                   absl::StrCat("size ", file_size, " bytes, header says ", info.FileBytes()));
  }
  return info;
}

}  // namespace

struct SegmentCompressor::Context {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ~Context() { ZSTD_freeCCtx(cctx); }
};

SegmentCompressor::SegmentCompressor(int level)
    : level_(level), context_(std::make_unique<Context>()) {}
SegmentCompressor::~SegmentCompressor() = default;

absl::StatusOr<std::string> SegmentCompressor::Encode(std::string_view raw, uint64_t records,
                                                      SegmentFileInfo& info) {
  return Encode(raw, records, info, level_);
}

absl::StatusOr<std::string> SegmentCompressor::Encode(std::string_view raw, uint64_t records,
                                                      SegmentFileInfo& info, int level) {
  const uint64_t checksum = Checksum(raw);
  std::string file;
  file.reserve(kSegmentHeaderBytes + ZSTD_compressBound(raw.size()));
  file.append(kMagic);
  PutU32(file, kSegmentFileVersion);
  PutU32(file, kCodecZstd);
  PutU64(file, records);
  PutU64(file, raw.size());
  PutU64(file, 0);  // stored size, set below
  PutU64(file, checksum);
  file.resize(file.capacity());
  const size_t stored =
      ZSTD_compressCCtx(context_->cctx, file.data() + kSegmentHeaderBytes,
                        file.size() - kSegmentHeaderBytes, raw.data(), raw.size(), level);
  if (ZSTD_isError(stored)) {
    return absl::InternalError(absl::StrCat("zstd: ", ZSTD_getErrorName(stored)));
  }
  file.resize(kSegmentHeaderBytes + stored);
  for (int i = 0; i < 8; ++i) file[32 + i] = static_cast<char>((stored >> (8 * i)) & 0xff);
  info = {records, raw.size(), stored, checksum};
  return file;
}

absl::StatusOr<SegmentFileInfo> ReadSegmentFileHeader(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::DataLossError(
        absl::StrCat("cannot open segment file ", path.string(), ": ", std::strerror(errno)));
  }
  char header[kSegmentHeaderBytes];
  const ssize_t got = ::pread(fd, header, sizeof header, 0);
  const off_t size = ::lseek(fd, 0, SEEK_END);
  ::close(fd);
  if (got != static_cast<ssize_t>(sizeof header)) return Corrupt(path, "shorter than its header");
  return ParseHeader(std::string_view(header, sizeof header), static_cast<uint64_t>(size), path);
}

absl::StatusOr<Segment> LoadSegmentFile(const fs::path& path, const SegmentFileInfo& expected) {
  std::string data;
  if (absl::Status s = ReadWholeFile(path, data); !s.ok()) {
    return absl::DataLossError(absl::StrCat("segment file unreadable: ", s.message()));
  }
  absl::StatusOr<SegmentFileInfo> info = ParseHeader(data, data.size(), path);
  if (!info.ok()) return info.status();
  if (!(*info == expected)) return Corrupt(path, "header differs from the queue's record of it");
  std::string raw(static_cast<size_t>(info->raw_bytes), '\0');
  const size_t n = ZSTD_decompress(raw.data(), raw.size(), data.data() + kSegmentHeaderBytes,
                                   data.size() - kSegmentHeaderBytes);
  data = std::string();  // free the compressed copy before parsing
  if (ZSTD_isError(n)) return Corrupt(path, absl::StrCat("zstd: ", ZSTD_getErrorName(n)));
  if (n != raw.size()) return Corrupt(path, "decompressed size differs from the header");
  if (Checksum(raw) != info->checksum) return Corrupt(path, "checksum mismatch");
  absl::StatusOr<Segment> segment = Segment::FromBytes(std::move(raw), info->records);
  if (!segment.ok()) return Corrupt(path, segment.status().message());
  return segment;
}

}  // namespace sieve::internal
