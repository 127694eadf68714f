#include "fetch/worker_choice.h"

#include <functional>

#include "url/find_first_of.h"

namespace crawler::fetch_internal {

std::string_view AuthorityOf(std::string_view url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return {};
  const std::string_view rest = url.substr(scheme_end + 3);
  return rest.substr(0, FindFirstOf(rest, "/?#"));
}

size_t ChooseWorker(std::string_view url, const std::vector<WorkerLoad>& workers) {
  const size_t home = std::hash<std::string_view>{}(AuthorityOf(url)) % workers.size();
  if (workers[home].load < workers[home].slots) return home;
  size_t best = home;
  for (size_t i = 0; i < workers.size(); ++i) {
    if (workers[i].load < workers[best].load) best = i;
  }
  return best;
}

}  // namespace crawler::fetch_internal
