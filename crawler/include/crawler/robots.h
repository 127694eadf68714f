// crawler/robots.h: reading robots.txt (RFC 9309) into events, and the
// compiled rules one crawler obeys for one authority.
//
// Parsing is separated from policy as in google/robotstxt: `ParseRobotsTxt`
// splits a file into records and calls a `RobotsParseHandler` once per record;
// `RobotsRules::Parse` is one such handler (it keeps the groups of one agent
// and compiles their rules into a compact matcher). Other handlers (a linter,
// a sitemap collector) reuse the same tokenizer.
//
// Example:
//   crawler::RobotsRules rules = crawler::RobotsRules::Parse(body, "crawl");
//   absl::StatusOr<crawler::Url> url = crawler::Url::Parse("https://a.example/x?y");
//   if (rules.IsAllowed(*url)) { ... fetch ... }
//   // rules.crawl_delay(), rules.sitemaps() for the politeness and sitemap stages.
//
// Threading: `ParseRobotsTxt` is reentrant. A `RobotsRules` is immutable once
// built; its const methods are safe to call concurrently from any thread.
#ifndef CRAWLER_ROBOTS_H_
#define CRAWLER_ROBOTS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crawler/url.h"

namespace crawler {

// RFC 9309 2.5: crawlers MUST parse at least 500 KiB. Bytes past the limit
// are ignored (a line cut by the limit is dropped, not half-read).
inline constexpr size_t kRobotsMaxBytes = 500 * 1024;

// Receives the records of a robots.txt in file order. `line` is 1-based.
// Values are trimmed and stripped of comments; keys are recognized
// case-insensitively, with the common misspellings google/robotstxt accepts
// ("disalow", "useragent", ...).
class RobotsParseHandler {
 public:
  virtual ~RobotsParseHandler() = default;
  virtual void HandleRobotsStart() {}
  virtual void HandleRobotsEnd() {}
  // `product_token` is "*", the leading [A-Za-z_-] run of the value
  // ("ExampleBot/2.1" gives "ExampleBot"), or empty (matches no crawler).
  virtual void HandleUserAgent(int line, std::string_view product_token) = 0;
  virtual void HandleAllow(int line, std::string_view pattern) = 0;
  virtual void HandleDisallow(int line, std::string_view pattern) = 0;
  virtual void HandleSitemap(int line, std::string_view url) = 0;
  virtual void HandleCrawlDelay(int line, std::string_view value) = 0;
  // Any other "key: value" line (RFC 9309 2.2.4: it must not end a group).
  virtual void HandleUnknown(int line, std::string_view key, std::string_view value) = 0;
};

// Tokenizes `robots_txt` (at most `max_bytes` of it) and calls `handler`.
// Lines end at LF, CR or CRLF; a leading UTF-8 BOM is skipped; "#" starts a
// comment; a line without ':' is read as "key value" when it has exactly two
// words (Google's tolerance), otherwise it is ignored.
void ParseRobotsTxt(std::string_view robots_txt, RobotsParseHandler& handler,
                    size_t max_bytes = kRobotsMaxBytes);

// The product token of a User-Agent string: its leading [A-Za-z_-] run
// ("crawl/0.1 (+https://x)" gives "crawl"). This is what robots.txt groups name.
std::string RobotsProductToken(std::string_view user_agent);

// The rules of one robots.txt that apply to one crawler, compiled for cheap
// matching: each pattern is canonicalized once (percent-encoding, see
// robots_pattern.h) and the rules are sorted most specific first, so a check
// stops at the first matching rule. No regex.
class RobotsRules {
 public:
  // Keeps the groups whose user-agent equals `agent` (case-insensitive;
  // `agent` may be a whole User-Agent string, its product token is used),
  // merged; if there is none, the "*" groups, merged (RFC 9309 2.2.1).
  static RobotsRules Parse(std::string_view robots_txt, std::string_view agent,
                           size_t max_bytes = kRobotsMaxBytes);
  static RobotsRules AllowAll();
  static RobotsRules DisallowAll();

  // True if `url` may be fetched: path + query against the rules, longest
  // match wins, allow wins ties, no match allows, "/robots.txt" is always
  // allowed (RFC 9309 2.2.2). The fragment is ignored.
  bool IsAllowed(const Url& url) const;
  // Same for a path with optional "?query", as sent in an HTTP request line.
  bool IsAllowedPath(std::string_view path_and_query) const;

  // Crawl-delay of the chosen group in seconds (the largest if repeated),
  // when it had a valid non-negative number.
  std::optional<double> crawl_delay() const { return crawl_delay_; }
  // Every Sitemap: value of the file, in order (they belong to no group).
  const std::vector<std::string>& sitemaps() const { return sitemaps_; }
  size_t rule_count() const { return rules_.size(); }

 private:
  friend class RobotsRulesBuilder;  // src/robots: the handler that fills these in.
  struct Rule {
    uint32_t offset;  // of the compiled pattern in patterns_
    uint32_t length;  // octets of the canonical pattern: its specificity
    bool allow;
  };

  // All compiled patterns back to back (one allocation, cache friendly).
  std::string patterns_;
  std::vector<Rule> rules_;  // most specific first, allow before disallow
  std::optional<double> crawl_delay_;
  std::vector<std::string> sitemaps_;
};

}  // namespace crawler

#endif  // CRAWLER_ROBOTS_H_
