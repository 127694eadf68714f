// UrlBuilder: authority, userinfo, host and port states.
#include "url/host.h"
#include "url/percent_encode.h"
#include "url/url_builder.h"
#include "url/url_grammar.h"

namespace crawler {

using url_internal::AppendEncoded;
using url_internal::AppendParsedHost;
using url_internal::DefaultPort;
using url_internal::EncodeSet;
using url_internal::IsAsciiDigit;

bool UrlBuilder::AuthorityState() {
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

void UrlBuilder::AppendUserinfo(std::string_view userinfo) {
  const size_t colon = userinfo.find(':');
  const size_t before = out_.size();
  AppendEncoded(userinfo.substr(0, colon), EncodeSet::kUserinfo, out_);
  if (colon != std::string_view::npos && colon + 1 < userinfo.size()) {
    out_.push_back(':');
    AppendEncoded(userinfo.substr(colon + 1), EncodeSet::kUserinfo, out_);
  }
  if (out_.size() > before) out_.push_back('@');
}

bool UrlBuilder::HostState(size_t end) {
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

bool UrlBuilder::PortState(std::string_view digits) {
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

}  // namespace crawler
