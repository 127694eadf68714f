// UrlBuilder: the file scheme's states, with their Windows drive-letter
// quirks.
#include "url/host.h"
#include "url/url_builder.h"
#include "url/url_grammar.h"

namespace crawler {

using url_internal::AppendParsedHost;
using url_internal::IsFileHostDelimiter;
using url_internal::IsNormalizedWindowsDriveLetter;
using url_internal::IsWindowsDriveLetter;
using url_internal::StartsWithWindowsDriveLetter;

bool UrlBuilder::FileState() {
  url_.has_host_ = true;  // file URLs always have a host, maybe empty
  if (c() == '/' || c() == '\\') {
    ++pos_;
    return FileSlashState();
  }
  if (BaseIsFile()) {
    CopyBaseAuthority();
    CopyBasePath();
    return AfterCopiedPath();
  }
  AppendEmptyFileHost();
  return PathState();
}

void UrlBuilder::AppendEmptyFileHost() {
  out_.append("//");
  url_.host_start_ = url_.host_end_ = url_.authority_end_ = url_.path_start_ =
      static_cast<uint32_t>(out_.size());
}

bool UrlBuilder::FileSlashState() {
  if (c() == '/' || c() == '\\') {
    ++pos_;
    return FileHostState();
  }
  if (!BaseIsFile()) {
    AppendEmptyFileHost();
    return PathState();
  }
  CopyBaseAuthority();
  const std::string_view base_path = base_->path();
  if (!StartsWithWindowsDriveLetter(Remaining()) && base_path.size() >= 3 &&
      IsNormalizedWindowsDriveLetter(base_path.substr(1, 2)) &&
      (base_path.size() == 3 || base_path[3] == '/')) {
    out_.append(base_path.substr(0, 3));
  }
  return PathState();
}

bool UrlBuilder::FileHostState() {
  size_t end = pos_;
  while (end < input_.size() && !IsFileHostDelimiter(input_[end])) ++end;
  const std::string_view host = input_.substr(pos_, end - pos_);
  if (IsWindowsDriveLetter(host)) {
    // The Standard's drive-letter quirk: "file://C:/x" is a path, not a host.
    AppendEmptyFileHost();
    return PathState();
  }
  out_.append("//");
  url_.host_start_ = static_cast<uint32_t>(out_.size());
  if (!host.empty()) {
    if (const char* why = AppendParsedHost(host, /*is_special=*/true, out_)) return Fail(why);
    if (std::string_view(out_).substr(url_.host_start_) == "localhost") {
      out_.resize(url_.host_start_);
    }
  }
  url_.host_end_ = url_.authority_end_ = static_cast<uint32_t>(out_.size());
  pos_ = end;
  return PathStartState();
}

}  // namespace crawler
