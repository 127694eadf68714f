// LinkFilter: the checks a discovered URL passes BEFORE it may enter the Sieve
// (scope, depth and page limits are applied first, so off-scope URLs
// cost no filter bits and no queue space; they are counted, not queued).
//
//   crawler::LinkFilter filter = *crawler::LinkFilter::Create(options, seed_urls);
//   switch (filter.Check(url, depth)) {  // or Check(url, SplitUrl(url), depth)
//     case crawler::LinkVerdict::kFollow: frontier.Offer(...); break;
//     default: ++dropped[verdict];
//   }
//
// Checks, in order: length (--max-url-length), depth (--max-depth), scope
// (--scope against the seeds' hosts or registrable domains), --allow/--deny
// (RE2, partial match against the whole URL), then --reject-ext (the path's
// extension, crawler/type_filter.h).
//
// Threading: Check is const and safe to call concurrently (RE2 is thread-safe).
#ifndef CRAWLER_LINK_FILTER_H_
#define CRAWLER_LINK_FILTER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "crawler/options.h"
#include "crawler/url_parts.h"

namespace re2 {
class RE2;
}

namespace crawler {

enum class LinkVerdict {
  kFollow,
  kTooLong,
  kOverDepth,
  kOffScope,
  kNotAllowed,
  kDenied,
  kRejectedExtension,
};

// "follow", "too-long", "over-depth", "off-scope", "not-allowed", "denied",
// "rejected-ext".
std::string_view LinkVerdictName(LinkVerdict verdict);

// The host of a serialized absolute URL: "http://a.b:81/x" -> "a.b",
// "http://[::1]/" -> "[::1]". Empty when there is none.
std::string_view HostOfUrl(std::string_view url);
// The same from the URL's authority alone (what follows "://" up to the
// first '/', '?' or '#'): "u@a.b:81" -> "a.b". For a caller that has split
// the URL already: HostOfUrl(url) is HostOfAuthority(that authority).
std::string_view HostOfAuthority(std::string_view authority);

// The registrable domain of `host` by the public-suffix list (libpsl's built-in
// list): "www.example.co.uk" -> "example.co.uk". IP addresses and hosts that
// are themselves a public suffix return the host unchanged.
std::string RegistrableDomain(std::string_view host);

class LinkFilter {
 public:
  // `seeds`: normalized seed URLs; their hosts (or domains) define the scope.
  // Fails when an allow/deny pattern does not compile or a --reject-ext item
  // is malformed.
  static absl::StatusOr<std::unique_ptr<LinkFilter>> Create(const CrawlOptions& options,
                                                            const std::vector<std::string>& seeds);
  ~LinkFilter();

  // `url` is normalized; `depth` is the depth it would be crawled at.
  LinkVerdict Check(std::string_view url, int depth) const;
  // The same for a caller that has split `url` already: `parts` must be
  // SplitUrl(url) (crawler/url_parts.h), so the URL is not scanned again.
  LinkVerdict Check(std::string_view url, const UrlParts& parts, int depth) const;

 private:
  LinkFilter() = default;
  // Whether a URL of `host` is in --scope.
  bool InScope(std::string_view host) const;

  Scope scope_ = Scope::kHost;
  int max_depth_ = -1;
  size_t max_url_length_ = 2048;
  absl::flat_hash_set<std::string> scope_keys_;  // hosts or registrable domains
  std::vector<std::unique_ptr<re2::RE2>> allow_;
  std::vector<std::unique_ptr<re2::RE2>> deny_;
  std::vector<std::string> reject_ext_;  // lower case, no dot
};

}  // namespace crawler

#endif  // CRAWLER_LINK_FILTER_H_
