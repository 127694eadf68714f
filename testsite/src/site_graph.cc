#include "site_graph.h"

#include <algorithm>
#include <deque>
#include <tuple>
#include <utility>

namespace testsite {
namespace {

// Random streams per page; see SeededRandom.
constexpr uint64_t kLinkStream = 1;

// Odd-case link rates (one in N pages or links); see SiteOptions.
constexpr uint64_t kRedirectOneIn = 5;
constexpr uint64_t kFragmentOneIn = 4;
constexpr uint64_t kNonHtmlOneIn = 3;
constexpr uint64_t kNofollowOneIn = 4;
constexpr uint64_t kBaseHrefOneIn = 4;

// Fisher-Yates with our own generator, so the order is the same everywhere.
void Shuffle(std::vector<Link>& links, SeededRandom& random) {
  for (size_t i = links.size(); i > 1; --i) {
    std::swap(links[i - 1], links[random.Below(i)]);
  }
}

// Inserts `link` at a random position; draws once whether or not `enabled`.
void InsertIf(bool enabled, Link link, SeededRandom& random, std::vector<Link>& links) {
  const uint64_t position = random.Below(links.size() + 1);
  if (enabled) links.insert(links.begin() + static_cast<std::ptrdiff_t>(position), link);
}

bool IsFollowablePage(const Link& link) {
  return link.kind == LinkKind::kPage || link.kind == LinkKind::kRedirect;
}

bool IsFile(const Link& link) {
  return link.kind == LinkKind::kTextFile || link.kind == LinkKind::kPdfFile;
}

}  // namespace

SiteGraph::SiteGraph(const SiteOptions& options)
    : options_(options),
      pages_(options.pages),
      fanout_(std::max<uint64_t>(1, static_cast<uint64_t>(options.links_per_page) / 2)) {}

bool SiteGraph::IsSlow(uint64_t page) const {
  const auto every = static_cast<uint64_t>(options_.slow_every);
  return options_.slow && page % every == every - 1;
}

PageLayout SiteGraph::Layout(uint64_t page) const {
  SeededRandom random(options_.seed, page, kLinkStream);
  PageLayout layout;
  AddPageLinks(page, random, layout.links);
  AddOddLinks(page, random, layout.links);
  const bool base_href = random.OneIn(kBaseHrefOneIn);
  layout.base_href = options_.base_href && base_href;
  return layout;
}

void SiteGraph::AddPageLinks(uint64_t page, SeededRandom& random, std::vector<Link>& links) const {
  const auto wanted = static_cast<uint64_t>(options_.links_per_page);
  // Tree children first: they guarantee reachability.
  const uint64_t first_child = page * fanout_ + 1;
  for (uint64_t child = first_child; child < pages_ && child < first_child + fanout_; ++child) {
    links.push_back({.kind = LinkKind::kPage, .target = child});
  }
  while (links.size() < wanted) {
    links.push_back({.kind = LinkKind::kPage, .target = random.Below(pages_)});
  }
  for (Link& link : links) {
    const bool redirect = random.OneIn(kRedirectOneIn);
    link.form = static_cast<LinkForm>(random.Below(kLinkFormCount));
    link.fragment = random.OneIn(kFragmentOneIn);
    if (options_.redirects && redirect) link.kind = LinkKind::kRedirect;
  }
  Shuffle(links, random);
}

void SiteGraph::AddOddLinks(uint64_t page, SeededRandom& random, std::vector<Link>& links) const {
  const uint64_t file_roll = random.Below(kNonHtmlOneIn * 2);
  const Link file{.kind = file_roll % 2 == 0 ? LinkKind::kTextFile : LinkKind::kPdfFile,
                  .target = random.Below(pages_),
                  .form = static_cast<LinkForm>(random.Below(kLinkFormCount))};
  InsertIf(options_.non_html && file_roll < 2, file, random, links);

  const bool nofollow = random.OneIn(kNofollowOneIn);
  const Link hidden{.kind = LinkKind::kNofollow,
                    .target = random.Below(pages_),
                    .form = static_cast<LinkForm>(random.Below(kLinkFormCount))};
  InsertIf(options_.nofollow && nofollow, hidden, random, links);

  const bool stalls = options_.stalled && page == 0;
  InsertIf(stalls, {.kind = LinkKind::kStall, .form = LinkForm::kRootRelative}, random, links);
  InsertIf(stalls, {.kind = LinkKind::kStallBody, .form = LinkForm::kAbsolute}, random, links);
}

std::vector<int64_t> SiteGraph::Depths() const {
  std::vector<int64_t> depth(pages_, -1);
  std::deque<uint64_t> frontier{0};
  depth[0] = 0;
  while (!frontier.empty()) {
    const uint64_t page = frontier.front();
    frontier.pop_front();
    for (const Link& link : Layout(page).links) {
      if (!IsFollowablePage(link) || depth[link.target] >= 0) continue;
      depth[link.target] = depth[page] + 1;
      frontier.push_back(link.target);
    }
  }
  return depth;
}

std::vector<uint64_t> SiteGraph::PagesWithinDepth(int64_t max_depth) const {
  const std::vector<int64_t> depth = Depths();
  std::vector<uint64_t> pages;
  for (uint64_t page = 0; page < pages_; ++page) {
    if (depth[page] >= 0 && (max_depth < 0 || depth[page] <= max_depth)) pages.push_back(page);
  }
  return pages;
}

std::vector<Link> SiteGraph::LinkedFiles() const {
  std::vector<Link> files;
  for (uint64_t page : PagesWithinDepth(-1)) {
    for (const Link& link : Layout(page).links) {
      if (IsFile(link)) files.push_back({.kind = link.kind, .target = link.target});
    }
  }
  const auto key = [](const Link& link) { return std::make_tuple(link.kind, link.target); };
  std::sort(files.begin(), files.end(),
            [&](const Link& a, const Link& b) { return key(a) < key(b); });
  files.erase(std::unique(files.begin(), files.end(),
                          [&](const Link& a, const Link& b) { return key(a) == key(b); }),
              files.end());
  return files;
}

}  // namespace testsite
