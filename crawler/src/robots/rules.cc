// RobotsRules: building through the parser, and the per-URL check.
#include <string>

#include "crawler/robots.h"
#include "robots/pattern.h"
#include "robots/rules_builder.h"

namespace crawler {

RobotsRules RobotsRules::Parse(std::string_view robots_txt, std::string_view agent,
                               size_t max_bytes) {
  RobotsRulesBuilder builder(RobotsProductToken(agent));
  ParseRobotsTxt(robots_txt, builder, max_bytes);
  return builder.Build();
}

RobotsRules RobotsRules::AllowAll() { return RobotsRules(); }

RobotsRules RobotsRules::DisallowAll() { return Parse("User-agent: *\nDisallow: /\n", "*"); }

bool RobotsRules::IsAllowed(const Url& url) const {
  if (!url.has_query()) return IsAllowedPath(url.path());
  std::string target;
  target.reserve(url.path().size() + 1 + url.query().size());
  target.append(url.path()).append("?").append(url.query());
  return IsAllowedPath(target);
}

bool RobotsRules::IsAllowedPath(std::string_view path_and_query) const {
  // RFC 9309 2.2.2: "The /robots.txt URI is implicitly allowed."
  if (path_and_query == "/robots.txt" || rules_.empty()) return true;
  std::string scratch;
  const std::string_view target = robots_internal::CanonicalTarget(path_and_query, &scratch);
  for (const Rule& rule : rules_) {
    const std::string_view pattern(patterns_.data() + rule.offset, rule.length);
    if (robots_internal::PatternMatches(pattern, target)) return rule.allow;
  }
  return true;
}

}  // namespace crawler
