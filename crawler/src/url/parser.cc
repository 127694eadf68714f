// The WHATWG basic URL parser (URL Standard section 4.4), without state
// override (the crawler never uses the setters).
//
// The Standard builds a URL record (scheme, username, ..., a list of path
// segments) and serializes it at the end. Its states consume the input in
// the order of the serialization, so this parser writes the serialization
// directly into the result string: one buffer, no per-component strings, and
// "shorten the path" is a truncation back to the last '/'. Each state of the
// Standard is a method named after it; where a state only scans ahead (the
// authority and host states buffer text until a delimiter), the method
// finds the delimiter first and works on the span.
#include "absl/status/status.h"
#include "crawler/url.h"
#include "url/host.h"
#include "url/percent_encode.h"
#include "url/scheme.h"

namespace crawler {

using url_internal::AppendEncoded;
using url_internal::AppendParsedHost;
using url_internal::ClassifyScheme;
using url_internal::DefaultPort;
using url_internal::EncodeSet;
using url_internal::IsSpecial;
using url_internal::SchemeType;

namespace {

constexpr int kEof = -1;

inline bool IsAsciiAlpha(char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
inline bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsSchemeChar(char c) {
  return IsAsciiAlpha(c) || IsAsciiDigit(c) || c == '+' || c == '-' || c == '.';
}
inline char ToLowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c | 0x20) : c; }
inline bool IsFileHostDelimiter(char c) { return c == '/' || c == '\\' || c == '?' || c == '#'; }
inline bool IsTabOrNewline(char c) { return c == '\t' || c == '\n' || c == '\r'; }

// "%2e" in any case.
inline bool IsEncodedDot(std::string_view s) {
  return s.size() == 3 && s[0] == '%' && s[1] == '2' && (s[2] | 0x20) == 'e';
}
bool IsSingleDotSegment(std::string_view s) { return s == "." || IsEncodedDot(s); }
bool IsDoubleDotSegment(std::string_view s) {
  switch (s.size()) {
    case 2:
      return s == "..";
    case 4:
      return (s[0] == '.' && IsEncodedDot(s.substr(1))) ||
             (s[3] == '.' && IsEncodedDot(s.substr(0, 3)));
    case 6:
      return IsEncodedDot(s.substr(0, 3)) && IsEncodedDot(s.substr(3));
    default:
      return false;
  }
}

// "C:" or "C|".
inline bool IsWindowsDriveLetter(std::string_view s) {
  return s.size() == 2 && IsAsciiAlpha(s[0]) && (s[1] == ':' || s[1] == '|');
}
inline bool IsNormalizedWindowsDriveLetter(std::string_view s) {
  return s.size() == 2 && IsAsciiAlpha(s[0]) && s[1] == ':';
}
bool StartsWithWindowsDriveLetter(std::string_view s) {
  if (s.size() < 2 || !IsWindowsDriveLetter(s.substr(0, 2))) return false;
  if (s.size() == 2) return true;
  const char c = s[2];
  return c == '/' || c == '\\' || c == '?' || c == '#';
}

// Leading and trailing C0 controls and spaces go; tabs and newlines anywhere
// go. The copy is made only when the input has a tab or newline inside.
std::string_view CleanInput(std::string_view input, std::string& scratch) {
  while (!input.empty() && static_cast<unsigned char>(input.front()) <= 0x20) {
    input.remove_prefix(1);
  }
  while (!input.empty() && static_cast<unsigned char>(input.back()) <= 0x20) {
    input.remove_suffix(1);
  }
  bool has_tab_or_newline = false;
  for (char c : input) has_tab_or_newline |= IsTabOrNewline(c);
  if (!has_tab_or_newline) return input;
  scratch.reserve(input.size());
  for (char c : input) {
    if (!IsTabOrNewline(c)) scratch.push_back(c);
  }
  return scratch;
}

}  // namespace

class UrlBuilder {
 public:
  UrlBuilder(std::string_view input, const Url* base)
      : input_(input), base_(base), out_(url_.href_) {}

  absl::StatusOr<Url> Build() {
    out_.reserve(input_.size() + (base_ != nullptr ? base_->href_.size() : 0) + 8);
    if (!SchemeStartState()) return absl::InvalidArgumentError(error_);
    Finish();
    return std::move(url_);
  }

 private:
  // The code point at the pointer, or kEof.
  int c() const { return pos_ < input_.size() ? static_cast<unsigned char>(input_[pos_]) : kEof; }
  int At(size_t i) const {
    return i < input_.size() ? static_cast<unsigned char>(input_[i]) : kEof;
  }
  std::string_view Remaining() const { return input_.substr(pos_); }
  bool special() const { return IsSpecial(type_); }
  bool IsSlash(int ch) const { return ch == '/' || (ch == '\\' && special()); }
  bool BaseIsFile() const {
    return base_ != nullptr && ClassifyScheme(base_->scheme()) == SchemeType::kFile;
  }
  bool Fail(const char* why) {
    error_ = why;
    return false;
  }

  bool SchemeStartState() {
    size_t end = 0;
    if (!input_.empty() && IsAsciiAlpha(input_[0])) {
      while (end < input_.size() && IsSchemeChar(input_[end])) ++end;
    }
    if (end == 0 || end == input_.size() || input_[end] != ':') return NoSchemeState();
    for (size_t i = 0; i < end; ++i) out_.push_back(ToLowerAscii(input_[i]));
    SetScheme(end);
    pos_ = end + 1;
    if (type_ == SchemeType::kFile) return FileState();
    if (special()) {
      if (base_ != nullptr && base_->scheme() == url_.scheme()) {
        // Special relative or authority state.
        if (c() == '/' && At(pos_ + 1) == '/') {
          pos_ += 2;
          return SpecialAuthorityIgnoreSlashesState();
        }
        return RelativeState();
      }
      return SpecialAuthorityIgnoreSlashesState();  // after the slashes state
    }
    if (c() == '/') {
      ++pos_;
      // Path or authority state.
      if (c() == '/') {
        ++pos_;
        return AuthorityState();
      }
      StartPath();
      return PathState();
    }
    return OpaquePathState();
  }

  void SetScheme(size_t length) {
    url_.scheme_end_ = static_cast<uint32_t>(length);
    out_.push_back(':');
    type_ = ClassifyScheme(url_.scheme());
    url_.host_start_ = url_.host_end_ = url_.authority_end_ = url_.path_start_ =
        static_cast<uint32_t>(out_.size());
  }

  bool NoSchemeState() {
    if (base_ == nullptr) return Fail("relative URL without a base");
    if (base_->opaque_path_) {
      if (c() != '#') return Fail("relative URL against a base with an opaque path");
      const Url& base = *base_;
      const uint32_t end =
          base.has_fragment() ? base.fragment_start_ : static_cast<uint32_t>(base.href_.size());
      out_.assign(base.href_, 0, end);
      url_.scheme_end_ = base.scheme_end_;
      url_.host_start_ = base.host_start_;
      url_.host_end_ = base.host_end_;
      url_.authority_end_ = base.authority_end_;
      url_.path_start_ = base.path_start_;
      url_.query_start_ = base.query_start_;
      url_.opaque_path_ = true;
      type_ = ClassifyScheme(url_.scheme());
      ++pos_;
      return FragmentState();
    }
    out_.append(base_->scheme());
    SetScheme(base_->scheme().size());
    if (type_ == SchemeType::kFile) return FileState();
    return RelativeState();
  }

  // Copies the base's "//userinfo@host:port" (if any). The scheme is the
  // base's, so every offset stays where it is in the base.
  void CopyBaseAuthority() {
    const Url& base = *base_;
    out_.append(base.href_, base.scheme_end_ + 1, base.authority_end_ - base.scheme_end_ - 1);
    url_.host_start_ = base.host_start_;
    url_.host_end_ = base.host_end_;
    url_.authority_end_ = base.authority_end_;
    url_.has_host_ = base.has_host_;
    url_.port_ = base.port_;
    url_.path_start_ = static_cast<uint32_t>(out_.size());
  }
  void CopyBasePath() { out_.append(base_->path()); }
  void CopyBaseQuery() {
    if (!base_->has_query()) return;
    url_.query_start_ = static_cast<uint32_t>(out_.size());
    out_.push_back('?');
    out_.append(base_->query());
  }

  bool RelativeState() {
    if (IsSlash(c())) {
      ++pos_;
      // Relative slash state.
      if (IsSlash(c())) {
        ++pos_;
        return SpecialOrPlainAuthority();
      }
      CopyBaseAuthority();
      return PathState();
    }
    CopyBaseAuthority();
    CopyBasePath();
    return AfterCopiedPath();
  }

  // Relative slash state after "//": special URLs skip any further slashes.
  bool SpecialOrPlainAuthority() {
    if (special()) return SpecialAuthorityIgnoreSlashesState();
    return AuthorityState();
  }

  // The tail of the relative and file states once the base's path is in place.
  bool AfterCopiedPath() {
    const int ch = c();
    if (ch == '?') {
      ++pos_;
      return QueryState();
    }
    if (ch == '#') {
      CopyBaseQuery();
      ++pos_;
      return FragmentState();
    }
    if (ch == kEof) {
      CopyBaseQuery();
      return true;
    }
    if (type_ == SchemeType::kFile && StartsWithWindowsDriveLetter(Remaining())) {
      out_.resize(url_.path_start_);
    } else {
      ShortenPath();
    }
    return PathState();
  }

  bool SpecialAuthorityIgnoreSlashesState() {
    while (c() == '/' || c() == '\\') ++pos_;
    return AuthorityState();
  }

  // Authority and host states: the authority runs to the first path, query
  // or fragment delimiter; userinfo is everything before its last '@'.
  bool AuthorityState() {
    size_t end = pos_;
    while (end < input_.size() && !IsAuthorityDelimiter(input_[end])) ++end;
    const std::string_view authority = input_.substr(pos_, end - pos_);
    out_.append("//");
    url_.has_host_ = true;
    const size_t at = authority.rfind('@');
    if (at != std::string_view::npos) {
      AppendUserinfo(authority.substr(0, at));
      pos_ += at + 1;
      if (pos_ == end) return Fail("missing host after '@'");
    }
    return HostState(end);
  }

  bool IsAuthorityDelimiter(char ch) const {
    return ch == '/' || ch == '?' || ch == '#' || (ch == '\\' && special());
  }

  void AppendUserinfo(std::string_view userinfo) {
    const size_t colon = userinfo.find(':');
    const size_t before = out_.size();
    AppendEncoded(userinfo.substr(0, colon), EncodeSet::kUserinfo, out_);
    if (colon != std::string_view::npos && colon + 1 < userinfo.size()) {
      out_.push_back(':');
      AppendEncoded(userinfo.substr(colon + 1), EncodeSet::kUserinfo, out_);
    }
    if (out_.size() > before) out_.push_back('@');
  }

  bool HostState(size_t end) {
    size_t colon = std::string_view::npos;
    bool inside_brackets = false;
    for (size_t i = pos_; i < end; ++i) {
      const char ch = input_[i];
      if (ch == '[') inside_brackets = true;
      if (ch == ']') inside_brackets = false;
      if (ch == ':' && !inside_brackets) {
        colon = i;
        break;
      }
    }
    const size_t host_end = colon == std::string_view::npos ? end : colon;
    const std::string_view host = input_.substr(pos_, host_end - pos_);
    if (host.empty() && (special() || colon != std::string_view::npos)) {
      return Fail("missing host");
    }
    url_.host_start_ = static_cast<uint32_t>(out_.size());
    if (!host.empty()) {
      if (const char* why = AppendParsedHost(host, special(), out_)) return Fail(why);
    }
    url_.host_end_ = static_cast<uint32_t>(out_.size());
    if (colon != std::string_view::npos && !PortState(input_.substr(colon + 1, end - colon - 1))) {
      return false;
    }
    url_.authority_end_ = static_cast<uint32_t>(out_.size());
    pos_ = end;
    return PathStartState();
  }

  bool PortState(std::string_view digits) {
    if (digits.empty()) return true;
    uint32_t port = 0;
    for (char ch : digits) {
      if (!IsAsciiDigit(ch)) return Fail("invalid port");
      port = port * 10 + (ch - '0');
      if (port > 65535) return Fail("port out of range");
    }
    if (static_cast<int>(port) == DefaultPort(type_)) return true;
    url_.port_ = static_cast<int>(port);
    out_.push_back(':');
    char text[8];
    int n = 0;
    do {
      text[n++] = static_cast<char>('0' + port % 10);
      port /= 10;
    } while (port != 0);
    while (n > 0) out_.push_back(text[--n]);
    return true;
  }

  bool FileState() {
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

  void AppendEmptyFileHost() {
    out_.append("//");
    url_.host_start_ = url_.host_end_ = url_.authority_end_ = url_.path_start_ =
        static_cast<uint32_t>(out_.size());
  }

  bool FileSlashState() {
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

  bool FileHostState() {
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

  void StartPath() { url_.path_start_ = static_cast<uint32_t>(out_.size()); }

  bool PathStartState() {
    StartPath();
    const int ch = c();
    if (special()) {
      if (ch == '/' || ch == '\\') ++pos_;
      return PathState();
    }
    if (ch == '?') {
      ++pos_;
      return QueryState();
    }
    if (ch == '#') {
      ++pos_;
      return FragmentState();
    }
    if (ch == kEof) return true;
    if (ch == '/') ++pos_;
    return PathState();
  }

  // Removes the last path segment, except a lone drive letter of a file URL.
  void ShortenPath() {
    const std::string_view path = std::string_view(out_).substr(url_.path_start_);
    if (type_ == SchemeType::kFile && path.size() == 3 &&
        IsNormalizedWindowsDriveLetter(path.substr(1))) {
      return;
    }
    const size_t slash = path.rfind('/');
    if (slash != std::string_view::npos) out_.resize(url_.path_start_ + slash);
  }

  // Each segment is written as "/" + its percent-encoded bytes and then
  // checked: "." and ".." (also as %2e) are taken out again.
  bool PathState() {
    out_.push_back('/');
    while (true) {
      const size_t segment_start = out_.size();
      size_t end = pos_;
      while (end < input_.size() && !IsPathDelimiter(input_[end])) ++end;
      AppendEncoded(input_.substr(pos_, end - pos_), EncodeSet::kPath, out_);
      pos_ = end;
      const bool slash = IsSlash(c());
      const std::string_view segment = std::string_view(out_).substr(segment_start);
      if (IsDoubleDotSegment(segment)) {
        out_.resize(segment_start - 1);
        ShortenPath();
        if (!slash) out_.push_back('/');
      } else if (IsSingleDotSegment(segment)) {
        out_.resize(segment_start - 1);
        if (!slash) out_.push_back('/');
      } else if (type_ == SchemeType::kFile && segment_start - 1 == url_.path_start_ &&
                 IsWindowsDriveLetter(segment)) {
        out_[segment_start + 1] = ':';
      }
      if (!slash) break;
      ++pos_;
      out_.push_back('/');
    }
    if (c() == '?') {
      ++pos_;
      return QueryState();
    }
    if (c() == '#') {
      ++pos_;
      return FragmentState();
    }
    return true;
  }

  bool IsPathDelimiter(char ch) const {
    return ch == '/' || ch == '?' || ch == '#' || (ch == '\\' && special());
  }

  bool OpaquePathState() {
    url_.opaque_path_ = true;
    StartPath();
    size_t end = pos_;
    while (end < input_.size() && input_[end] != '?' && input_[end] != '#') ++end;
    const std::string_view path = input_.substr(pos_, end - pos_);
    AppendEncoded(path, EncodeSet::kC0Control, out_);
    // A trailing space before '?' or '#' is escaped so that it survives
    // (the Standard strips trailing spaces only at the very end of input).
    if (end < input_.size() && !path.empty() && path.back() == ' ') {
      out_.pop_back();
      out_.append("%20");
    }
    pos_ = end;
    if (c() == '?') {
      ++pos_;
      return QueryState();
    }
    if (c() == '#') {
      ++pos_;
      return FragmentState();
    }
    return true;
  }

  bool QueryState() {
    url_.query_start_ = static_cast<uint32_t>(out_.size());
    out_.push_back('?');
    const size_t hash = input_.find('#', pos_);
    const size_t end = hash == std::string_view::npos ? input_.size() : hash;
    AppendEncoded(input_.substr(pos_, end - pos_),
                  special() ? EncodeSet::kSpecialQuery : EncodeSet::kQuery, out_);
    if (hash == std::string_view::npos) return true;
    pos_ = hash + 1;
    return FragmentState();
  }

  bool FragmentState() {
    url_.fragment_start_ = static_cast<uint32_t>(out_.size());
    out_.push_back('#');
    AppendEncoded(Remaining(), EncodeSet::kFragment, out_);
    pos_ = input_.size();
    return true;
  }

  // A host-less URL whose path starts with an empty segment would read back
  // as an authority ("//x"), so the Standard writes "/." in front of it.
  void Finish() {
    if (url_.has_host_ || url_.opaque_path_) return;
    const std::string_view path = url_.path();
    if (path.size() < 2 || path[0] != '/' || path[1] != '/') return;
    out_.insert(url_.path_start_, "/.");
    url_.path_start_ += 2;
    if (url_.query_start_ != Url::kNone) url_.query_start_ += 2;
    if (url_.fragment_start_ != Url::kNone) url_.fragment_start_ += 2;
  }

  const std::string_view input_;
  const Url* const base_;
  Url url_;
  std::string& out_;  // url_.href_
  size_t pos_ = 0;    // the Standard's pointer
  SchemeType type_ = SchemeType::kOther;
  const char* error_ = "";
};

absl::StatusOr<Url> Url::Parse(std::string_view input, const Url* base) {
  std::string scratch;
  const std::string_view cleaned = CleanInput(input, scratch);
  if (cleaned.size() >= UINT32_MAX / 4) return absl::InvalidArgumentError("URL too long");
  return UrlBuilder(cleaned, base).Build();
}

}  // namespace crawler
