// The testsite program: flags, --list, exit code 2 on a bad flag, serving until
// SIGTERM. Runs build/bin/testsite, so it fails (never skips) when that program
// was not built.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "testsite/web_graph.h"

extern char** environ;

namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

const std::string kProgram = std::string(CRAWL_BIN_DIR) + "/testsite";

// A running testsite with its stdout on a pipe.
struct Child {
  pid_t pid = -1;
  int stdout_fd = -1;
};

Child Spawn(const std::vector<std::string>& args) {
  int pipe_fds[2];
  EXPECT_EQ(pipe(pipe_fds), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  std::vector<char*> argv{const_cast<char*>(kProgram.c_str())};
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  Child child;
  EXPECT_EQ(posix_spawn(&child.pid, kProgram.c_str(), &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  child.stdout_fd = pipe_fds[0];
  return child;
}

// Reads one line (without '\n'), or up to EOF.
std::string ReadLine(int fd) {
  std::string line;
  char c;
  while (read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

int WaitExitCode(Child& child) {
  int status = 0;
  EXPECT_EQ(waitpid(child.pid, &status, 0), child.pid);
  close(child.stdout_fd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(kProgram)) << kProgram << " is missing: build `testsite`";
  }
};

TEST_F(CliTest, ListPrintsTheExpectedPageUrls) {
  Child child = Spawn({"--pages", "5", "--links-per-page=3", "--list", "--port", "0"});
  std::vector<std::string> lines;
  for (std::string line = ReadLine(child.stdout_fd); !line.empty();
       line = ReadLine(child.stdout_fd)) {
    lines.push_back(line);
  }
  EXPECT_EQ(WaitExitCode(child), 0);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_THAT(lines[0], MatchesRegex(R"(http://127\.0\.0\.1:[0-9]+/)"));
  EXPECT_THAT(lines[4], MatchesRegex(R"(http://127\.0\.0\.1:[0-9]+/p/4\.html)"));
}

TEST_F(CliTest, BadFlagsExitWithTwo) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--bogus"},
                                             {"--pages"},
                                             {"--pages", "many"},
                                             {"--pages", "0"},
                                             {"--latency-ms=-5"},
                                             {"--redirects=yes"}}) {
    Child child = Spawn(args);
    EXPECT_EQ(WaitExitCode(child), 2) << args[0];
  }
}

TEST_F(CliTest, ServesUntilSigterm) {
  Child child = Spawn({"--pages", "7", "--port", "0", "--redirects"});
  const std::string banner = ReadLine(child.stdout_fd);
  EXPECT_THAT(banner, MatchesRegex(R"(serving 7 pages at http://127\.0\.0\.1:[0-9]+/)"));
  const size_t colon = banner.rfind(':');
  ASSERT_NE(colon, std::string::npos);
  const int port = std::stoi(banner.substr(colon + 1));
  {
    httplib::Client client("127.0.0.1", port);
    const auto root = client.Get("/");
    ASSERT_TRUE(root);
    EXPECT_EQ(root->status, 200);
    EXPECT_THAT(root->body, HasSubstr("<title>Page 0 - testsite</title>"));
  }
  ASSERT_EQ(kill(child.pid, SIGTERM), 0);
  EXPECT_EQ(WaitExitCode(child), 0);
}

TEST_F(CliTest, HostsModeServesManyLoopbackHostsOnOnePort) {
  Child child = Spawn({"--hosts", "1e3", "--largest-host", "1000", "--port", "0"});
  const std::string banner = ReadLine(child.stdout_fd);
  EXPECT_THAT(banner,
              MatchesRegex(R"(serving 1000 hosts \([0-9]+ pages\) at )"
                           R"(http://127\.1\.0\.0:[0-9]+/ \.\.\. http://127\.1\.3\.231:[0-9]+/)"));
  const size_t colon = banner.find(':', banner.find("127.1.0.0"));
  ASSERT_NE(colon, std::string::npos);
  const int port = std::stoi(banner.substr(colon + 1));
  {
    const auto root = httplib::Client("127.1.0.3", port).Get("/");
    ASSERT_TRUE(root);
    EXPECT_EQ(root->status, 200);
    EXPECT_THAT(root->body, HasSubstr("<title>127.1.0.3 page 0</title>"));
  }
  EXPECT_THAT(ReadLine(child.stdout_fd), MatchesRegex(R"(first request at [0-9]+\.[0-9]{3})"));
  std::set<uint64_t> hosts;  // those host 3's root links to, with the flags' web
  for (const auto& link :
       testsite::WebGraph({.hosts = 1000, .largest_host_pages = 1000}).Links(3, 0)) {
    hosts.insert(link.host);
  }
  const size_t linked = hosts.size();
  ASSERT_EQ(kill(child.pid, SIGUSR1), 0);
  EXPECT_EQ(ReadLine(child.stdout_fd),
            "requests 1 pages 1 robots 0 not_found 0 hosts_requested 1 hosts_linked " +
                std::to_string(linked));
  ASSERT_EQ(kill(child.pid, SIGTERM), 0);
  EXPECT_EQ(WaitExitCode(child), 0);
}

TEST_F(CliTest, HostsModeBadFlagsExitWithTwo) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--hosts", "1"},
                                             {"--hosts", "1e3", "--zipf", "x"},
                                             {"--hosts", "1e3", "--pages", "5"}}) {
    Child child = Spawn(args);
    EXPECT_EQ(WaitExitCode(child), 2) << args.back();
  }
}

}  // namespace
