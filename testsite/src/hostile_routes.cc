#include "hostile_routes.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "content_types.h"

namespace testsite {
namespace {

constexpr char kCalendarStart[] = "/cal/2000-01-01";

std::string SmallPage(const std::string& title, const std::string& links) {
  return absl::StrCat("<!DOCTYPE html>\n<html><head><title>", title, "</title></head>\n<body><h1>",
                      title, "</h1>\n", links, "</body></html>\n");
}

std::string Anchor(const std::string& href) {
  return absl::StrCat("<a href=\"", href, "\">", href, "</a>\n");
}

// Sets the body through a content provider (sent as is, never compressed).
void SetBody(httplib::Response& response, std::string body, const char* content_type) {
  auto shared = std::make_shared<const std::string>(std::move(body));
  response.set_content_provider(shared->size(), content_type,
                                [shared](size_t offset, size_t length, httplib::DataSink& sink) {
                                  return sink.write(shared->data() + offset, length);
                                });
}

// "/cal/2000-01-31" -> "/cal/2000-02-01"; nullopt when not a valid date path.
std::optional<std::string> NextCalendarPath(const std::string& path) {
  int y = 0;
  unsigned m = 0;
  unsigned d = 0;
  char tail = 0;
  if (std::sscanf(path.c_str(), "/cal/%4d-%2u-%2u%c", &y, &m, &d, &tail) != 3) return std::nullopt;
  const std::chrono::year_month_day day{std::chrono::year{y}, std::chrono::month{m},
                                        std::chrono::day{d}};
  if (!day.ok() || path.size() != 15) return std::nullopt;
  const std::chrono::year_month_day next{std::chrono::sys_days{day} + std::chrono::days{1}};
  char buf[32];
  std::snprintf(buf, sizeof(buf), "/cal/%04d-%02u-%02u", static_cast<int>(next.year()),
                static_cast<unsigned>(next.month()), static_cast<unsigned>(next.day()));
  return std::string(buf);
}

// The host of the million links: another loopback address, so the links are
// off the site's host (and never fetched by a host-scoped crawl).
std::string OtherHostBase(const std::string& base_url) {
  const std::string other = absl::StrContains(base_url, "//127.0.0.2:") ? "127.0.0.3" : "127.0.0.2";
  const size_t colon = base_url.rfind(':');
  return absl::StrCat("http://", other, base_url.substr(colon));
}

// HTTP/1.1 status line and headers; `content_type` may be empty (none sent).
std::string RawHead(const std::string& content_type, size_t content_length) {
  std::string head = "HTTP/1.1 200 OK\r\nConnection: close\r\n";
  if (!content_type.empty()) absl::StrAppend(&head, "Content-Type: ", content_type, "\r\n");
  absl::StrAppend(&head, "Content-Length: ", content_length, "\r\n\r\n");
  return head;
}

}  // namespace

HostileRoutes::HostileRoutes(const SiteOptions& options, std::string base_url,
                             std::string raw_base_url, const StopSignal& stop)
    : options_(options),
      base_url_(std::move(base_url)),
      raw_base_url_(std::move(raw_base_url)),
      stop_(stop) {}

bool HostileRoutes::NeedsRawServer(const SiteOptions& options) {
  return options.resets || options.gzip_bomb || options.bad_content;
}

std::string HostileRoutes::RootLinksHtml() const {
  std::string html = "<ul class=\"hostile\">\n";
  auto add = [&html](const std::string& href) { absl::StrAppend(&html, "<li>", Anchor(href)); };
  if (options_.resets) {
    add(raw_base_url_ + "/reset/headers");
    add(raw_base_url_ + "/reset/body");
  }
  if (options_.drip) add("/drip");
  if (options_.flaky) {
    for (const char* kind : {"500", "502", "503", "504", "reset"})
      add(absl::StrCat("/flaky/", kind));
  }
  if (options_.redirect_traps) {
    add("/loop/a");
    add("/chain/0");
  }
  if (options_.huge_body) add("/huge");
  if (options_.gzip_bomb) add(raw_base_url_ + "/bomb");
  if (options_.bad_content) {
    add(raw_base_url_ + "/ct/missing");
    for (const char* path : {"/ct/wrong", "/cs/bad-utf8", "/cs/unknown"}) add(path);
  }
  if (options_.deep_nesting) add("/deep");
  if (options_.million_links) add("/million");
  if (options_.calendar) add(kCalendarStart);
  if (options_.growing_urls) add("/grow/");
  if (options_.odd_schemes) {
    for (const char* href :
         {"mailto:someone@example.invalid", "javascript:alert(1)", "data:text/html,hello",
          "tel:+15555550100", "ftp://127.0.0.1/trap/ftp", "file:///etc/passwd",
          "ws://127.0.0.1/trap/ws", "gopher://127.0.0.1/trap/gopher"}) {
      add(href);
    }
  }
  return html + "</ul>\n";
}

bool HostileRoutes::Serve(const std::string& path, httplib::Response& response) const {
  if (options_.drip && path == "/drip") {
    response.status = 200;
    SetDripBody(response, options_.drip_interval_ms, stop_);
    return true;
  }
  if (options_.huge_body && path == "/huge") {
    response.status = 200;
    SetHugeBody(response, options_.huge_body_bytes, stop_);
    return true;
  }
  if (options_.million_links && path == "/million") {
    response.status = 200;
    SetMillionLinksBody(response, options_.million_links_count, OtherHostBase(base_url_), stop_);
    return true;
  }
  return ServeFlaky(path, response) || ServeRedirectTrap(path, response) ||
         ServeBadContent(path, response) || ServeDeep(path, response) ||
         ServeCalendar(path, response) || ServeGrowing(path, response);
}

bool HostileRoutes::FailsThisTime(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mu_);
  return ++flaky_requests_[path] <= options_.flaky_failures;
}

bool HostileRoutes::ServeFlaky(const std::string& path, httplib::Response& response) const {
  if (!options_.flaky || !absl::StartsWith(path, "/flaky/")) return false;
  const std::string kind = path.substr(7);
  int code = 0;
  if (kind != "reset" && (!absl::SimpleAtoi(kind, &code) || code < 500 || code > 504)) {
    return false;
  }
  if (!FailsThisTime(path)) {
    response.status = 200;
    SetBody(response, SmallPage(absl::StrCat("Flaky ", kind, " recovered"), ""), kHtml);
  } else if (kind == "reset") {
    // Headers and 1 KiB of a promised 10 KiB, then the connection is dropped.
    response.status = 200;
    response.set_content_provider(10240, kHtml, [](size_t offset, size_t, httplib::DataSink& sink) {
      if (offset > 0) return false;
      const std::string prefix(1024, ' ');
      return sink.write(prefix.data(), prefix.size());
    });
  } else {
    response.status = code;
    SetBody(response, SmallPage(absl::StrCat("Error ", code), ""), kHtml);
  }
  return true;
}

bool HostileRoutes::ServeRedirectTrap(const std::string& path, httplib::Response& response) const {
  if (!options_.redirect_traps) return false;
  if (path == "/loop/a" || path == "/loop/b") {
    response.set_redirect(path == "/loop/a" ? "/loop/b" : "/loop/a", 302);
    return true;
  }
  int hop = 0;
  if (!absl::StartsWith(path, "/chain/") || !absl::SimpleAtoi(path.substr(7), &hop) || hop < 0 ||
      hop > options_.redirect_chain) {
    return false;
  }
  if (hop == options_.redirect_chain) {
    response.status = 200;
    SetBody(response, SmallPage("End of the chain", ""), kHtml);
  } else {
    response.set_redirect(absl::StrCat(base_url_, "/chain/", hop + 1), 302);
  }
  return true;
}

bool HostileRoutes::ServeBadContent(const std::string& path, httplib::Response& response) const {
  if (!options_.bad_content) return false;
  if (path == "/ct/wrong") {  // HTML labelled as an image: not to be parsed
    response.status = 200;
    SetBody(response, SmallPage("Not a PNG", Anchor("/trap/ct-wrong")), "image/png");
  } else if (path == "/cs/bad-utf8") {
    response.status = 200;
    SetBody(response,
            SmallPage("Bad \xff\xfe UTF-8 \xc3\x28 \xed\xa0\x80",
                      absl::StrCat("<p>\xf8\x88\x80\x80\x80 ", Anchor("/cs/target/1"), "</p>")),
            kHtml);
  } else if (path == "/cs/unknown") {
    response.status = 200;
    SetBody(response, SmallPage("Klingon", Anchor("/cs/target/2")), "text/html; charset=x-klingon");
  } else if (path == "/cs/target/1" || path == "/cs/target/2") {
    response.status = 200;
    SetBody(response, SmallPage("Charset target", ""), kHtml);
  } else {
    return false;
  }
  return true;
}

bool HostileRoutes::ServeDeep(const std::string& path, httplib::Response& response) const {
  if (!options_.deep_nesting) return false;
  if (path == "/deep/top" || path == "/deep/bottom") {
    response.status = 200;
    SetBody(response, SmallPage("Deep target", ""), kHtml);
    return true;
  }
  if (path != "/deep") return false;
  const auto depth = static_cast<size_t>(options_.nesting_depth);
  std::string html = "<!DOCTYPE html><html><body>" + Anchor("/deep/top");
  html.reserve(html.size() + 11 * depth + 64);
  for (size_t i = 0; i < depth; ++i) html += "<div>";
  html += Anchor("/deep/bottom");
  for (size_t i = 0; i < depth; ++i) html += "</div>";
  html += "</body></html>\n";
  response.status = 200;
  SetBody(response, std::move(html), kHtml);
  return true;
}

bool HostileRoutes::ServeCalendar(const std::string& path, httplib::Response& response) const {
  if (!options_.calendar) return false;
  const std::optional<std::string> next = NextCalendarPath(path);
  if (!next) return false;
  response.status = 200;
  SetBody(response, SmallPage(path.substr(5), Anchor(*next)), kHtml);
  return true;
}

bool HostileRoutes::ServeGrowing(const std::string& path, httplib::Response& response) const {
  if (!options_.growing_urls || !absl::StartsWith(path, "/grow/")) return false;
  for (size_t i = 6; i < path.size(); i += 2) {
    if (path.compare(i, 2, "x/") != 0) return false;
  }
  response.status = 200;
  SetBody(response, SmallPage("Growing", Anchor("x/")), kHtml);
  return true;
}

RawServer::Ending HostileRoutes::ServeRaw(int fd, const std::string& path, int* status) const {
  *status = 200;
  if (options_.resets && path == "/reset/headers") {
    *status = 0;  // the status line went out, the header block never ended
    SendAll(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/ht");
    return RawServer::kReset;
  }
  if (options_.resets && path == "/reset/body") {
    SendAll(fd, RawHead(kHtml, 100 << 10) + std::string(1024, ' '));
    return RawServer::kReset;
  }
  if (options_.gzip_bomb && path == "/bomb") {
    SendGzipBomb(fd, options_.bomb_decoded_bytes);
    return RawServer::kClose;
  }
  if (options_.bad_content && path == "/ct/missing") {
    const std::string body = SmallPage("No content type", Anchor("/trap/ct-missing"));
    SendAll(fd, RawHead("", body.size()) + body);
    return RawServer::kClose;
  }
  *status = 404;
  const std::string body = SmallPage("404 Not Found", "");
  SendAll(fd, absl::StrCat("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Type: ", kHtml,
                           "\r\nContent-Length: ", body.size(), "\r\n\r\n", body));
  return RawServer::kClose;
}

}  // namespace testsite
