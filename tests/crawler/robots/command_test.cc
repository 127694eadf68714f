// `crawl robots` through RunRobotsCommand: output lines, --batch, exit codes.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "crawler/robots_command.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

struct Result {
  int code;
  std::string out;
  std::string err;
};

class RobotsCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("robots_command_test_" + std::to_string(::getpid()) + ".txt");
    std::ofstream(path_) << "User-agent: *\nDisallow: /\n\nUser-agent: ExampleBot\n"
                            "Disallow: /private\n";
  }
  void TearDown() override { std::filesystem::remove(path_); }

  Result Run(std::vector<std::string> args, const std::string& stdin_text = "") {
    args.insert(args.begin(), "robots");
    std::vector<const char*> argv;
    for (const std::string& arg : args) argv.push_back(arg.c_str());
    std::istringstream in(stdin_text);
    std::ostringstream out;
    std::ostringstream err;
    const int code = RunRobotsCommand(static_cast<int>(argv.size()), argv.data(), in, out, err);
    return {code, out.str(), err.str()};
  }

  std::filesystem::path path_;
};

TEST_F(RobotsCommandTest, PrintsAVerdictPerUrlForTheAgent) {
  Result r = Run({"--file", path_.string(), "--agent", "examplebot", "https://a.example/private/1",
                  "https://a.example/public"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "disallow\thttps://a.example/private/1\nallow\thttps://a.example/public\n");
}

TEST_F(RobotsCommandTest, DefaultAgentFallsBackToStarGroup) {
  Result r =
      Run({"--file=" + path_.string(), "https://a.example/public", "https://a.example/robots.txt"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "disallow\thttps://a.example/public\nallow\thttps://a.example/robots.txt\n");
}

TEST_F(RobotsCommandTest, BatchReadsUrlsFromStdin) {
  Result r = Run({"--file", path_.string(), "--agent=ExampleBot/2.0", "--batch"},
                 "https://a.example/private\r\n\n  https://b.example/x  \n");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "disallow\thttps://a.example/private\nallow\thttps://b.example/x\n");
}

TEST_F(RobotsCommandTest, BadUrlReportedOthersStillAnswered) {
  Result r = Run({"--file", path_.string(), "not a url", "https://a.example/x"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "disallow\thttps://a.example/x\n");
  EXPECT_NE(r.err.find("'not a url' is not a URL"), std::string::npos) << r.err;
}

TEST_F(RobotsCommandTest, UnreadableFileExitsOne) {
  Result r = Run({"--file", path_.string() + ".missing", "https://a.example/"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("cannot read"), std::string::npos);
  r = Run({"--file", std::filesystem::temp_directory_path().string(), "https://a.example/"});
  EXPECT_EQ(r.code, 1);
}

TEST_F(RobotsCommandTest, EmptyFileAllowsEverything) {
  std::ofstream(path_, std::ios::trunc).flush();
  Result r = Run({"--file", path_.string(), "https://a.example/x"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "allow\thttps://a.example/x\n");
}

TEST_F(RobotsCommandTest, UsageErrorsExitTwoWithAMessage) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"https://a.example/"}, "--file is required"},
      {{"--file", path_.string()}, "no URLs given"},
      {{"--file", path_.string(), "--batch", "https://a.example/"}, "give no URLs"},
      {{"--file", path_.string(), "--frobnicate", "https://a.example/"}, "unknown option"},
      {{"--file"}, "--file needs a value"},
      {{"--file", path_.string(), "--agent", "/1.0", "https://a.example/"}, "no product token"},
  };
  for (const auto& [args, message] : cases) {
    Result r = Run(args);
    EXPECT_EQ(r.code, 2) << message;
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("usage: crawl robots"), std::string::npos);
  }
}

TEST_F(RobotsCommandTest, HelpPrintsUsage) {
  Result r = Run({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("usage: crawl robots"), std::string::npos);
}

}  // namespace
}  // namespace crawler
