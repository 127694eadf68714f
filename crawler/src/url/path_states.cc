// UrlBuilder: path (with dot segments), opaque path, query and fragment
// states.
#include "url/percent_encode.h"
#include "url/url_builder.h"
#include "url/url_grammar.h"

namespace crawler {

using url_internal::AppendEncoded;
using url_internal::EncodeSet;
using url_internal::IsDoubleDotSegment;
using url_internal::IsNormalizedWindowsDriveLetter;
using url_internal::IsSingleDotSegment;
using url_internal::IsWindowsDriveLetter;
using url_internal::SchemeType;

bool UrlBuilder::PathStartState() {
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

void UrlBuilder::ShortenPath() {
  const std::string_view path = std::string_view(out_).substr(url_.path_start_);
  if (type_ == SchemeType::kFile && path.size() == 3 &&
      IsNormalizedWindowsDriveLetter(path.substr(1))) {
    return;
  }
  const size_t slash = path.rfind('/');
  if (slash != std::string_view::npos) out_.resize(url_.path_start_ + slash);
}

bool UrlBuilder::PathState() {
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

bool UrlBuilder::OpaquePathState() {
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

bool UrlBuilder::QueryState() {
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

bool UrlBuilder::FragmentState() {
  url_.fragment_start_ = static_cast<uint32_t>(out_.size());
  out_.push_back('#');
  AppendEncoded(Remaining(), EncodeSet::kFragment, out_);
  pos_ = input_.size();
  return true;
}

}  // namespace crawler
