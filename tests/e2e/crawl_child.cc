#include "e2e/crawl_child.h"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>

#include "absl/strings/str_join.h"
#include "e2e/e2e_util.h"
#include "nlohmann/json.hpp"

namespace e2e {

CrawlChild StartCrawlChild(const std::string& name, const std::vector<std::string>& seeds,
                           const std::string& frontier, const std::vector<std::string>& extra) {
  const std::string dir = FreshDir(name);
  CrawlChild child;
  child.out_dir = dir + "/out";
  const std::string seed_file = WriteFile(dir, "seeds.txt", absl::StrJoin(seeds, "\n") + "\n");
  std::vector<std::string> args = {std::string(CRAWL_BIN_DIR) + "/crawl",
                                   "--seeds",
                                   seed_file,
                                   "--out",
                                   child.out_dir,
                                   "--spill-dir",
                                   dir + "/spill",
                                   "--expected",
                                   "100000",
                                   "--fp-rate",
                                   "0.0001",
                                   "--delay",
                                   "0",
                                   "--per-host",
                                   "1",
                                   "--connections",
                                   "1",
                                   "--robots",
                                   "off",
                                   "--timeout",
                                   "3s",
                                   "--retry-backoff",
                                   "10ms",
                                   "--quiet",
                                   "--frontier",
                                   frontier};
  args.insert(args.end(), extra.begin(), extra.end());
  child.pid = fork();
  if (child.pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return child;
}

std::set<std::string> LoggedUrls(const std::string& out_dir) {
  std::set<std::string> urls;
  std::ifstream in(out_dir + "/pages.jsonl");
  for (std::string line; std::getline(in, line);) {
    nlohmann::json page = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (page.is_object() && page.contains("url")) urls.insert(page["url"].get<std::string>());
  }
  return urls;
}

}  // namespace e2e
