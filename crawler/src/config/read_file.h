// Reading a whole small text file (config, seeds) with an error that names it.
// Threading: pure function, safe from any thread.
#ifndef CRAWLER_SRC_CONFIG_READ_FILE_H_
#define CRAWLER_SRC_CONFIG_READ_FILE_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace crawler::config_internal {

// Caps on what a user's file may hold (without them `--seeds /dev/zero`
// read 1.5 GB before failing). A config file is a page of TOML; a seeds file
// of 256 MiB holds ~4 million URLs, beyond which a crawl is better started
// from a few seeds (or several runs) than from one file held in memory.
inline constexpr size_t kMaxConfigFileBytes = size_t{1} << 20;
inline constexpr size_t kMaxSeedsFileBytes = size_t{256} << 20;

// The file's bytes ("-": standard input's, named "stdin"), or InvalidArgumentError "PATH: cannot
// read (reason)"; `what` names the file in the error when it holds more than `max_bytes`
// ("PATH: more than 1 MiB, too large for a config file"). Stops reading
// there, so a device or a pipe that never ends is refused too.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path, size_t max_bytes,
                                          std::string_view what);

}  // namespace crawler::config_internal

#endif  // CRAWLER_SRC_CONFIG_READ_FILE_H_
