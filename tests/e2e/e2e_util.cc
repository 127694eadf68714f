#include "e2e/e2e_util.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "crawler/crawl.h"

namespace e2e {

std::string FreshDir(const std::string& name) {
  static std::atomic<int> counter{0};
  const auto dir = std::filesystem::temp_directory_path() /
                   absl::StrCat("crawl-e2e-", ::getpid(), "-", counter++, "-", name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

crawler::CrawlOptions FastOptions(const std::string& test_name) {
  crawler::CrawlOptions options;
  options.expected = 100000;
  options.fp_rate = 0.0001;  // no false positives at these sizes (~1e-4 x 1000 pages)
  options.delay_s = 0;
  options.per_host = 8;
  options.connections = 8;
  options.threads = 2;
  options.quiet = true;
  options.timeout_s = 10;
  options.connect_timeout_s = 5;
  options.robots = false;
  options.out_dir = FreshDir(test_name);
  options.spill_dir = options.out_dir + "/spill";
  return options;
}

absl::StatusOr<crawler::CrawlSummary> Crawl(const crawler::CrawlOptions& options,
                                            const std::vector<std::string>& seeds) {
  auto crawl = crawler::Crawler::Create(options, seeds);
  if (!crawl.ok()) return crawl.status();
  return (*crawl)->Run();
}

std::vector<nlohmann::json> ReadPages(const std::string& out_dir) {
  std::ifstream in(std::filesystem::path(out_dir) / "pages.jsonl");
  std::vector<nlohmann::json> pages;
  for (std::string line; std::getline(in, line);) pages.push_back(nlohmann::json::parse(line));
  return pages;
}

nlohmann::json ReadSummary(const std::string& out_dir) {
  std::ifstream in(std::filesystem::path(out_dir) / "summary.json");
  return nlohmann::json::parse(in);
}

std::string PathOf(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t start = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (start == std::string::npos) return "/";
  const size_t end = url.find_first_of("?#", start);
  return url.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string WriteFile(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::path(dir) / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

namespace {

// Reads both pipes until EOF without deadlocking on a full one.
void Drain(int out_fd, int err_fd, std::string* out, std::string* err) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  int open = 2;
  char buf[65536];
  while (open > 0) {
    if (::poll(fds, 2, -1) < 0) return;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP)) == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof(buf));
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      } else {
        (i == 0 ? out : err)->append(buf, static_cast<size_t>(n));
      }
    }
  }
}

}  // namespace

CommandResult RunProgram(const std::string& program, const std::vector<std::string>& args,
                         const std::string& stdin_text, int time_limit_s) {
  CommandResult result;
  const std::string path = std::string(CRAWL_BIN_DIR) + "/" + program;
  const std::string input_path = WriteFile(FreshDir("stdin"), "stdin", stdin_text);
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0) return result;
  std::vector<std::string> argv_storage = {path};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int in_fd = ::open(input_path.c_str(), O_RDONLY);
    ::dup2(in_fd, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    if (time_limit_s > 0) ::alarm(static_cast<unsigned>(time_limit_s));  // survives execv
    ::execv(path.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  Drain(out_pipe[0], err_pipe[0], &result.out, &result.err);
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  result.max_rss_kb = usage.ru_maxrss;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

namespace {

// An RFC 3339 UTC time ("...T12:00:00.123Z", any fraction) on the steady clock.
std::optional<std::chrono::steady_clock::time_point> SteadyTimeOf(const std::string& text) {
  absl::Time time;
  std::string error;
  if (!absl::ParseTime("%Y-%m-%dT%H:%M:%E*SZ", text, absl::UTCTimeZone(), &time, &error)) {
    return std::nullopt;
  }
  // One reading of both clocks maps the one onto the other.
  const auto system_now = std::chrono::system_clock::now();
  const auto steady_now = std::chrono::steady_clock::now();
  return steady_now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                          absl::ToChronoTime(time) - system_now);
}

// The whole of a gzip file (every member), inflated.
std::string ReadGzip(const std::string& path) {
  std::string text;
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return text;
  char buffer[1 << 16];
  for (int n; (n = gzread(file, buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  gzclose(file);
  return text;
}

// The value of header `name` in a WARC header block, or "".
std::string WarcField(const std::string& header, const std::string& name) {
  const std::string key = "\r\n" + name + ": ";
  const size_t at = header.find(key);
  if (at == std::string::npos) return "";
  const size_t begin = at + key.size();
  return header.substr(begin, header.find("\r\n", begin) - begin);
}

}  // namespace

std::optional<std::chrono::steady_clock::time_point> FetchStart(const nlohmann::json& page) {
  if (!page.contains("fetched_at") || !page["fetched_at"].is_string()) return std::nullopt;
  return SteadyTimeOf(page["fetched_at"].get<std::string>());
}

std::optional<std::chrono::steady_clock::time_point> WarcFetchStart(const std::string& warc_gz,
                                                                    const std::string& url) {
  const std::string warc = ReadGzip(warc_gz);
  // Each record opens with "WARC/1.x" and its header block ends at a blank
  // line; a header found inside a record's block is another record's.
  for (size_t at = warc.find("WARC/1."); at != std::string::npos;) {
    const size_t end = warc.find("\r\n\r\n", at);
    if (end == std::string::npos) break;
    const std::string header = warc.substr(at, end + 2 - at);
    if (WarcField(header, "WARC-Target-URI") == url) {
      return SteadyTimeOf(WarcField(header, "WARC-Date"));
    }
    const std::string length = WarcField(header, "Content-Length");
    at = warc.find("WARC/1.", end + 4 + std::strtoull(length.c_str(), nullptr, 10));
  }
  return std::nullopt;
}

}  // namespace e2e
