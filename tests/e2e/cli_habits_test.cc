// The command-line habits a wget user brings: URLs as arguments,
// seeds on stdin, short options, a clear refusal of --out -, and the
// --metrics address checked before anything starts.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "e2e/binary_crawl.h"
#include "gtest/gtest.h"

namespace {

using e2e::RunProgram;

// Fast loopback flags for a crawl of a small site, output in `dir`/out.
std::vector<std::string> FastFlags(const std::string& dir) {
  return {"--out", dir + "/out", "--robots", "off", "--delay", "0", "--retries", "0", "--quiet"};
}

std::vector<std::string> WithMore(std::vector<std::string> args,
                                  const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(CliHabits, AUrlArgumentIsASeedWithOrWithoutSeedsFile) {
  auto site = e2e::StartSmallSite({});
  ASSERT_NE(site, nullptr);
  const std::string dir = e2e::FreshDir("cli_positional");
  const auto alone = RunProgram("crawl", WithMore({site->BaseUrl() + "/"}, FastFlags(dir)));
  EXPECT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(e2e::ReadSummary(dir + "/out")["pages"].get<int>(), 30);

  // With a seeds file: both the file's URL and the argument are crawled.
  const std::string both_dir = e2e::FreshDir("cli_positional_and_file");
  const std::string seeds = e2e::WriteFile(both_dir, "seeds.txt", site->BaseUrl() + "/\n");
  const auto both = RunProgram(
      "crawl", WithMore({"--seeds", seeds, site->BaseUrl() + "/not-linked"}, FastFlags(both_dir)));
  EXPECT_EQ(both.exit_code, 0) << both.err;
  EXPECT_EQ(e2e::ReadSummary(both_dir + "/out")["pages"].get<int>(), 31);
  EXPECT_EQ(site->RequestCount("/not-linked"), 1u);
}

TEST(CliHabits, SeedsDashAndDashIDashReadStdin) {
  auto site = e2e::StartSmallSite({});
  ASSERT_NE(site, nullptr);
  for (const std::vector<std::string>& flag :
       {std::vector<std::string>{"--seeds", "-"}, std::vector<std::string>{"-i", "-"}}) {
    const std::string dir = e2e::FreshDir("cli_stdin");
    const auto run = RunProgram("crawl", WithMore(flag, FastFlags(dir)),
                                "# from a pipe\n" + site->BaseUrl() + "/\nnot a url\n");
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.err.find("stdin:3: 'not a url' is not an http(s) URL"), std::string::npos)
        << run.err;
    EXPECT_EQ(e2e::ReadSummary(dir + "/out")["pages"].get<int>(), 30);
  }
  const std::string dir = e2e::FreshDir("cli_stdin_empty");
  const auto empty = RunProgram("crawl", WithMore({"--seeds", "-"}, FastFlags(dir)), "");
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("stdin: no valid seed URL"), std::string::npos) << empty.err;
}

TEST(CliHabits, OutDashIsAUsageErrorNamingTheFlag) {
  const std::string dir = e2e::FreshDir("cli_out_dash");
  const auto run = RunProgram("crawl", {"http://127.0.0.1:9/", "--out", "-"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--out: '-' is not a directory"), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists("-"));  // no directory named '-' made here
}

TEST(CliHabits, ABadArgumentOrMetricsAddressIsAUsageError) {
  const auto word = RunProgram("crawl", {"example.org"});
  EXPECT_EQ(word.exit_code, 2);
  EXPECT_NE(word.err.find("unexpected argument 'example.org'"), std::string::npos) << word.err;
  const auto metrics = RunProgram("crawl", {"http://127.0.0.1:9/", "--metrics", "localhost"});
  EXPECT_EQ(metrics.exit_code, 2);
  EXPECT_NE(metrics.err.find("--metrics: 'localhost'"), std::string::npos) << metrics.err;
}

TEST(CliHabits, MetricsOnPortZeroLogsTheAddressItGot) {
  auto site = e2e::StartSmallSite({});
  ASSERT_NE(site, nullptr);
  const e2e::BinaryCrawl crawl = e2e::RunCrawlBinary("cli_metrics_port", {site->BaseUrl() + "/"},
                                                     {"--metrics", "0", "--quiet=false"});
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  EXPECT_NE(crawl.run.err.find("metrics: http://127.0.0.1:"), std::string::npos) << crawl.run.err;
  EXPECT_EQ(crawl.run.err.find("listens beyond this machine"), std::string::npos);
}

TEST(CliHabits, HelpListsTheShortForms) {
  const auto help = RunProgram("crawl", {"-h"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* line : {"-q, --quiet", "-U, --user-agent TEXT", "-i, --seeds FILE",
                           "-P, --out DIR", "-w, --delay DURATION", "-V, --version"}) {
    EXPECT_NE(help.out.find(line), std::string::npos) << line;
  }
}

// Every "--flag" the help text lists.
std::set<std::string> HelpFlags() {
  const auto help = RunProgram("crawl", {"--help"});
  std::set<std::string> flags;
  const std::regex flag("--([a-z][a-z0-9-]*)");
  for (auto it = std::sregex_iterator(help.out.begin(), help.out.end(), flag);
       it != std::sregex_iterator(); ++it) {
    flags.insert((*it)[1]);
  }
  return flags;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(CliHabits, TheManPageListsEveryFlag) {
  const std::string man = ReadText(std::string(CRAWL_BIN_DIR) + "/../share/man/man1/crawl.1");
  ASSERT_NE(man.find(".TH CRAWL"), std::string::npos) << "not a man page";
  const std::set<std::string> flags = HelpFlags();
  ASSERT_GT(flags.size(), 50u);
  for (std::string flag : flags) {
    std::string roff = "\\-\\-";  // roff writes each '-' as "\-"
    for (char c : flag) roff += c == '-' ? std::string("\\-") : std::string(1, c);
    EXPECT_NE(man.find(roff), std::string::npos) << "--" << flag;
  }
  EXPECT_NE(man.find("NO_COLOR"), std::string::npos);
}

TEST(CliHabits, TheBashCompletionCompletesEveryFlagAndChoices) {
  const std::string script =
      ReadText(std::string(CRAWL_BIN_DIR) + "/../share/bash-completion/completions/crawl");
  EXPECT_EQ(script, RunProgram("crawl", {"completion", "bash"}).out);
  for (const std::string& flag : HelpFlags()) {
    EXPECT_NE(script.find(" --" + flag), std::string::npos) << "--" << flag;
  }
  EXPECT_NE(script.find("--log-format) COMPREPLY=($(compgen -W \"text json\""), std::string::npos);
  EXPECT_NE(script.find("--seeds|-i) COMPREPLY=($(compgen -f"), std::string::npos);
  EXPECT_NE(script.find("complete -F _crawl crawl"), std::string::npos);
  // bash parses it, and it completes a flag's values.
  const std::string file = e2e::WriteFile(e2e::FreshDir("completion"), "crawl.bash", script);
  EXPECT_EQ(std::system(("bash -n " + file).c_str()), 0);
  const std::string probe =
      e2e::WriteFile(e2e::FreshDir("completion_probe"), "probe.sh",
                     "source " + file + "\nCOMP_WORDS=(crawl --robots o); COMP_CWORD=2; _crawl\n" +
                         "echo \"${COMPREPLY[*]}\" > " + file + ".out\n");
  ASSERT_EQ(std::system(("bash " + probe).c_str()), 0);
  EXPECT_EQ(ReadText(file + ".out"), "on off\n");
}

}  // namespace
