// Debian's Abseil is built with its own absl::string_view (not an alias of
// std::string_view), so the two do not convert into each other. These
// helpers bridge them for the config room's messages.
// Threading: pure functions.
#ifndef CRAWLER_SRC_CONFIG_STRINGS_H_
#define CRAWLER_SRC_CONFIG_STRINGS_H_

#include <string>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace crawler::config_internal {

inline absl::string_view Absl(std::string_view text) { return {text.data(), text.size()}; }
inline std::string_view Std(absl::string_view text) { return {text.data(), text.size()}; }

template <typename T>
decltype(auto) CatArg(const T& arg) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return Absl(arg);
  } else {
    return (arg);
  }
}

// absl::StrCat that also takes std::string_view pieces.
template <typename... Args>
std::string Cat(const Args&... args) {
  return absl::StrCat(CatArg(args)...);
}

template <typename... Args>
void Append(std::string* out, const Args&... args) {
  absl::StrAppend(out, CatArg(args)...);
}

}  // namespace crawler::config_internal

#endif  // CRAWLER_SRC_CONFIG_STRINGS_H_
