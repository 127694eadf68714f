// Opt-in rewrites of the query (NormalizeOptions::strip_session_ids and
// sort_query). Both are our choice, not any standard's: they can merge URLs
// that a server treats as different, so they are off by default.
#include <algorithm>
#include <string_view>
#include <vector>

#include "url/find_first_of.h"
#include "url/normalize.h"

namespace crawler::url_internal {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] | 0x20) : a[i];
    const char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] | 0x20) : b[i];
    if (x != y) return false;
  }
  return true;
}

// Parameter names that carry a server session, compared case-insensitively.
bool IsSessionIdName(std::string_view name) {
  return EqualsIgnoreCase(name, "jsessionid") || EqualsIgnoreCase(name, "phpsessid") ||
         EqualsIgnoreCase(name, "sid") || EqualsIgnoreCase(name, "sessionid") ||
         (name.size() >= 12 && EqualsIgnoreCase(name.substr(0, 12), "aspsessionid"));
}

std::vector<std::string_view> SplitParams(std::string_view query) {
  std::vector<std::string_view> params;
  while (true) {
    const size_t amp = query.find('&');
    params.push_back(query.substr(0, amp));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return params;
}

// Replaces the query of `href` (after the '?' at `question`) by `params`
// joined with '&'.
void ReplaceQuery(std::string& href, size_t question, const std::vector<std::string_view>& params) {
  std::string query;
  for (size_t i = 0; i < params.size(); ++i) {
    if (i > 0) query.push_back('&');
    query.append(params[i]);
  }
  href.resize(question + 1);
  href.append(query);
}

// Removes every ";jsessionid=..." (any case) from the path, each running to
// the next '/' or '?'. Only the path: the authority may hold a ';' too.
// Returns whether it removed any.
bool StripPathSessionId(std::string& href) {
  static constexpr std::string_view kMarker = ";jsessionid=";
  const size_t authority = href.find("://");
  if (authority == std::string::npos) return false;
  const size_t path_start = href.find('/', authority + 3);
  if (path_start == std::string::npos) return false;
  bool stripped = false;
  size_t i = href.find(';', path_start);
  while (i != std::string::npos && i + kMarker.size() <= std::min(href.find('?'), href.size())) {
    if (!EqualsIgnoreCase(std::string_view(href).substr(i, kMarker.size()), kMarker)) {
      i = href.find(';', i + 1);
      continue;
    }
    size_t end = FindFirstOf(href, "/?", i);
    if (end == std::string::npos) end = href.size();
    href.erase(i, end - i);
    stripped = true;
    i = href.find(';', i);
  }
  return stripped;
}

}  // namespace

bool StripSessionIds(std::string& href) {
  const bool path_changed = StripPathSessionId(href);
  const size_t question = href.find('?');
  if (question == std::string::npos) return path_changed;
  const std::string query = href.substr(question + 1);
  std::vector<std::string_view> kept;
  const std::vector<std::string_view> params = SplitParams(query);
  for (std::string_view param : params) {
    if (!IsSessionIdName(param.substr(0, param.find('=')))) kept.push_back(param);
  }
  if (kept.size() == params.size()) return path_changed;
  if (kept.empty()) {
    href.resize(question);  // every parameter was a session id: no query at all
  } else {
    ReplaceQuery(href, question, kept);
  }
  return path_changed;
}

void SortQuery(std::string& href) {
  const size_t question = href.find('?');
  if (question == std::string::npos) return;
  const std::string query = href.substr(question + 1);
  std::vector<std::string_view> params = SplitParams(query);
  // Not stable_sort: equal parameters are the same text, so order among them
  // cannot show, and GCC 12's stable_sort buffer (new(nothrow), then a
  // free) is an ASan alloc-dealloc mismatch in CI's unity build.
  std::sort(params.begin(), params.end());
  ReplaceQuery(href, question, params);
}

}  // namespace crawler::url_internal
