// SaveFilterCheckpoint / LoadFilterCheckpoint (contract and crash-safety
// argument in filter_checkpoint.h; the math in docs/bloom.md, "Checkpoints").
#include "filter_checkpoint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL  // compiled in: the package asks for no xxHash (docs/embedding.md)
#endif
#include <xxhash.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <istream>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <streambuf>
#include <system_error>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "descriptor_io.h"
#include "zstd_streambuf.h"

namespace sieve::internal {
namespace {

namespace fs = std::filesystem;
constexpr size_t kFilterIoChunk = size_t{1} << 20;
constexpr absl::string_view kBaseSuffix = ".base";
constexpr absl::string_view kDeltaSuffix = ".delta";
constexpr absl::string_view kTempSuffix = ".tmp";

struct Xxh3Free {
  void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
};
using Xxh3State = std::unique_ptr<XXH3_state_t, Xxh3Free>;

Xxh3State NewXxh3() {
  Xxh3State state(XXH3_createState());
  XXH3_64bits_reset(state.get());
  return state;
}

// Input from a descriptor through a 1 MiB buffer, hashing and counting the
// bytes handed out (not seekable: bloom's loaders then skip their size check,
// which the manifest's size has already done).
class HashingReader : public std::streambuf {
 public:
  explicit HashingReader(int fd) : fd_(fd), buffer_(kFilterIoChunk), state_(NewXxh3()) {}
  bool failed() const { return failed_; }
  uint64_t bytes() const { return bytes_; }
  uint64_t digest() const { return XXH3_64bits_digest(state_.get()); }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    ssize_t n;
    do {
      n = ::read(fd_, buffer_.data(), buffer_.size());
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
      failed_ = n < 0;
      return traits_type::eof();
    }
    XXH3_64bits_update(state_.get(), buffer_.data(), static_cast<size_t>(n));
    bytes_ += static_cast<uint64_t>(n);
    setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  int fd_;
  std::vector<char> buffer_;
  Xxh3State state_;
  uint64_t bytes_ = 0;
  bool failed_ = false;
};

absl::Status FsyncPath(const fs::path& path, int flags) {
  Fd fd(::open(path.c_str(), flags | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("cannot open", path);
  if (::fsync(fd.get()) != 0) return ErrnoError("cannot fsync", path);
  return absl::OkStatus();
}

// A name no earlier file had: 64 random bits, so a file a committed manifest
// names is never overwritten by a later Save, even after a resume.
std::string NewFileName(absl::string_view suffix) {
  static std::mt19937_64 random(
      std::random_device{}() ^
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  return absl::StrCat(absl::StrFormat("filter-%016x", random()), suffix);
}

// A file just written: what a manifest records, and its bytes before zstd.
struct NewFile {
  FilterFile file;
  uint64_t raw_bytes = 0;
};

// Writes a new file in `dir` through `write` (temporary name, fsync, rename),
// as one zstd frame if `compress`.
absl::StatusOr<NewFile> WriteNewFile(const fs::path& dir, absl::string_view suffix, bool compress,
                                     absl::FunctionRef<absl::Status(std::ostream&)> write) {
  FilterFile file;
  file.name = NewFileName(suffix);
  const fs::path path = dir / file.name;
  const fs::path temporary = dir / (file.name + std::string(kTempSuffix));
  Fd fd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) return ErrnoError("cannot create", temporary);
  HashingWriteBuf buffer(fd.get());
  std::optional<ZstdWriteBuf> zstd;
  if (compress) zstd.emplace(&buffer, kFilterZstdLevel);
  std::ostream out(compress ? static_cast<std::streambuf*>(&*zstd) : &buffer);
  absl::Status written = write(out);
  const bool compressed = written.ok() && out && (!compress || zstd->Finish());
  buffer.pubsync();
  if (written.ok() && (!compressed || buffer.failed())) {
    written =
        buffer.failed()
            ? ErrnoError("cannot write", temporary)
            : absl::InternalError(absl::StrCat("cannot compress ", temporary.string(), " (zstd)"));
  }
  if (written.ok() && ::fsync(fd.get()) != 0) written = ErrnoError("cannot fsync", temporary);
  if (written.ok() && !fd.Close()) written = ErrnoError("cannot close", temporary);
  if (written.ok() && std::rename(temporary.c_str(), path.c_str()) != 0) {
    written = ErrnoError("cannot rename to", path);
  }
  if (!written.ok()) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    return written;
  }
  file.bytes = buffer.bytes();
  file.checksum = buffer.digest();
  return NewFile{file, compress ? zstd->raw_bytes() : file.bytes};
}

// Makes `dir`/name the chain's file `file` (from chain_dir): a hard link, or a
// copy (temporary, fsync, rename) across file systems.
absl::Status PlaceFile(const fs::path& chain_dir, const FilterFile& file, const fs::path& dir) {
  const fs::path source = chain_dir / file.name;
  const fs::path target = dir / file.name;
  std::error_code error;
  if (fs::file_size(source, error) != file.bytes || error) {
    return absl::NotFoundError(
        absl::StrCat("filter file ", source.string(), " is gone or changed"));
  }
  if (fs::exists(target, error)) {
    if (fs::file_size(target, error) == file.bytes && !error) return absl::OkStatus();
    fs::remove(target, error);
  }
  if (::link(source.c_str(), target.c_str()) == 0) return absl::OkStatus();
  if (errno != EXDEV) return ErrnoError("cannot link to", target);
  const fs::path temporary = dir / (file.name + std::string(kTempSuffix));
  fs::copy_file(source, temporary, fs::copy_options::overwrite_existing, error);
  if (error)
    return absl::InternalError(
        absl::StrCat("cannot copy ", source.string(), ": ", error.message()));
  if (absl::Status s = FsyncPath(temporary, O_RDONLY); !s.ok()) return s;
  if (std::rename(temporary.c_str(), target.c_str()) != 0)
    return ErrnoError("cannot rename to", target);
  return absl::OkStatus();
}

absl::Status PlaceChain(const FilterChain& chain, const fs::path& dir) {
  for (const FilterFile& file : chain.files()) {
    if (absl::Status s = PlaceFile(chain.dir(), file, dir); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// A full image of the filter: bloom's Save format, header and trailer included.
uint64_t BaseBytes(bloom::BloomFilter& fixed) { return 64 + fixed.MemoryBytes() + 8; }
uint64_t BaseBytes(SeenFilter& filter) {
  return filter.fixed() != nullptr ? BaseBytes(*filter.fixed()) : filter.scalable()->ImageBytes();
}

bool Tracked(SeenFilter& filter) {
  return filter.fixed() != nullptr ? filter.fixed()->DirtyTrackingEnabled()
                                   : filter.scalable()->DirtyTrackingEnabled();
}

// Bytes of the delta a Save would write now.
uint64_t DeltaBytesNow(SeenFilter& filter) {
  return filter.fixed() != nullptr
             ? bloom::BloomFilter::DeltaBytes(filter.fixed()->DirtyBlockCount())
             : filter.scalable()->DeltaBytes();
}

// True if this Save may write a delta: the filter tracks its blocks, the chain
// (or an empty filter) is a starting point, and the chain's deltas stay under
// 1.25x a base (the amortized bound of docs/bloom.md needs 1.25 >= 1.0625 /
// (2 - 1.0625) = 1.13). Both policies: a growing filter's delta holds each
// stage's changed blocks.
bool DeltaFits(SeenFilter& filter, const FilterChain& chain, uint64_t chain_delta_bytes) {
  if (!Tracked(filter)) return false;
  if (chain.empty() && !filter.tracked_from_empty()) return false;
  return chain_delta_bytes + DeltaBytesNow(filter) <= BaseBytes(filter) / 4 * 5;
}

absl::Status SaveDelta(SeenFilter& filter, std::ostream& out) {
  return filter.fixed() != nullptr ? filter.fixed()->SaveDirtyBlocks(out).status()
                                   : filter.scalable()->SaveDirtyBlocks(out).status();
}

void ClearDirty(SeenFilter& filter) {
  if (filter.fixed() != nullptr) filter.fixed()->ClearDirtyBlocks();
  if (filter.scalable() != nullptr) filter.scalable()->ClearDirtyBlocks();
}

}  // namespace

absl::StatusOr<FilterFiles> SaveFilterCheckpoint(SeenFilter& filter, const fs::path& dir,
                                                 FilterChain& chain) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot create checkpoint directory ", dir.string(), ": ", error.message()));
  }
  // A chain whose files cannot be placed in `dir` (deleted, or another
  // directory's files gone) restarts with a base: correct whatever the bits.
  bool delta = DeltaFits(filter, chain, chain.delta_bytes_) && PlaceChain(chain, dir).ok();
  FilterChain next;
  if (delta) next = chain;
  // Deltas in zstd (mostly zero bits: ~4x smaller at ~150 MB/s), bases as
  // they are: zstd would take ~10 s of the checkpoint's lock hold for a
  // 1.45 GB filter at 6% fill, to save ~60% of a file written once per ~30
  // deltas (docs/scale.md).
  absl::StatusOr<NewFile> file =
      delta ? WriteNewFile(dir, kDeltaSuffix, true,
                           [&](std::ostream& out) { return SaveDelta(filter, out); })
            : WriteNewFile(dir, kBaseSuffix, false,
                           [&](std::ostream& out) { return filter.Save(out); });
  if (!file.ok()) return file.status();
  if (absl::Status s = FsyncPath(dir, O_RDONLY | O_DIRECTORY); !s.ok()) return s;
  // The new file is durable: its blocks may leave the dirty set. No insert
  // ran since SaveDirtyBlocks (the caller's rule), so none is lost.
  ClearDirty(filter);
  filter.set_tracked_from_empty(false);  // the chain now starts from a file
  next.dir_ = dir;
  next.files_.push_back(file->file);
  // The bound on the chain is on the formats' bytes, before zstd: it bounds
  // the work of a load and of the writes, which zstd only makes smaller.
  next.delta_bytes_ = delta ? next.delta_bytes_ + file->raw_bytes : 0;
  chain = std::move(next);
  return FilterFiles{chain.files_, file->file.bytes, file->raw_bytes};
}

namespace {

// Reads the first 8 bytes without moving the descriptor.
std::string Head(int fd) {
  char bytes[8] = {};
  if (::pread(fd, bytes, sizeof(bytes), 0) != static_cast<ssize_t>(sizeof(bytes))) return "";
  return std::string(bytes, sizeof(bytes));
}

// Opens `file` in `dir`, checks its size, hands its content (decompressed:
// files of builds before zstd are read as they are) and the format's magic
// to `parse`, then checks that all of it was read and its checksum. Adds the
// content's bytes to `*raw_bytes`.
absl::Status ReadFile(
    const fs::path& dir, const FilterFile& file,
    absl::FunctionRef<absl::Status(const std::string& magic, std::istream&)> parse,
    uint64_t* raw_bytes) {
  const fs::path path = dir / file.name;
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    return absl::NotFoundError(
        absl::StrCat("cannot open filter file ", path.string(), ": ", std::strerror(errno)));
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0 || static_cast<uint64_t>(info.st_size) != file.bytes) {
    return absl::DataLossError(absl::StrCat("filter file ", path.string(), " is ", info.st_size,
                                            " bytes, the checkpoint says ", file.bytes));
  }
  HashingReader buffer(fd.get());
  const std::string head = Head(fd.get());
  std::optional<ZstdReadBuf> zstd;
  if (IsZstdFrame(head)) zstd.emplace(&buffer);
  std::istream in(zstd.has_value() ? static_cast<std::streambuf*>(&*zstd) : &buffer);
  const std::string magic = zstd.has_value() ? zstd->Peek(8) : head;
  if (absl::Status s = parse(magic, in); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(path.string(), ": ", s.message()));
  }
  if (in.rdbuf()->sgetc() != std::char_traits<char>::eof() || buffer.failed() ||
      (zstd.has_value() && zstd->failed()) || buffer.bytes() != file.bytes ||
      buffer.digest() != file.checksum) {
    return absl::DataLossError(
        absl::StrCat("filter file ", path.string(), " does not match its checksum"));
  }
  *raw_bytes += zstd.has_value() ? zstd->raw_bytes() : buffer.bytes();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SeenFilter> LoadFilterCheckpoint(OverflowPolicy policy, const fs::path& dir,
                                                const FilterFiles& files, FilterChain* chain) {
  if (files.files.empty()) return absl::DataLossError("the checkpoint lists no filter file");
  std::optional<bloom::BloomFilter> fixed;
  std::optional<bloom::ScalableBloomFilter> scalable;
  uint64_t first_bytes = 0;
  absl::Status first = ReadFile(
      dir, files.files[0],
      [&](const std::string& magic, std::istream& in) -> absl::Status {
        const bool grow = policy == OverflowPolicy::kGrow;
        if (grow && (magic == "CRAWLSBF" || magic == "CRAWLSBD")) {
          absl::StatusOr<bloom::ScalableBloomFilter> loaded =
              magic == "CRAWLSBF" ? bloom::ScalableBloomFilter::Load(in)
                                  : bloom::ScalableBloomFilter::LoadDelta(in);
          if (!loaded.ok()) return loaded.status();
          scalable.emplace(*std::move(loaded));
          return absl::OkStatus();
        }
        if (!grow && (magic == "CRAWLBLM" || magic == "CRAWLBLD")) {
          absl::StatusOr<bloom::BloomFilter> loaded = magic == "CRAWLBLM"
                                                          ? bloom::BloomFilter::Load(in)
                                                          : bloom::BloomFilter::LoadDelta(in);
          if (!loaded.ok()) return loaded.status();
          fixed.emplace(*std::move(loaded));
          return absl::OkStatus();
        }
        return absl::DataLossError("not a filter image of the checkpoint's overflow policy");
      },
      &first_bytes);
  if (!first.ok()) return first;
  uint64_t delta_bytes = absl::EndsWith(files.files[0].name, kDeltaSuffix) ? first_bytes : 0;
  for (size_t i = 1; i < files.files.size(); ++i) {
    absl::Status s = ReadFile(
        dir, files.files[i],
        [&](const std::string&, std::istream& in) {
          return scalable.has_value() ? scalable->ApplyDelta(in) : fixed->ApplyBlocks(in);
        },
        &delta_bytes);
    if (!s.ok()) return s;
  }
  SeenFilter seen = scalable.has_value() ? SeenFilter::FromScalable(*std::move(scalable))
                                         : SeenFilter::FromFixed(*std::move(fixed), false);
  if (seen.fixed() != nullptr) seen.fixed()->EnableDirtyTracking();
  if (seen.scalable() != nullptr) seen.scalable()->EnableDirtyTracking();
  if (chain != nullptr) {
    chain->dir_ = dir;
    chain->files_ = files.files;
    chain->base_bytes_ = BaseBytes(seen);
    chain->delta_bytes_ = delta_bytes;
  }
  return seen;
}

absl::Status RemoveUnreferencedFilterFiles(const fs::path& dir, const FilterFiles& keep) {
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    const bool ours = absl::StartsWith(name, "filter-") &&
                      (absl::EndsWith(name, kBaseSuffix) || absl::EndsWith(name, kDeltaSuffix) ||
                       absl::EndsWith(name, kTempSuffix));
    if (!ours) continue;
    bool kept = false;
    for (const FilterFile& file : keep.files) kept = kept || file.name == name;
    if (!kept) fs::remove(entry.path(), error);
    if (error) {
      return absl::InternalError(
          absl::StrCat("cannot remove ", entry.path().string(), ": ", error.message()));
    }
  }
  if (error) {
    return absl::InternalError(absl::StrCat("cannot list ", dir.string(), ": ", error.message()));
  }
  return absl::OkStatus();
}

}  // namespace sieve::internal
