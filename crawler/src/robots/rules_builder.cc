// Groups, merging and fallback of RFC 9309 2.1 and 2.2.1, as a parse handler.
#include "robots/rules_builder.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "robots/pattern.h"
#include "robots/record_key.h"

namespace crawler {
namespace {

// Crawl-delay is not in RFC 9309; the common reading is seconds, possibly
// fractional. Anything else on the line is ignored, as is a negative value.
std::optional<double> ParseSeconds(std::string_view value) {
  double seconds = 0;
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, seconds);
  if (ec != std::errc() || ptr != end || !std::isfinite(seconds) || seconds < 0) {
    return std::nullopt;
  }
  return seconds;
}

}  // namespace

RobotsRulesBuilder::RobotsRulesBuilder(std::string_view product_token) : token_(product_token) {}

void RobotsRulesBuilder::HandleUserAgent(int /*line*/, std::string_view product_token) {
  if (!in_agent_lines_) {
    in_agent_lines_ = true;
    group_is_ours_ = false;
    group_is_star_ = false;
  }
  if (product_token == "*") {
    group_is_star_ = true;
  } else if (!product_token.empty() && !token_.empty() &&
             robots_internal::EqualsIgnoreAsciiCase(product_token, token_)) {
    group_is_ours_ = true;
    seen_our_group_ = true;
  }
}

void RobotsRulesBuilder::AddRule(std::string_view pattern, bool allow) {
  in_agent_lines_ = false;
  if (!group_is_ours_ && !group_is_star_) return;  // another crawler's, or before any group
  std::optional<std::string> compiled = robots_internal::CompilePattern(pattern);
  if (!compiled) return;  // empty ("Disallow:") or not a path-pattern: matches nothing
  if (group_is_ours_) ours_.patterns.emplace_back(*compiled, allow);
  if (group_is_star_) star_.patterns.emplace_back(std::move(*compiled), allow);
}

void RobotsRulesBuilder::HandleAllow(int /*line*/, std::string_view pattern) {
  AddRule(pattern, true);
}

void RobotsRulesBuilder::HandleDisallow(int /*line*/, std::string_view pattern) {
  AddRule(pattern, false);
}

void RobotsRulesBuilder::HandleSitemap(int /*line*/, std::string_view url) {
  if (!url.empty()) sitemaps_.emplace_back(url);
}

void RobotsRulesBuilder::HandleCrawlDelay(int /*line*/, std::string_view value) {
  std::optional<double> seconds = ParseSeconds(value);
  if (!seconds) return;
  for (auto [applies, side] :
       {std::pair{group_is_ours_, &ours_}, std::pair{group_is_star_, &star_}}) {
    if (applies) side->crawl_delay = std::max(side->crawl_delay.value_or(0), *seconds);
  }
}

void RobotsRulesBuilder::HandleUnknown(int /*line*/, std::string_view /*key*/,
                                       std::string_view /*value*/) {}

RobotsRules RobotsRulesBuilder::Build() {
  Collected& chosen = seen_our_group_ ? ours_ : star_;
  // Most specific first; allow before disallow at equal length (RFC 9309
  // 2.2.2: "the least restrictive rule"), so the first match decides.
  std::stable_sort(chosen.patterns.begin(), chosen.patterns.end(),
                   [](const auto& a, const auto& b) {
                     if (a.first.size() != b.first.size()) return a.first.size() > b.first.size();
                     return a.second && !b.second;
                   });
  RobotsRules rules;
  for (const auto& [pattern, allow] : chosen.patterns) {
    rules.rules_.push_back({static_cast<uint32_t>(rules.patterns_.size()),
                            static_cast<uint32_t>(pattern.size()), allow});
    rules.patterns_ += pattern;
  }
  rules.crawl_delay_ = chosen.crawl_delay;
  rules.sitemaps_ = std::move(sitemaps_);
  return rules;
}

}  // namespace crawler
