// UrlBuilder: entry, scheme and relative states, and the final touch.
// See url_builder.h for the design.
#include "absl/status/status.h"
#include "url/url_builder.h"
#include "url/url_grammar.h"

namespace crawler {

using url_internal::ClassifyScheme;
using url_internal::IsAsciiAlpha;
using url_internal::IsSchemeChar;
using url_internal::IsTabOrNewline;
using url_internal::SchemeType;
using url_internal::StartsWithWindowsDriveLetter;
using url_internal::ToLowerAscii;

namespace {

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

absl::StatusOr<Url> UrlBuilder::Build() {
  out_.reserve(input_.size() + (base_ != nullptr ? base_->href_.size() : 0) + 8);
  if (!SchemeStartState()) return absl::InvalidArgumentError(error_);
  Finish();
  return std::move(url_);
}

bool UrlBuilder::SchemeStartState() {
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

void UrlBuilder::SetScheme(size_t length) {
  url_.scheme_end_ = static_cast<uint32_t>(length);
  out_.push_back(':');
  type_ = ClassifyScheme(url_.scheme());
  url_.host_start_ = url_.host_end_ = url_.authority_end_ = url_.path_start_ =
      static_cast<uint32_t>(out_.size());
}

bool UrlBuilder::NoSchemeState() {
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

void UrlBuilder::CopyBaseAuthority() {
  const Url& base = *base_;
  out_.append(base.href_, base.scheme_end_ + 1, base.authority_end_ - base.scheme_end_ - 1);
  url_.host_start_ = base.host_start_;
  url_.host_end_ = base.host_end_;
  url_.authority_end_ = base.authority_end_;
  url_.has_host_ = base.has_host_;
  url_.port_ = base.port_;
  url_.path_start_ = static_cast<uint32_t>(out_.size());
}

void UrlBuilder::CopyBaseQuery() {
  if (!base_->has_query()) return;
  url_.query_start_ = static_cast<uint32_t>(out_.size());
  out_.push_back('?');
  out_.append(base_->query());
}

bool UrlBuilder::RelativeState() {
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

bool UrlBuilder::AfterCopiedPath() {
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

void UrlBuilder::Finish() {
  if (url_.has_host_ || url_.opaque_path_) return;
  const std::string_view path = url_.path();
  if (path.size() < 2 || path[0] != '/' || path[1] != '/') return;
  out_.insert(url_.path_start_, "/.");
  url_.path_start_ += 2;
  if (url_.query_start_ != Url::kNone) url_.query_start_ += 2;
  if (url_.fragment_start_ != Url::kNone) url_.fragment_start_ += 2;
}

absl::StatusOr<Url> Url::Parse(std::string_view input, const Url* base) {
  std::string scratch;
  const std::string_view cleaned = CleanInput(input, scratch);
  if (cleaned.size() >= UINT32_MAX / 4) return absl::InvalidArgumentError("URL too long");
  return UrlBuilder(cleaned, base).Build();
}

}  // namespace crawler
