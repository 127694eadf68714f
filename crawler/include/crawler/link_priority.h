// LinkPriority: the operator's rules for which ready URL goes first
// (--prefer, --defer, --depth-priority and [[priority]] tables), turned into the Sieve priority of
// each URL the crawl queues. Politeness still decides when a host may be fetched; priority decides
// which of the URLs ready at that moment goes first (docs/crawler.md,
// "Order").
//
//   absl::StatusOr<crawler::LinkPriority> rules = crawler::LinkPriority::Create(options);
//   int32_t p = rules->Of("https://a.example/docs/x", "https://a.example", /*depth=*/2);
//
// The priority of a URL: + 10 per --prefer pattern it matches, - 10 per
// --defer pattern, + the delta of every [[priority]] table it matches,
// - depth_priority x depth, + a sitemap's <priority> scaled by
// --sitemap-priority (OfSitemapUrl); clamped to
// [kMinPriority, kMaxPriority], 1,024 values: the Sieve's lane bound, so
// the crawl can never have a push refused for its priority. With no rule,
// every URL is at 0 and the crawl's order is the order without priorities.
//
// Threading: immutable after Create; Of may be called from any thread.
#ifndef CRAWLER_LINK_PRIORITY_H_
#define CRAWLER_LINK_PRIORITY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "crawler/options.h"

namespace re2 {
class RE2;
}

namespace crawler {

inline constexpr int32_t kMinPriority = -512;
inline constexpr int32_t kMaxPriority = 511;
// What --prefer adds and --defer takes away.
inline constexpr int32_t kPreferDelta = 10;

class LinkPriority {
 public:
  // InvalidArgument naming the flag or table and the pattern when a regex
  // does not compile.
  static absl::StatusOr<LinkPriority> Create(const CrawlOptions& options);
  LinkPriority(LinkPriority&&) noexcept;
  LinkPriority& operator=(LinkPriority&&) noexcept;
  ~LinkPriority();

  // False when no rule is set: every URL's priority is 0.
  bool any() const { return any_; }

  // The priority of `url` (normalized) of `authority`, `depth` hops from a
  // seed.
  int32_t Of(std::string_view url, std::string_view authority, int depth) const;

  // The same for a URL a sitemap lists with <priority> `sitemap_priority`
  // (0.0-1.0): Of plus round(--sitemap-priority x (sitemap_priority - 0.5)
  // x 2), clamped.
  int32_t OfSitemapUrl(std::string_view url, std::string_view authority, int depth,
                       double sitemap_priority) const;

 private:
  struct Rule {
    std::unique_ptr<re2::RE2> url;  // null: any URL
    std::string host;               // "": any host
    int delta = 0;
  };
  LinkPriority() = default;

  std::vector<Rule> rules_;
  int depth_priority_ = 0;
  int sitemap_priority_ = 0;
  bool any_ = false;
};

}  // namespace crawler

#endif  // CRAWLER_LINK_PRIORITY_H_
