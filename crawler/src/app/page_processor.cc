#include "app/page_processor.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "crawler/page_fingerprint.h"
#include "crawler/url.h"

namespace crawler {
namespace {

void Count(LinkVerdict verdict, LinkCounts* counts) {
  switch (verdict) {
    case LinkVerdict::kFollow:
      return;
    case LinkVerdict::kTooLong:
      ++counts->too_long;
      return;
    case LinkVerdict::kOverDepth:
      ++counts->over_depth;
      return;
    case LinkVerdict::kOffScope:
    case LinkVerdict::kNotAllowed:
    case LinkVerdict::kDenied:
      ++counts->off_scope;
      return;
    case LinkVerdict::kRejectedExtension:
      ++counts->rejected_ext;
      return;
  }
}

}  // namespace

std::vector<std::string> PageProcessor::Filter(std::vector<std::string> candidates, int depth,
                                               LinkCounts* counts) const {
  std::vector<std::string> follow;
  follow.reserve(candidates.size());
  for (std::string& url : candidates) {
    const LinkVerdict verdict = filter_->Check(url, depth);
    if (verdict == LinkVerdict::kFollow) {
      follow.push_back(std::move(url));
    } else {
      Count(verdict, counts);
    }
  }
  return follow;
}

void PageProcessor::AvoidTraps(std::vector<PassedLink>& passed, std::string_view from_host,
                               LinkCounts* counts) const {
  size_t kept = 0;
  for (const PassedLink& link : passed) {
    switch (traps_->Check(link.url, link.parts, from_host)) {
      case TrapKind::kNone:
        passed[kept++] = link;
        break;
      case TrapKind::kHostBudget:
        ++counts->trap_host_budget;
        break;
      case TrapKind::kQueryVariants:
        ++counts->trap_query_variants;
        break;
      case TrapKind::kRepeatedSegments:
        ++counts->trap_repeated_segments;
        break;
    }
  }
  passed.resize(kept);
}

PageRecord PageProcessor::Process(const CrawlUrl& url, FetchResult&& result, LinkCounts* counts,
                                  bool parse) const {
  PageRecord record;
  record.url = url.url;
  record.final_url = result.final_url.empty() ? url.url : result.final_url;
  record.status = static_cast<int>(result.status);
  record.content_type = result.content_type;
  record.bytes = static_cast<int64_t>(result.body.size());
  record.depth = url.depth;
  record.parent = url.parent;
  record.fetched_at = absl::FromChrono(result.started_at);
  record.fetch_ms = result.fetch_ms;
  record.error = result.error;
  if (traps_ != nullptr && result.status != 0) traps_->OnPageFetched(url.url);
  // A body cut at --max-body still has links in its received prefix: parse
  // it and say so (`truncated`). Any other error left nothing usable.
  const bool cut = result.error == kFetchBodyTooLarge;
  record.truncated = cut;
  if (cut) record.truncated_reason = "max_body";
  if (!result.error.empty() && !cut) return record;
  if (result.status >= 300 && result.status < 400 && !result.location.empty()) {
    record.redirect_to = WithoutUserinfo(result.location);
    FollowRedirect(url, &record, counts);
  } else if (parse && result.status >= 200 && result.status < 300 &&
             IsHtmlContentType(result.content_type)) {
    FollowLinks(url, result, &record, counts);
  }
  return record;
}

void PageProcessor::FollowRedirect(const CrawlUrl& url, PageRecord* record,
                                   LinkCounts* counts) const {
  record->links_found = 1;
  absl::StatusOr<Url> target = Url::Parse(record->redirect_to);
  absl::StatusOr<std::string> normalized =
      target.ok() ? NormalizeForSeen(*target, link_options_.normalize) : target.status();
  if (!normalized.ok()) {
    ++counts->rejected;
    return;
  }
  if (url.redirect_hops + 1 > max_redirects_) {
    record->error = absl::StrCat("too_many_redirects: more than ", max_redirects_, " hops");
    return;
  }
  const LinkVerdict verdict = filter_->Check(*normalized, url.depth);
  if (verdict != LinkVerdict::kFollow) {
    Count(verdict, counts);
    return;
  }
  CrawlUrl next;
  next.url = std::move(*normalized);
  next.depth = url.depth;  // a redirect is the same link, not one more hop of depth
  next.parent = url.url;
  next.redirect_hops = url.redirect_hops + 1;
  record->links_new = frontier_->Offer(next) ? 1 : 0;
}

void PageProcessor::FollowLinks(const CrawlUrl& url, const FetchResult& result, PageRecord* record,
                                LinkCounts* counts) const {
  absl::StatusOr<Url> page = Url::Parse(record->final_url);
  if (!page.ok()) return;
  PageLinks found = ExtractLinks(result.body, result.content_type, *page, link_options_);
  if (found.truncated && !record->truncated) record->truncated_reason = found.truncated_reason;
  record->truncated = record->truncated || found.truncated;
  if (record->truncated) record->parsed_bytes = static_cast<int64_t>(found.parsed_bytes);
  record->links_found = static_cast<int>(found.links_found);
  counts->rejected += static_cast<int64_t>(found.rejected);
  counts->nofollow_skipped += static_cast<int64_t>(found.nofollow_skipped);
  // Each link's URL split once, for the filter and the trap guard. The URLs
  // stay where they are in found.links (neither moved nor copied) while
  // `passed` holds views into them: a short string's move would move its
  // bytes.
  std::vector<PassedLink> passed;
  passed.reserve(found.links.size());
  for (size_t i = 0; i < found.links.size(); ++i) {
    const std::string& link = found.links[i].url;
    const UrlParts parts = SplitUrl(link);
    const LinkVerdict verdict = filter_->Check(link, parts, url.depth + 1);
    if (verdict == LinkVerdict::kFollow) {
      passed.push_back({link, parts, i});
    } else {
      Count(verdict, counts);
    }
  }
  if (duplicates_ != nullptr &&
      duplicates_->AddPage(record->final_url, PageFingerprint(result.body))) {
    counts->trap_duplicate_content += static_cast<int64_t>(passed.size());
    return;
  }
  if (traps_ != nullptr) AvoidTraps(passed, HostOfUrl(record->final_url), counts);
  if (passed.empty()) return;
  // Moved, not copied: two allocations a link fewer (malloc and free were
  // ~9% of the crawl's CPU on the synthetic site).
  std::vector<std::string> follow;
  follow.reserve(passed.size());
  for (const PassedLink& link : passed) follow.push_back(std::move(found.links[link.index].url));
  record->links_new = static_cast<int>(frontier_->OfferLinks(follow, url.depth + 1, url.url));
}

}  // namespace crawler
