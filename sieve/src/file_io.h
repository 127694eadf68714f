// Checksummed, crash-safe files: the building block of checkpoints and spill
// segments.
//
// A checksummed file is its body followed by an 8-byte little-endian XXH3-64 of
// the body. WriteFileAtomically writes it under a temporary name, fsyncs it,
// renames it over `path` and fsyncs the directory, so that after a crash at any
// point `path` holds either the previous file or the new one, whole.
// ReadChecksummedFile verifies the checksum over the whole body *before* handing
// the body to the parser, so a truncated or corrupted file is rejected with a
// clear error and the parser never sees garbage.
//
//   absl::Status s = WriteFileAtomically(dir / "x.ckpt", [&](std::ostream& out) {
//     WriteU64(out, 42);
//     return absl::OkStatus();
//   });
//   s = ReadChecksummedFile(dir / "x.ckpt", [&](BodyReader& in) { return in.ReadU64(v); });
//
// Threading: free functions with no shared state.
#ifndef SIEVE_SRC_FILE_IO_H_
#define SIEVE_SRC_FILE_IO_H_

#include <cstdint>
#include <filesystem>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sieve::internal {

// Little-endian fixed-width encoders for streamed bodies.
void WriteU32(std::ostream& out, uint32_t value);
void WriteU64(std::ostream& out, uint64_t value);
void WriteF64(std::ostream& out, double value);

// Sequential reader over a verified body: an std::istream (for parsers such as
// the Bloom filter's Load) plus bounds-checked primitive reads.
class BodyReader {
 public:
  BodyReader(std::istream& in, uint64_t body_size) : in_(in), body_size_(body_size) {}

  std::istream& stream() { return in_; }
  // Bytes of the body not yet consumed.
  uint64_t Remaining();

  absl::Status ReadU32(uint32_t& value);
  absl::Status ReadU64(uint64_t& value);
  absl::Status ReadF64(double& value);
  // Reads `size` bytes; fails if fewer remain (so a corrupt length cannot make
  // us allocate more than the file holds).
  absl::Status ReadBytes(uint64_t size, std::string& out);

 private:
  std::istream& in_;
  uint64_t body_size_;
};

// `fsync_dir` false leaves the directory's fsync to the caller (who then does
// it once for many files).
absl::Status WriteFileAtomically(const std::filesystem::path& path,
                                 absl::FunctionRef<absl::Status(std::ostream&)> write_body,
                                 bool fsync_dir = true);

// Verifies the checksum, then calls parse_body; fails unless parse_body succeeds
// and consumes the whole body.
absl::Status ReadChecksummedFile(const std::filesystem::path& path,
                                 absl::FunctionRef<absl::Status(BodyReader&)> parse_body);

// Writes `bytes` to the file at `path` (no rename: for files no reader sees
// before the writer says so, such as spill files), fsynced if asked; on error
// removes the file. Errors name the file and errno (ResourceExhausted for a
// full disk or a file-size limit, Internal otherwise), as do the others here.
absl::Status WriteWholeFile(const std::filesystem::path& path, std::string_view bytes,
                            bool fsync = false);
// Writes `bytes` under a temporary name, fsyncs it and renames it to `path`:
// `path` is either absent or whole, never partial. The directory is not
// fsynced (the caller does it once for many files).
absl::Status WriteFileDurably(const std::filesystem::path& path, std::string_view bytes);
// Hard-links `from` as `to`; where link(2) fails with EXDEV (`to` on another
// file system) copies instead (WriteFileDurably). Returns whether it copied.
// Fails if `to` exists.
absl::StatusOr<bool> LinkOrCopy(const std::filesystem::path& from, const std::filesystem::path& to);
absl::Status FsyncFile(const std::filesystem::path& path);
absl::Status FsyncDirectory(const std::filesystem::path& dir);
// syncfs(2): makes every file on the file system holding `path` durable.
absl::Status SyncFileSystemOf(const std::filesystem::path& path);
absl::Status ReadWholeFile(const std::filesystem::path& path, std::string& out);

uint64_t Checksum(std::string_view data);

}  // namespace sieve::internal

#endif  // SIEVE_SRC_FILE_IO_H_
