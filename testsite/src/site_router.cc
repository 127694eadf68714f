#include "site_router.h"

#include <chrono>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
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
                       FaultInjector& faults, std::string base_url, const StopSignal& stop)
    : options_(options),
      graph_(graph),
      renderer_(renderer),
      hostile_(hostile),
      faults_(faults),
      base_url_(std::move(base_url)),
      stop_(stop) {}

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
  // Page 0 lives at "/" only, so that every page has exactly one URL.
  if (!page || *page >= graph_.pages() || (*page == 0 && path != "/")) return false;
  if (graph_.IsSlow(*page)) stop_.WaitFor(std::chrono::milliseconds(options_.slow_ms));
  std::string body = renderer_.Page(*page);
  if (faults_.MaybeFault(*page, body, request, response)) return true;
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
