#include "reference_crawl.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <deque>
#include <optional>
#include <utility>

namespace testsite_test {
namespace {

// RFC 3986, 5.2.4, for an absolute path.
std::string RemoveDotSegments(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 1;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    const std::string segment = path.substr(start, slash - start);
    const bool last = slash == path.size();
    if (segment == "..") {
      if (!out.empty()) out.pop_back();
      if (last) out.push_back("");
    } else if (segment == ".") {
      if (last) out.push_back("");
    } else {
      out.push_back(segment);
    }
    start = slash + 1;
  }
  std::string result;
  for (const std::string& segment : out) result += "/" + segment;
  return result.empty() ? "/" : result;
}

// The attributes of each <tag ...> in `html`, e.g. ` href="/p/1.html"`. The
// site writes lowercase tags and double-quoted values; this is not a parser.
std::vector<std::string> TagAttributes(const std::string& html, const std::string& tag) {
  std::vector<std::string> tags;
  const std::string open = "<" + tag;
  for (size_t at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    const size_t start = at + open.size();
    if (start >= html.size() || (html[start] != ' ' && html[start] != '\n')) continue;
    const size_t end = html.find('>', start);
    if (end == std::string::npos) break;
    tags.push_back(html.substr(start, end - start));
  }
  return tags;
}

// The value of name="..." in `attributes`, or nullopt.
std::optional<std::string> Attribute(const std::string& attributes, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const size_t at = attributes.find(key);
  if (at == std::string::npos) return std::nullopt;
  const size_t start = at + key.size();
  const size_t end = attributes.find('"', start);
  if (end == std::string::npos) return std::nullopt;
  return attributes.substr(start, end - start);
}

std::string BaseHrefOf(const std::string& html) {
  for (const std::string& attributes : TagAttributes(html, "base")) {
    if (auto href = Attribute(attributes, "href")) return *href;
  }
  return "";
}

}  // namespace

std::string PathOf(const testsite::TestSite& site, const std::string& url) {
  const std::string base = site.BaseUrl();
  if (url.rfind(base, 0) != 0) return "";
  const std::string rest = url.substr(base.size());
  return rest.empty() ? "/" : rest;
}

std::set<std::string> Paths(const testsite::TestSite& site, const std::vector<std::string>& urls) {
  std::set<std::string> paths;
  for (const std::string& url : urls) paths.insert(PathOf(site, url));
  return paths;
}

std::unique_ptr<testsite::TestSite> StartOrDie(const testsite::SiteOptions& options) {
  auto site = testsite::TestSite::Start(options);
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

std::vector<std::string> FollowableHrefs(const std::string& html) {
  std::vector<std::string> hrefs;
  for (const std::string& attributes : TagAttributes(html, "a")) {
    const std::optional<std::string> rel = Attribute(attributes, "rel");
    if (rel && rel->find("nofollow") != std::string::npos) continue;
    if (auto href = Attribute(attributes, "href")) hrefs.push_back(*href);
  }
  return hrefs;
}

std::string ResolveHref(const std::string& base_url, const std::string& base_path,
                        const std::string& href) {
  std::string target = href.substr(0, href.find('#'));
  if (target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0) {
    if (target.rfind(base_url, 0) != 0) return "";
    target = target.substr(base_url.size());
    return target.empty() ? "/" : RemoveDotSegments(target);
  }
  if (target.find(':') != std::string::npos) return "";  // mailto:, javascript:
  if (target.empty()) return base_path;
  if (target[0] == '/') return RemoveDotSegments(target);
  const std::string directory = base_path.substr(0, base_path.rfind('/') + 1);
  return RemoveDotSegments(directory + target);
}

// Breadth-first with 0/1 edge weights (a link is one hop, a redirect none):
// zero-weight discoveries go to the front of the queue, and a path found again
// at a smaller depth is queued again and its stale entry skipped.
CrawlResult ReferenceCrawl(const testsite::TestSite& site, int max_depth) {
  httplib::Client client(site.options().host, site.port());
  client.set_keep_alive(true);
  CrawlResult result;
  std::map<std::string, int> depth_of{{"/", 0}};
  std::set<std::string> fetched;
  std::deque<std::pair<std::string, int>> queue{{"/", 0}};
  while (!queue.empty()) {
    auto [path, depth] = queue.front();
    queue.pop_front();
    if (depth != depth_of[path] || !fetched.insert(path).second) continue;
    const httplib::Result response = client.Get(path);
    if (!response) {
      result.errors.push_back(path + ": " + httplib::to_string(response.error()));
      continue;
    }
    std::vector<std::string> next;
    int hop = 1;
    if (response->status >= 300 && response->status < 400) {
      result.redirects.insert(path);
      next.push_back(ResolveHref(site.BaseUrl(), path, response->get_header_value("Location")));
      hop = 0;
    } else if (response->status != 200) {
      result.errors.push_back(path + ": " + std::to_string(response->status));
      continue;
    } else if (response->get_header_value("Content-Type").rfind("text/html", 0) != 0) {
      result.non_html.insert(path);
    } else {
      result.html_depth[path] = depth;
      if (max_depth >= 0 && depth >= max_depth) continue;
      const std::string base_href = BaseHrefOf(response->body);
      const std::string base_path =
          base_href.empty() ? path : ResolveHref(site.BaseUrl(), path, base_href);
      for (const std::string& href : FollowableHrefs(response->body)) {
        next.push_back(ResolveHref(site.BaseUrl(), base_path, href));
      }
    }
    for (std::string& found : next) {
      if (found.empty()) continue;
      const auto known = depth_of.find(found);
      if (known != depth_of.end() && known->second <= depth + hop) continue;
      depth_of[found] = depth + hop;
      if (hop == 0) {
        queue.emplace_front(std::move(found), depth);
      } else {
        queue.emplace_back(std::move(found), depth + 1);
      }
    }
  }
  return result;
}

}  // namespace testsite_test
