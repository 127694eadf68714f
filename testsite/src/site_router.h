// SiteRouter: answers requests for the generated site (see the URL space in
// testsite/site_options.h): pages, redirects, files, stalls, robots.txt, 404.
// Routes of disabled odd cases answer 404 like any unknown path.
// Threading: all methods are safe to call concurrently; Serve may block up to
// latency_ms + slow_ms (+ fault_stall_ms while sending), or until the StopSignal for the stall
// routes.
#ifndef TESTSITE_SRC_SITE_ROUTER_H_
#define TESTSITE_SRC_SITE_ROUTER_H_

#include <httplib.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "fault_injector.h"
#include "hostile_routes.h"
#include "page_renderer.h"
#include "site_graph.h"
#include "stop_signal.h"
#include "testsite/change_set.h"
#include "testsite/site_options.h"

namespace testsite {

class SiteRouter {
 public:
  // The epoch served now and the rules of change (testsite/change_set.h).
  struct Epochs {
    const ChangeSet& changes;
    const std::atomic<int>& current;
  };

  // All references must outlive the router.
  SiteRouter(const SiteOptions& options, const SiteGraph& graph, const PageRenderer& renderer,
             const HostileRoutes& hostile, FaultInjector& faults, std::string base_url,
             const StopSignal& stop, Epochs epochs);

  void Serve(const httplib::Request& request, httplib::Response& response) const;

 private:
  // Each returns false when the path is not its route.
  bool ServePage(const httplib::Request& request, httplib::Response& response) const;
  bool ServeRedirect(const std::string& path, httplib::Response& response) const;
  bool ServeFile(const std::string& path, httplib::Response& response) const;
  bool ServeNofollow(const std::string& path, httplib::Response& response) const;
  bool ServeStall(const std::string& path, httplib::Response& response) const;
  bool ServeRobots(const std::string& path, httplib::Response& response) const;
  void ServeNotFound(httplib::Response& response) const;
  // Page `page`'s body at `epoch`: the base page with its revision and, for
  // the root, links to the pages added so far; an added page's own body.
  std::string PageBody(uint64_t page, int epoch) const;
  // With options.validators: sets ETag and Last-Modified; true (and a 304)
  // when the request's conditional headers say the client has this version.
  bool NotModified(uint64_t page, int epoch, const httplib::Request& request,
                   httplib::Response& response) const;

  // Sets the body; unless options.compress, through a content provider,
  // because cpp-httplib compresses only plain bodies.
  void SetBody(httplib::Response& response, std::string body, const char* content_type) const;

  const SiteOptions& options_;
  const SiteGraph& graph_;
  const PageRenderer& renderer_;
  const HostileRoutes& hostile_;
  FaultInjector& faults_;
  const std::string base_url_;
  const StopSignal& stop_;
  const Epochs epochs_;
};

}  // namespace testsite

#endif  // TESTSITE_SRC_SITE_ROUTER_H_
