// The `crawl` program's log on stderr: UTC ISO 8601 timestamps, NO_COLOR on a
// terminal, and --log-format json (one object per line, the progress line
// included).
#include <fcntl.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <regex>
#include <sstream>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "e2e/binary_crawl.h"
#include "gtest/gtest.h"

namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// "2026-11-25T21:30:00.123Z" within ten minutes of now.
void ExpectRecentUtc(const std::string& stamp) {
  absl::Time time;
  std::string error;
  ASSERT_TRUE(absl::ParseTime("%Y-%m-%dT%H:%M:%E3SZ", stamp, absl::UTCTimeZone(), &time, &error))
      << stamp << ": " << error;
  EXPECT_LT(absl::AbsDuration(absl::Now() - time), absl::Minutes(10)) << stamp;
}

TEST(Log, TextLinesStartWithAUtcIso8601Timestamp) {
  auto site = e2e::StartSmallSite({});
  ASSERT_NE(site, nullptr);
  const e2e::BinaryCrawl crawl =
      e2e::RunCrawlBinary("log_text", {site->BaseUrl() + "/"}, {"--quiet=false"});
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  const std::regex line_shape(
      R"(^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (trace|debug|info|warning|error|critical) .+)");
  const std::vector<std::string> lines = Lines(crawl.run.err);
  ASSERT_GE(lines.size(), 2u) << crawl.run.err;  // at least the progress and done lines
  for (const std::string& line : lines) {
    std::smatch match;
    ASSERT_TRUE(std::regex_match(line, match, line_shape)) << line;
    ExpectRecentUtc(match[1]);
  }
  EXPECT_EQ(crawl.run.err.find('\x1b'), std::string::npos);  // not a terminal: no colors
}

TEST(Log, JsonFormatIsOneObjectPerLineProgressIncluded) {
  auto site = e2e::StartSmallSite({});
  ASSERT_NE(site, nullptr);
  const e2e::BinaryCrawl crawl =
      e2e::RunCrawlBinary("log_json", {site->BaseUrl() + "/", site->BaseUrl() + "/missing"},
                          {"--quiet=false", "--log-format", "json"});
  EXPECT_EQ(crawl.run.exit_code, 0) << crawl.run.err;
  bool progress = false;
  bool done = false;
  const std::vector<std::string> lines = Lines(crawl.run.err);
  ASSERT_GE(lines.size(), 2u) << crawl.run.err;
  for (const std::string& line : lines) {
    const nlohmann::json object = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(object.is_object()) << line;
    ASSERT_EQ(object.size(), 3u) << line;
    ASSERT_TRUE(object["time"].is_string() && object["level"].is_string() &&
                object["message"].is_string())
        << line;
    ExpectRecentUtc(object["time"]);
    const std::string message = object["message"];
    if (std::regex_search(message, std::regex(R"(^\d+ pages  .* queued \d+)"))) progress = true;
    if (message.rfind("done (drained)", 0) == 0) done = true;
  }
  EXPECT_TRUE(progress) << crawl.run.err;
  EXPECT_TRUE(done) << crawl.run.err;
}

TEST(Log, AJsonLogKeepsTheExitReasonAJsonLine) {
  const std::string dir = e2e::FreshDir("log_json_exit");
  // Nothing listens on port 9 of loopback: every seed dead, exit 3 with a reason.
  const e2e::CommandResult run =
      e2e::RunProgram("crawl", {"http://127.0.0.1:9/", "--out", dir + "/out", "--log-format",
                                "json", "--retries", "0", "--robots", "off"});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  const std::vector<std::string> lines = Lines(run.err);
  ASSERT_FALSE(lines.empty());
  for (const std::string& line : lines) {
    EXPECT_TRUE(nlohmann::json::accept(line)) << line;
  }
  EXPECT_NE(lines.back().find("(exit 3)"), std::string::npos) << run.err;
}

// Runs `crawl args` with stderr (and stdout) on a pseudo-terminal, as a user
// at a terminal would, with NO_COLOR set to `no_color` (null: unset).
std::string RunOnTerminal(const std::vector<std::string>& args, const char* no_color) {
  int master = -1;
  int slave = -1;
  if (::openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) return "openpty failed";
  const std::string path = std::string(CRAWL_BIN_DIR) + "/crawl";
  std::vector<std::string> storage = {path};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : storage) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(master);
    const int null_in = ::open("/dev/null", O_RDONLY);
    ::dup2(null_in, 0);
    ::dup2(slave, 1);
    ::dup2(slave, 2);
    ::setenv("TERM", "xterm", 1);  // spdlog colors only terminals it knows
    if (no_color == nullptr) {
      ::unsetenv("NO_COLOR");
    } else {
      ::setenv("NO_COLOR", no_color, 1);
    }
    ::execv(path.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(slave);
  std::string out;
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(master, buffer, sizeof buffer);
    if (got <= 0) break;  // EIO once the child closed the terminal
    out.append(buffer, static_cast<size_t>(got));
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}

// An SGR (color) escape: ESC [ digits and ';' then 'm'.
bool HasColor(const std::string& text) {
  return std::regex_search(text, std::regex("\x1b\\[[0-9;]*m"));
}

TEST(Log, NoColorTurnsOffColorsOnATerminal) {
  // A warning (a bad seed line) and the info lines, at a terminal.
  const std::string dir = e2e::FreshDir("log_no_color");
  const std::string seeds = e2e::WriteFile(dir, "seeds.txt", "not a url\nhttp://127.0.0.1:9/\n");
  const auto args = [&](const std::string& out) {
    return std::vector<std::string>{"--seeds", seeds,       "--out", dir + "/" + out, "--robots",
                                    "off",     "--retries", "0",     "--quiet"};
  };
  const std::string colored = RunOnTerminal(args("unset"), nullptr);
  EXPECT_TRUE(HasColor(colored)) << colored;  // the test can tell
  const std::string empty_value = RunOnTerminal(args("empty"), "");
  EXPECT_TRUE(HasColor(empty_value)) << empty_value;  // NO_COLOR="" does not count
  const std::string plain = RunOnTerminal(args("set"), "1");
  EXPECT_FALSE(HasColor(plain)) << plain;
  EXPECT_NE(plain.find("not a url"), std::string::npos) << plain;
}

}  // namespace
