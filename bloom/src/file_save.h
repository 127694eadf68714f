// Saving a filter to a file so that a crash at any moment leaves either the
// previous file or the new one, never a torn mix; and opening one to load.
#ifndef BLOOM_SRC_FILE_SAVE_H_
#define BLOOM_SRC_FILE_SAVE_H_

#include <fstream>
#include <functional>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace bloom::file_save {

// Streams `save` into `path`.tmp, fsyncs it, renames it over `path` and
// fsyncs the folder: without the fsyncs a crash could persist the rename
// before the data.
absl::Status SaveAtomically(const std::string& path,
                            const std::function<absl::Status(std::ostream&)>& save);

// Opens `path` and hands the stream to `load` (T's Load).
template <typename T, typename LoadFn>
absl::StatusOr<T> LoadFromFile(const std::string& path, LoadFn load) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("bloom: cannot open ", path));
  return load(in);
}

}  // namespace bloom::file_save

#endif  // BLOOM_SRC_FILE_SAVE_H_
