// Fuzzes crawler/robots.h: the RFC 9309 tokenizer, RobotsRules::Parse and
// the matcher. Input: "PATH\nROBOTS_BODY": the first line is the path (and
// query) to check, the rest is the robots.txt.
// Checks the rules the RFC makes unconditional: "/robots.txt" is always
// allowed, and a file without rules allows everything.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "crawler/robots.h"
#include "crawler/url.h"

namespace {

[[noreturn]] void Fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "invariant broken: %s: '%.*s'\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

// A handler that reads every value it is given, so ASan sees any view that
// points outside the input.
class TouchingHandler : public crawler::RobotsParseHandler {
 public:
  void HandleUserAgent(int line, std::string_view token) override { Touch(line, token); }
  void HandleAllow(int line, std::string_view pattern) override { Touch(line, pattern); }
  void HandleDisallow(int line, std::string_view pattern) override { Touch(line, pattern); }
  void HandleSitemap(int line, std::string_view url) override { Touch(line, url); }
  void HandleCrawlDelay(int line, std::string_view value) override { Touch(line, value); }
  void HandleUnknown(int line, std::string_view key, std::string_view value) override {
    Touch(line, key);
    Touch(line, value);
  }
  size_t sum() const { return sum_; }

 private:
  void Touch(int line, std::string_view text) {
    if (line < last_line_) Fail("records out of line order", text);
    last_line_ = line;
    for (char c : text) sum_ += static_cast<unsigned char>(c);
  }
  int last_line_ = 0;
  size_t sum_ = 0;
};

void CheckRules(const crawler::RobotsRules& rules, std::string_view path) {
  if (!rules.IsAllowedPath("/robots.txt")) Fail("/robots.txt disallowed", path);
  const bool allowed = rules.IsAllowedPath(path);
  if (rules.rule_count() == 0 && !allowed) Fail("no rules, yet disallowed", path);
  (void)rules.crawl_delay();
  for (const std::string& sitemap : rules.sitemaps()) (void)sitemap.size();
  const std::string url_text = "https://robots.example" + std::string(path);
  absl::StatusOr<crawler::Url> url = crawler::Url::Parse(url_text);
  if (url.ok()) (void)rules.IsAllowed(*url);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view path = input.substr(0, newline);
  const std::string_view body =
      newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);

  TouchingHandler handler;
  crawler::ParseRobotsTxt(body, handler);
  TouchingHandler cut;  // a limit inside the file: the line it cuts is dropped
  crawler::ParseRobotsTxt(body, cut, body.size() / 2);

  CheckRules(crawler::RobotsRules::Parse(body, "crawl"), path);
  CheckRules(crawler::RobotsRules::Parse(body, "Googlebot/2.1 (+http://www.google.com/bot.html)"),
             path);
  (void)crawler::RobotsProductToken(path);
  return 0;
}
