#include "site_router.h"

#include <chrono>
#include <memory>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "content_types.h"
#include "site_paths.h"

namespace testsite {
namespace {

constexpr char kText[] = "text/plain; charset=utf-8";
constexpr char kPdf[] = "application/pdf";
// Bytes /stall-body sends before it stalls, out of twice as many announced.
constexpr size_t kStallBodyPrefix = 1024;

}  // namespace

SiteRouter::SiteRouter(const SiteOptions& options, const SiteGraph& graph,
                       const PageRenderer& renderer, const HostileRoutes& hostile,
                       FaultInjector& faults, std::string base_url, const StopSignal& stop,
                       Epochs epochs)
    : options_(options),
      graph_(graph),
      renderer_(renderer),
      hostile_(hostile),
      faults_(faults),
      base_url_(std::move(base_url)),
      stop_(stop),
      epochs_(epochs) {}

void SiteRouter::Serve(const httplib::Request& request, httplib::Response& response) const {
  if (options_.latency_ms > 0) stop_.WaitFor(std::chrono::milliseconds(options_.latency_ms));
  if (request.method != "GET" && request.method != "HEAD") {
    response.status = 405;
    response.set_header("Allow", "GET, HEAD");
    return;
  }
  const std::string& path = request.path;
  if (hostile_.Serve(path, response)) return;
  if (ServePage(request, response) || ServeRedirect(path, response) || ServeFile(path, response) ||
      ServeNofollow(path, response) || ServeStall(path, response) || ServeRobots(path, response)) {
    return;
  }
  ServeNotFound(response);
}

bool SiteRouter::ServePage(const httplib::Request& request, httplib::Response& response) const {
  const std::string& path = request.path;
  std::optional<uint64_t> page = path == "/" ? 0 : ParseNumberedPath(path, "/p/", ".html");
  const int epoch = epochs_.current.load();
  // Page 0 lives at "/" only, so that every page has exactly one URL.
  if (!page || !epochs_.changes.Exists(*page, epoch) || (*page == 0 && path != "/")) return false;
  const bool base = *page < graph_.pages();
  if (base && graph_.IsSlow(*page)) stop_.WaitFor(std::chrono::milliseconds(options_.slow_ms));
  if (NotModified(*page, epoch, request, response)) return true;
  std::string body = PageBody(*page, epoch);
  if (base && faults_.MaybeFault(*page, body, request, response)) return true;
  response.status = 200;
  SetBody(response, std::move(body), kHtml);
  return true;
}

bool SiteRouter::ServeRedirect(const std::string& path, httplib::Response& response) const {
  const std::optional<uint64_t> page = ParseNumberedPath(path, "/r/", "");
  if (!options_.redirects || !page || *page >= graph_.pages()) return false;
  // Both spellings of Location occur on the web; alternate between them.
  const std::string target = PagePath(*page);
  response.set_redirect(*page % 2 == 0 ? absl::StrCat(base_url_, target) : target, 301);
  SetBody(response,
          absl::StrCat("<html><body>Moved to <a href=\"", target, "\">", target,
                       "</a></body></html>\n"),
          kHtml);
  return true;
}

bool SiteRouter::ServeFile(const std::string& path, httplib::Response& response) const {
  if (!options_.non_html) return false;
  if (const auto text = ParseNumberedPath(path, "/f/", ".txt"); text && *text < graph_.pages()) {
    response.status = 200;
    SetBody(response, renderer_.TextFile(*text), kText);
    return true;
  }
  if (const auto pdf = ParseNumberedPath(path, "/f/", ".pdf"); pdf && *pdf < graph_.pages()) {
    response.status = 200;
    SetBody(response, renderer_.PdfFile(*pdf), kPdf);
    return true;
  }
  return false;
}

bool SiteRouter::ServeNofollow(const std::string& path, httplib::Response& response) const {
  const std::optional<uint64_t> number = ParseNumberedPath(path, "/nofollow/", ".html");
  if (!options_.nofollow || !number || *number >= graph_.pages()) return false;
  response.status = 200;
  SetBody(response, renderer_.NofollowPage(*number), kHtml);
  return true;
}

bool SiteRouter::ServeStall(const std::string& path, httplib::Response& response) const {
  if (!options_.stalled) return false;
  if (path == "/stall") {
    stop_.Wait();
    response.status = 503;  // only reached at Stop(); the client is usually gone
    return true;
  }
  if (path != "/stall-body") return false;
  // Headers and the first part of the body go out; the rest never comes.
  response.status = 200;
  response.set_content_provider(
      2 * kStallBodyPrefix, kHtml,
      [this](size_t offset, size_t /*length*/, httplib::DataSink& sink) {
        if (offset == 0) {
          const std::string prefix(kStallBodyPrefix, ' ');
          return sink.write(prefix.data(), prefix.size());
        }
        stop_.Wait();
        return false;  // abort the response: the promised length is never met
      });
  return true;
}

bool SiteRouter::ServeRobots(const std::string& path, httplib::Response& response) const {
  if (path != "/robots.txt" || options_.robots_txt.empty()) return false;
  response.status = 200;
  SetBody(response, options_.robots_txt, kText);
  return true;
}

std::string SiteRouter::PageBody(uint64_t page, int epoch) const {
  if (page >= graph_.pages()) {
    // An added page: a base page's links (never the root's, whose relative
    // links resolve against "/"), so it brings no URL the site did not have.
    const uint64_t like = graph_.pages() > 1 ? 1 + page % (graph_.pages() - 1) : 0;
    std::string body = renderer_.Page(like);
    body.insert(body.rfind("</body>"), absl::StrCat("<p>Added page ", page, "</p>\n"));
    return body;
  }
  std::string body = renderer_.Page(page);
  std::string extra;
  if (const int revision = epochs_.changes.Revision(page, epoch); revision > 0) {
    absl::StrAppend(&extra, "<p>Revision ", revision, "</p>\n");
  }
  if (page == 0) {
    for (const uint64_t added : epochs_.changes.AddedUpTo(epoch)) {
      absl::StrAppend(&extra, "<p><a href=\"", PagePath(added), "\">New page ", added,
                      "</a></p>\n");
    }
  }
  if (!extra.empty()) body.insert(body.rfind("</body>"), extra);
  return body;
}

bool SiteRouter::NotModified(uint64_t page, int epoch, const httplib::Request& request,
                             httplib::Response& response) const {
  if (!options_.validators) return false;
  const std::string etag =
      absl::StrCat("\"", page, "-", epochs_.changes.Revision(page, epoch), "\"");
  const absl::Time modified = absl::FromCivil(absl::CivilDay(2020, 1, 1), absl::UTCTimeZone()) +
                              absl::Hours(24) * epochs_.changes.LastChange(page, epoch);
  constexpr char kHttpDate[] = "%a, %d %b %Y %H:%M:%S GMT";
  response.set_header("ETag", etag);
  response.set_header("Last-Modified", absl::FormatTime(kHttpDate, modified, absl::UTCTimeZone()));
  bool not_modified = false;
  if (request.has_header("If-None-Match")) {
    // A list of tags; weak comparison (RFC 9110, 13.1.2), so W/ is ignored.
    const std::string tags = request.get_header_value("If-None-Match");
    not_modified = tags.find(etag) != std::string::npos || absl::StripAsciiWhitespace(tags) == "*";
  } else if (request.has_header("If-Modified-Since")) {
    absl::Time since;
    std::string error;
    not_modified = absl::ParseTime(kHttpDate, request.get_header_value("If-Modified-Since"),
                                   absl::UTCTimeZone(), &since, &error) &&
                   since >= modified;
  }
  if (not_modified) response.status = 304;
  return not_modified;
}

void SiteRouter::ServeNotFound(httplib::Response& response) const {
  response.status = 404;
  SetBody(response, "<html><body><h1>404 Not Found</h1></body></html>\n", kHtml);
}

void SiteRouter::SetBody(httplib::Response& response, std::string body,
                         const char* content_type) const {
  if (options_.compress || body.empty()) {
    response.set_content(body, content_type);
    return;
  }
  auto shared = std::make_shared<const std::string>(std::move(body));
  response.set_content_provider(shared->size(), content_type,
                                [shared](size_t offset, size_t length, httplib::DataSink& sink) {
                                  return sink.write(shared->data() + offset, length);
                                });
}

}  // namespace testsite
