#include "segment_file.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstdio>
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

// The file, and the segment's offset in it when not 0 (a pack).
std::string Where(const fs::path& path, uint64_t offset) {
  if (offset == 0) return path.string();
  return absl::StrCat(path.string(), " at offset ", offset);
}

absl::Status Corrupt(const fs::path& path, absl::string_view why, uint64_t offset = 0) {
  return absl::DataLossError(
      absl::StrCat("segment file ", Where(path, offset), " is damaged: ", why));
}

// The header's fields, checked for what can be checked without the body;
// `file_size` is the bytes from the header's start to the end of the file,
// `exact` whether the segment must fill them (a file of one segment).
absl::StatusOr<SegmentFileInfo> ParseHeader(std::string_view header, uint64_t file_size,
                                            const fs::path& path, uint64_t offset = 0,
                                            bool exact = true) {
  if (header.size() < kSegmentHeaderBytes || header.substr(0, 8) != kMagic) {
    return Corrupt(path, "no segment header (bad magic)", offset);
  }
  const uint64_t version = GetLe(header, 8, 4);
  if (version != kSegmentFileVersion) {
    return absl::DataLossError(absl::StrCat("segment file ", Where(path, offset), " has version ",
                                            version, "; this build reads ", kSegmentFileVersion));
  }
  const uint64_t codec = GetLe(header, 12, 4);
  SegmentFileInfo info;
  info.records = GetLe(header, 16, 8);
  info.raw_bytes = GetLe(header, 24, 8);
  info.stored_bytes = GetLe(header, 32, 8);
  info.checksum = GetLe(header, 40, 8);
  if (codec != kCodecZstd) return Corrupt(path, "unknown codec", offset);
  if (info.raw_bytes > kMaxSegmentRawBytes) return Corrupt(path, "impossible raw size", offset);
  if (info.stored_bytes > file_size ||
      (exact ? file_size != info.FileBytes() : file_size < info.FileBytes())) {
    return Corrupt(path, absl::StrCat("size ", file_size, " bytes, header says ", info.FileBytes()),
                   offset);
  }
  return info;
}

// Decompresses and checks a segment's body against its header.
absl::StatusOr<Segment> DecodeBody(std::string_view body, const SegmentFileInfo& info,
                                   const fs::path& path, uint64_t offset) {
  std::string raw(static_cast<size_t>(info.raw_bytes), '\0');
  const size_t n = ZSTD_decompress(raw.data(), raw.size(), body.data(), body.size());
  if (ZSTD_isError(n)) return Corrupt(path, absl::StrCat("zstd: ", ZSTD_getErrorName(n)), offset);
  if (n != raw.size()) return Corrupt(path, "decompressed size differs from the header", offset);
  if (Checksum(raw) != info.checksum) return Corrupt(path, "checksum mismatch", offset);
  absl::StatusOr<Segment> segment = Segment::FromBytes(std::move(raw), info.records);
  if (!segment.ok()) return Corrupt(path, segment.status().message(), offset);
  return segment;
}

// pread until `length` bytes are read or the file ends.
ssize_t ReadAt(int fd, char* out, size_t length, uint64_t offset) {
  size_t done = 0;
  while (done < length) {
    const ssize_t got = ::pread(fd, out + done, length - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return -1;
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  return static_cast<ssize_t>(done);
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

absl::StatusOr<SegmentFileInfo> ReadSegmentHeaderAt(const fs::path& path, uint64_t offset) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::DataLossError(
        absl::StrCat("cannot open segment file ", path.string(), ": ", std::strerror(errno)));
  }
  char header[kSegmentHeaderBytes];
  const ssize_t got = ReadAt(fd, header, sizeof header, offset);
  const off_t size = ::lseek(fd, 0, SEEK_END);
  ::close(fd);
  if (got != static_cast<ssize_t>(sizeof header)) {
    return Corrupt(path, "shorter than its header", offset);
  }
  return ParseHeader(std::string_view(header, sizeof header), static_cast<uint64_t>(size) - offset,
                     path, offset, /*exact=*/false);
}

absl::StatusOr<Segment> LoadSegmentAt(const fs::path& path, uint64_t offset,
                                      const SegmentFileInfo& expected) {
  if (expected.raw_bytes > kMaxSegmentRawBytes || expected.stored_bytes > kMaxSegmentRawBytes) {
    return Corrupt(path, "impossible size in the queue's record of it", offset);
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::DataLossError(absl::StrCat("segment file unreadable: cannot open ", path.string(),
                                            ": ", std::strerror(errno)));
  }
  std::string data(static_cast<size_t>(expected.FileBytes()), '\0');
  const ssize_t got = ReadAt(fd, data.data(), data.size(), offset);
  const int error = errno;
  ::close(fd);
  if (got < 0) {
    return absl::DataLossError(
        absl::StrCat("segment file unreadable: ", Where(path, offset), ": ", std::strerror(error)));
  }
  data.resize(static_cast<size_t>(got));
  absl::StatusOr<SegmentFileInfo> info =
      ParseHeader(data, data.size(), path, offset, /*exact=*/false);
  if (!info.ok()) return info.status();
  if (!(*info == expected)) {
    return Corrupt(path, "header differs from the queue's record of it", offset);
  }
  return DecodeBody(std::string_view(data).substr(kSegmentHeaderBytes, info->stored_bytes), *info,
                    path, offset);
}

std::string SegmentFileName(uint64_t checksum) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(checksum));
  return absl::StrCat("sieve-seg-", hex, ".zst");
}

std::string PackFileName(const std::vector<SegmentFileInfo>& segments) {
  std::string fields;
  for (const SegmentFileInfo& info : segments) {
    PutU64(fields, info.records);
    PutU64(fields, info.raw_bytes);
    PutU64(fields, info.checksum);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(Checksum(fields)));
  return absl::StrCat("sieve-pack-", hex, ".zst");
}

absl::StatusOr<Segment> LoadSegmentFile(const fs::path& path, const SegmentFileInfo& expected) {
  std::string data;
  if (absl::Status s = ReadWholeFile(path, data); !s.ok()) {
    return absl::DataLossError(absl::StrCat("segment file unreadable: ", s.message()));
  }
  absl::StatusOr<SegmentFileInfo> info = ParseHeader(data, data.size(), path);
  if (!info.ok()) return info.status();
  if (!(*info == expected)) return Corrupt(path, "header differs from the queue's record of it");
  return DecodeBody(std::string_view(data).substr(kSegmentHeaderBytes), *info, path, 0);
}

}  // namespace sieve::internal
