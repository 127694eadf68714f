// Durable small-file I/O for the state directory: every write is fsynced
// before it counts, because a checkpoint that only sits in the page cache
// does not survive the power cut it exists for.
#ifndef CRAWLER_STATE_STATE_FILES_H_
#define CRAWLER_STATE_STATE_FILES_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace crawler::state_internal {

// Writes `bytes` to `path` and fsyncs it. Errors name the path.
absl::Status WriteFileSynced(const std::filesystem::path& path, std::string_view bytes);

// Writes `path` atomically: `path`.tmp, fsync, rename, fsync of the folder.
absl::Status ReplaceFileAtomically(const std::filesystem::path& path, std::string_view bytes);

// fsync of a directory, so a rename or a new file in it is durable.
absl::Status SyncDirectory(const std::filesystem::path& dir);

// fsync of an existing file's data (written by someone else's FILE*).
absl::Status SyncFile(const std::filesystem::path& path);

// The whole file; NotFound when it does not exist.
absl::StatusOr<std::string> ReadWholeFile(const std::filesystem::path& path);

uint32_t Crc32(std::string_view bytes);

}  // namespace crawler::state_internal

#endif  // CRAWLER_STATE_STATE_FILES_H_
