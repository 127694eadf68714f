#include "file_save.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

namespace bloom::file_save {
namespace {

bool SyncPath(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return false;
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  return synced;
}

}  // namespace

absl::Status SaveAtomically(const std::string& path,
                            const std::function<absl::Status(std::ostream&)>& save) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) {
      return absl::NotFoundError(absl::StrCat("bloom: cannot open ", temporary, " for writing"));
    }
    if (absl::Status s = save(out); !s.ok()) return s;
    out.flush();
    if (!out) return absl::DataLossError(absl::StrCat("bloom: cannot write ", temporary));
  }
  if (!SyncPath(temporary, O_RDONLY)) {
    return absl::DataLossError(absl::StrCat("bloom: cannot fsync ", temporary));
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    return absl::DataLossError(absl::StrCat("bloom: cannot rename ", temporary, " to ", path));
  }
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  // Best effort: the data itself is already safe.
  SyncPath(folder.empty() ? std::string(".") : folder.string(), O_RDONLY | O_DIRECTORY);
  return absl::OkStatus();
}

}  // namespace bloom::file_save
