#include "e2e/crawl_child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <utility>

#include "absl/strings/str_split.h"
#include "e2e/binary_crawl.h"
#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace e2e {

CrawlChild StartCrawlChild(const std::string& name, const std::vector<std::string>& seeds,
                           const std::string& frontier, const std::vector<std::string>& extra) {
  const std::string dir = FreshDir(name);
  CrawlChild child;
  child.out_dir = dir + "/out";
  std::vector<std::string> args = {std::string(CRAWL_BIN_DIR) + "/crawl"};
  const std::vector<std::string> flags = LoopbackCrawlFlags(dir, seeds);
  args.insert(args.end(), flags.begin(), flags.end());
  const std::vector<std::string> one_at_a_time = {"--per-host", "1",          "--connections",
                                                  "1",          "--frontier", frontier};
  args.insert(args.end(), one_at_a_time.begin(), one_at_a_time.end());
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

std::set<std::string> LoggedUrls(const std::vector<CrawlChild>& children) {
  std::set<std::string> urls;
  for (const CrawlChild& child : children) {
    std::ifstream in(child.out_dir + "/pages.jsonl");
    for (std::string line; std::getline(in, line);) {
      nlohmann::json page = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (page.is_object() && page.contains("url")) urls.insert(page["url"].get<std::string>());
    }
  }
  return urls;
}

void KillHolderAndAwaitTheOthers(std::vector<CrawlChild>& children, const std::string& holder) {
  const std::vector<std::string> fields = absl::StrSplit(holder, ':');
  size_t victim = children.size();
  for (size_t i = 0; fields.size() == 3 && i < children.size(); ++i) {
    if (std::to_string(children[i].pid) == fields[1]) victim = i;
  }
  if (victim == children.size()) {  // none to kill: no child may outlive the test
    for (const CrawlChild& child : children) {
      kill(child.pid, SIGKILL);
      waitpid(child.pid, nullptr, 0);
    }
    FAIL() << "host lease holder '" << holder << "' is none of the children";
  }
  std::swap(children[0], children[victim]);
  ASSERT_EQ(kill(children[0].pid, SIGKILL), 0);
  int status = 0;
  waitpid(children[0].pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status));
  for (size_t i = 1; i < children.size(); ++i) {
    waitpid(children[i].pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "process " << i;
    EXPECT_EQ(ReadSummary(children[i].out_dir)["stop_reason"], "drained") << "process " << i;
  }
}

}  // namespace e2e
