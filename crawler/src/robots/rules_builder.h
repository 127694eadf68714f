// The RobotsParseHandler that keeps what one crawler obeys: the merged groups
// naming its product token, else the merged "*" groups (RFC 9309 2.2.1).
#ifndef CRAWLER_SRC_ROBOTS_RULES_BUILDER_H_
#define CRAWLER_SRC_ROBOTS_RULES_BUILDER_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crawler/robots.h"

namespace crawler {

class RobotsRulesBuilder : public RobotsParseHandler {
 public:
  explicit RobotsRulesBuilder(std::string_view product_token);

  void HandleUserAgent(int line, std::string_view product_token) override;
  void HandleAllow(int line, std::string_view pattern) override;
  void HandleDisallow(int line, std::string_view pattern) override;
  void HandleSitemap(int line, std::string_view url) override;
  void HandleCrawlDelay(int line, std::string_view value) override;
  void HandleUnknown(int line, std::string_view key, std::string_view value) override;

  // The compiled rules; call once, after parsing.
  RobotsRules Build();

 private:
  // What one side (the crawler's own groups, or "*") has collected.
  struct Collected {
    std::vector<std::pair<std::string, bool>> patterns;  // compiled, allow?
    std::optional<double> crawl_delay;
  };
  void AddRule(std::string_view pattern, bool allow);

  std::string token_;
  // The current group: its user-agent lines are consecutive, and a rule after
  // them closes the list (the next user-agent line starts a new group).
  bool in_agent_lines_ = false;
  bool group_is_ours_ = false;
  bool group_is_star_ = false;
  bool seen_our_group_ = false;  // even an empty one: it replaces "*"
  Collected ours_;
  Collected star_;
  std::vector<std::string> sitemaps_;
};

}  // namespace crawler

#endif  // CRAWLER_SRC_ROBOTS_RULES_BUILDER_H_
