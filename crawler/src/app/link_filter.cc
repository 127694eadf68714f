// LinkFilter: cheap checks first (length, depth), then scope (a hash lookup,
// plus a public-suffix lookup for --scope domain), then the regexes.
#include "crawler/link_filter.h"

#include <libpsl.h>
#include <re2/re2.h>

#include "absl/strings/str_cat.h"
#include "crawler/host_queues.h"
#include "crawler/type_filter.h"
#include "url/after_scheme.h"
#include "url/find_first_of.h"

namespace crawler {

std::string_view LinkVerdictName(LinkVerdict verdict) {
  switch (verdict) {
    case LinkVerdict::kFollow:
      return "follow";
    case LinkVerdict::kTooLong:
      return "too-long";
    case LinkVerdict::kOverDepth:
      return "over-depth";
    case LinkVerdict::kOffScope:
      return "off-scope";
    case LinkVerdict::kNotAllowed:
      return "not-allowed";
    case LinkVerdict::kDenied:
      return "denied";
    case LinkVerdict::kRejectedExtension:
      return "rejected-ext";
  }
  return "?";
}

std::string_view HostOfUrl(std::string_view url) {
  const size_t start = AfterScheme(url);
  if (start == std::string_view::npos) return {};
  const size_t end = std::min(FindFirstOf(url, "/?#", start), url.size());
  return HostOfAuthority(url.substr(start, end - start));
}

std::string_view HostOfAuthority(std::string_view authority) {
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (!authority.empty() && authority.front() == '[') {
    return authority.substr(0, authority.find(']') + 1);
  }
  return authority.substr(0, authority.find(':'));
}

std::string RegistrableDomain(std::string_view host) {
  const std::string h(host);
  // libpsl knows nothing of IP addresses ("127.0.0.1" would give "0.1"). A
  // WHATWG-serialized host is an IPv4 address exactly when its last label is a
  // number, and an IPv6 one when it is bracketed.
  const std::string_view last = host.substr(host.rfind('.') + 1);
  const bool ipv4 = !last.empty() && last.find_first_not_of("0123456789") == std::string_view::npos;
  if (ipv4 || (!host.empty() && host.front() == '[')) return h;
  const char* domain = psl_registrable_domain(psl_builtin(), h.c_str());
  return domain != nullptr ? std::string(domain) : h;
}

absl::StatusOr<std::unique_ptr<LinkFilter>> LinkFilter::Create(
    const CrawlOptions& options, const std::vector<std::string>& seeds) {
  std::unique_ptr<LinkFilter> filter(new LinkFilter());
  filter->scope_ = options.scope;
  filter->max_depth_ = options.max_depth;
  filter->max_url_length_ = options.max_url_length;
  for (const std::string& seed : seeds) {
    const std::string_view host = HostOfUrl(seed);
    filter->scope_keys_.insert(options.scope == Scope::kDomain ? RegistrableDomain(host)
                                                               : std::string(host));
  }
  auto compile = [](const std::vector<std::string>& patterns, const char* flag,
                    std::vector<std::unique_ptr<re2::RE2>>* out) -> absl::Status {
    for (const std::string& pattern : patterns) {
      auto re = std::make_unique<re2::RE2>(pattern, re2::RE2::Quiet);
      if (!re->ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(flag, ": bad regex '", pattern, "': ", re->error()));
      }
      out->push_back(std::move(re));
    }
    return absl::OkStatus();
  };
  if (auto s = compile(options.allow, "--allow", &filter->allow_); !s.ok()) return s;
  if (auto s = compile(options.deny, "--deny", &filter->deny_); !s.ok()) return s;
  for (const std::string& list : options.reject_ext) {
    absl::StatusOr<std::vector<std::string>> extensions = ParseExtensionList(list);
    if (!extensions.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--reject-ext: ", extensions.status().message()));
    }
    filter->reject_ext_.insert(filter->reject_ext_.end(), extensions->begin(), extensions->end());
  }
  return filter;
}

LinkFilter::~LinkFilter() = default;

bool LinkFilter::InScope(std::string_view host) const {
  if (scope_ == Scope::kAny) return true;
  if (scope_ == Scope::kDomain) return scope_keys_.contains(RegistrableDomain(host));
  return scope_keys_.contains(absl::string_view(host.data(), host.size()));
}

LinkVerdict LinkFilter::Check(std::string_view url, int depth) const {
  return Check(url, SplitUrl(url), depth);
}

LinkVerdict LinkFilter::Check(std::string_view url, const UrlParts& parts, int depth) const {
  if (url.size() > max_url_length_) return LinkVerdict::kTooLong;
  if (max_depth_ >= 0 && depth > max_depth_) return LinkVerdict::kOverDepth;
  if (!InScope(parts.host)) return LinkVerdict::kOffScope;
  const re2::StringPiece text(url.data(), url.size());
  if (!allow_.empty()) {
    bool allowed = false;
    for (const auto& re : allow_) allowed = allowed || re2::RE2::PartialMatch(text, *re);
    if (!allowed) return LinkVerdict::kNotAllowed;
  }
  for (const auto& re : deny_) {
    if (re2::RE2::PartialMatch(text, *re)) return LinkVerdict::kDenied;
  }
  if (HasExtension(url, reject_ext_)) return LinkVerdict::kRejectedExtension;
  return LinkVerdict::kFollow;
}

}  // namespace crawler
