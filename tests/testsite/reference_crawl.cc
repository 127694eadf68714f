#include "reference_crawl.h"

#include <httplib.h>

#include <deque>
#include <regex>
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

std::string BaseHrefOf(const std::string& html) {
  static const std::regex kBase(R"re(<base\s+href="([^"]*)")re", std::regex::icase);
  std::smatch match;
  return std::regex_search(html, match, kBase) ? match[1].str() : "";
}

}  // namespace

std::string PathOf(const testsite::TestSite& site, const std::string& url) {
  const std::string base = site.BaseUrl();
  if (url.rfind(base, 0) != 0) return "";
  const std::string rest = url.substr(base.size());
  return rest.empty() ? "/" : rest;
}

std::vector<std::string> FollowableHrefs(const std::string& html) {
  static const std::regex kAnchor(R"re(<a\s([^>]*)>)re", std::regex::icase);
  static const std::regex kHref(R"re(href="([^"]*)")re", std::regex::icase);
  static const std::regex kNofollow(R"re(rel="[^"]*nofollow)re", std::regex::icase);
  std::vector<std::string> hrefs;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), kAnchor);
       it != std::sregex_iterator(); ++it) {
    const std::string attributes = (*it)[1].str();
    std::smatch href;
    if (std::regex_search(attributes, kNofollow) || !std::regex_search(attributes, href, kHref)) {
      continue;
    }
    hrefs.push_back(href[1].str());
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
