// UrlBuilder: the WHATWG basic URL parser (URL Standard section 4.4),
// without state override (the crawler never uses the setters). Internal to
// the url room; Url::Parse is its only user.
//
// The Standard builds a URL record (scheme, username, ..., a list of path
// segments) and serializes it at the end. Its states consume the input in
// the order of the serialization, so this parser writes the serialization
// directly into the result string: one buffer, no per-component strings, and
// "shorten the path" is a truncation back to the last '/'. Each state of the
// Standard is a method named after it; where a state only scans ahead (the
// authority and host states buffer text until a delimiter), the method
// finds the delimiter first and works on the span. Each method returns
// false after Fail() on a parse failure.
//
// The states live in parser.cc (scheme, relative), authority_states.cc,
// file_states.cc and path_states.cc. One builder parses one input, on one
// thread.
#ifndef CRAWLER_SRC_URL_URL_BUILDER_H_
#define CRAWLER_SRC_URL_URL_BUILDER_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "crawler/url.h"
#include "url/scheme.h"

namespace crawler {

class UrlBuilder {
 public:
  // `input` is already cleaned (no leading/trailing C0 or space, no tab or
  // newline); `base` may be null.
  UrlBuilder(std::string_view input, const Url* base)
      : input_(input), base_(base), out_(url_.href_) {}

  absl::StatusOr<Url> Build();

 private:
  static constexpr int kEof = -1;

  // The code point at the pointer, or kEof.
  int c() const { return pos_ < input_.size() ? static_cast<unsigned char>(input_[pos_]) : kEof; }
  int At(size_t i) const {
    return i < input_.size() ? static_cast<unsigned char>(input_[i]) : kEof;
  }
  std::string_view Remaining() const { return input_.substr(pos_); }
  bool special() const { return url_internal::IsSpecial(type_); }
  bool IsSlash(int ch) const { return ch == '/' || (ch == '\\' && special()); }
  bool BaseIsFile() const {
    return base_ != nullptr &&
           url_internal::ClassifyScheme(base_->scheme()) == url_internal::SchemeType::kFile;
  }
  bool Fail(const char* why) {
    error_ = why;
    return false;
  }

  // Scheme and relative states (parser.cc).
  bool SchemeStartState();
  void SetScheme(size_t length);
  bool NoSchemeState();

  // Copies the base's "//userinfo@host:port" (if any). The scheme is the
  // base's, so every offset stays where it is in the base.
  void CopyBaseAuthority();
  void CopyBasePath() { out_.append(base_->path()); }
  void CopyBaseQuery();
  bool RelativeState();

  // Relative slash state after "//": special URLs skip any further slashes.
  bool SpecialOrPlainAuthority() {
    if (special()) return SpecialAuthorityIgnoreSlashesState();
    return AuthorityState();
  }

  // The tail of the relative and file states once the base's path is in place.
  bool AfterCopiedPath();

  bool SpecialAuthorityIgnoreSlashesState() {
    while (c() == '/' || c() == '\\') ++pos_;
    return AuthorityState();
  }

  // Authority and host states (authority_states.cc): the authority runs to the first path, query
  // or fragment delimiter; userinfo is everything before its last '@'.
  bool AuthorityState();
  bool IsAuthorityDelimiter(char ch) const {
    return ch == '/' || ch == '?' || ch == '#' || (ch == '\\' && special());
  }
  void AppendUserinfo(std::string_view userinfo);
  bool HostState(size_t end);
  bool PortState(std::string_view digits);

  // The file scheme (file_states.cc).
  bool FileState();
  void AppendEmptyFileHost();
  bool FileSlashState();
  bool FileHostState();

  // Path, opaque path, query and fragment (path_states.cc).
  void StartPath() { url_.path_start_ = static_cast<uint32_t>(out_.size()); }
  bool PathStartState();

  // Removes the last path segment, except a lone drive letter of a file URL.
  void ShortenPath();

  // Each segment is written as "/" + its percent-encoded bytes and then
  // checked: "." and ".." (also as %2e) are taken out again.
  bool PathState();
  bool IsPathDelimiter(char ch) const {
    return ch == '/' || ch == '?' || ch == '#' || (ch == '\\' && special());
  }
  bool OpaquePathState();
  bool QueryState();
  bool FragmentState();

  // A host-less URL whose path starts with an empty segment would read back
  // as an authority ("//x"), so the Standard writes "/." in front of it.
  void Finish();

  const std::string_view input_;
  const Url* const base_;
  Url url_;
  std::string& out_;  // url_.href_
  size_t pos_ = 0;    // the Standard's pointer
  url_internal::SchemeType type_ = url_internal::SchemeType::kOther;
  const char* error_ = "";
};

}  // namespace crawler

#endif  // CRAWLER_SRC_URL_URL_BUILDER_H_
