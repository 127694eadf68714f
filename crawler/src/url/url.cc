#include "crawler/url.h"

#include <string>

#include "url/scheme.h"

namespace crawler {

using url_internal::ClassifyScheme;
using url_internal::DefaultPort;
using url_internal::SchemeType;

uint32_t Url::path_end() const {
  if (query_start_ != kNone) return query_start_;
  if (fragment_start_ != kNone) return fragment_start_;
  return static_cast<uint32_t>(href_.size());
}

std::string_view Url::query() const {
  if (query_start_ == kNone) return {};
  const uint32_t end =
      fragment_start_ != kNone ? fragment_start_ : static_cast<uint32_t>(href_.size());
  return Slice(query_start_ + 1, end);
}

std::string_view Url::fragment() const {
  if (fragment_start_ == kNone) return {};
  return Slice(fragment_start_ + 1, static_cast<uint32_t>(href_.size()));
}

int Url::EffectivePort() const {
  return port_ != -1 ? port_ : DefaultPort(ClassifyScheme(scheme()));
}

std::string Url::Authority() const {
  const int port = EffectivePort();
  std::string authority;
  authority.reserve(scheme().size() + host().size() + 9);
  authority.append(scheme()).append("://").append(host());
  if (port != -1) authority.append(":").append(std::to_string(port));
  return authority;
}

bool Url::IsHttp() const {
  const SchemeType type = ClassifyScheme(scheme());
  return type == SchemeType::kHttp || type == SchemeType::kHttps;
}

}  // namespace crawler
