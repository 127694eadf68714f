// Reading a whole small text file (config, seeds) with an error that names it.
// Threading: pure function, safe from any thread.
#ifndef CRAWLER_SRC_CONFIG_READ_FILE_H_
#define CRAWLER_SRC_CONFIG_READ_FILE_H_

#include <string>

#include "absl/status/statusor.h"

namespace crawler::config_internal {

// The file's bytes, or InvalidArgumentError "PATH: cannot read (reason)".
absl::StatusOr<std::string> ReadWholeFile(const std::string& path);

}  // namespace crawler::config_internal

#endif  // CRAWLER_SRC_CONFIG_READ_FILE_H_
