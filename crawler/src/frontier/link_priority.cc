#include "crawler/link_priority.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "crawler/polite_policy.h"
#include "re2/re2.h"

namespace crawler {
namespace {

absl::StatusOr<std::unique_ptr<re2::RE2>> Compile(const std::string& pattern,
                                                  const std::string& where) {
  auto re = std::make_unique<re2::RE2>(pattern, re2::RE2::Quiet);
  if (!re->ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": bad regex '", pattern, "': ", re->error()));
  }
  return re;
}

}  // namespace

LinkPriority::LinkPriority(LinkPriority&&) noexcept = default;
LinkPriority& LinkPriority::operator=(LinkPriority&&) noexcept = default;
LinkPriority::~LinkPriority() = default;

absl::StatusOr<LinkPriority> LinkPriority::Create(const CrawlOptions& options) {
  LinkPriority priority;
  auto add = [&](const std::string& pattern, const std::string& host, int delta,
                 const std::string& where) -> absl::Status {
    Rule rule;
    if (!pattern.empty()) {
      absl::StatusOr<std::unique_ptr<re2::RE2>> re = Compile(pattern, where);
      if (!re.ok()) return re.status();
      rule.url = *std::move(re);
    }
    rule.host = host;
    rule.delta = delta;
    priority.rules_.push_back(std::move(rule));
    return absl::OkStatus();
  };
  for (const std::string& pattern : options.prefer) {
    if (absl::Status s = add(pattern, "", kPreferDelta, "--prefer"); !s.ok()) return s;
  }
  for (const std::string& pattern : options.defer) {
    if (absl::Status s = add(pattern, "", -kPreferDelta, "--defer"); !s.ok()) return s;
  }
  for (size_t i = 0; i < options.priorities.size(); ++i) {
    const PriorityRule& rule = options.priorities[i];
    const std::string where = absl::StrCat("[[priority]] ", i);
    if (absl::Status s = add(rule.url, rule.host, rule.delta, where); !s.ok()) return s;
  }
  priority.depth_priority_ = options.depth_priority;
  priority.sitemap_priority_ = options.sitemap_priority;
  priority.any_ =
      !priority.rules_.empty() || priority.depth_priority_ != 0 || priority.sitemap_priority_ != 0;
  return priority;
}

int32_t LinkPriority::Of(std::string_view url, std::string_view authority, int depth) const {
  if (!any_) return 0;
  int64_t sum = -static_cast<int64_t>(depth_priority_) * depth;
  for (const Rule& rule : rules_) {
    if (!rule.host.empty() && !HostPatternMatches(rule.host, authority)) continue;
    if (rule.url != nullptr && !re2::RE2::PartialMatch(url, *rule.url)) continue;
    sum += rule.delta;
  }
  return static_cast<int32_t>(std::clamp<int64_t>(sum, kMinPriority, kMaxPriority));
}

int32_t LinkPriority::OfSitemapUrl(std::string_view url, std::string_view authority, int depth,
                                   double sitemap_priority) const {
  if (!any_) return 0;
  const double clamped = std::clamp(sitemap_priority, 0.0, 1.0);
  const int64_t delta = std::llround(sitemap_priority_ * (clamped - 0.5) * 2);
  const int64_t sum = int64_t{Of(url, authority, depth)} + delta;
  return static_cast<int32_t>(std::clamp<int64_t>(sum, kMinPriority, kMaxPriority));
}

}  // namespace crawler
