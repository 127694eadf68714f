// HostileRoutes: the misbehaving resources of the test site: resets,
// drips, flaky 5xx, redirect loops and chains, a 10 GB body, a gzip bomb, bad
// content types and charsets, deep nesting, a million links and a calendar
// trap. Each exists only when its SiteOptions flag is on, and the root page
// links to it (RootLinksHtml). See site_options.h for the URL space.
//
//   HostileRoutes hostile(options, base_url, raw_base_url, stop);
//   if (hostile.Serve(request.path, response)) return;       // httplib routes
//   RawServer raw(host, [&](int fd, const RawRequest& r) {   // hand-made bytes
//     int status = 0;
//     return hostile.ServeRaw(fd, r.path, &status);
//   });
//
// Threading: all methods are safe to call concurrently (the flaky counters
// sit under a mutex); streaming bodies block their worker until the client
// hangs up or the StopSignal fires.
#ifndef TESTSITE_SRC_HOSTILE_ROUTES_H_
#define TESTSITE_SRC_HOSTILE_ROUTES_H_

#include <httplib.h>

#include <map>
#include <mutex>
#include <string>

#include "absl/base/thread_annotations.h"
#include "raw_server.h"
#include "stop_signal.h"
#include "testsite/site_options.h"

namespace testsite {

class HostileRoutes {
 public:
  // `base_url` "http://host:port"; `raw_base_url` the RawServer's, or "" when
  // NeedsRawServer() is false. References must outlive this object.
  HostileRoutes(const SiteOptions& options, std::string base_url, std::string raw_base_url,
                const StopSignal& stop);

  // True when some enabled case is served by the RawServer.
  static bool NeedsRawServer(const SiteOptions& options);

  // Serves `path` when it is an enabled hostile route of the httplib server.
  bool Serve(const std::string& path, httplib::Response& response) const;
  // Writes the RawServer's response to `path` (404 when unknown); sets the
  // status it sent (0 when it cut the status line) for the request log.
  RawServer::Ending ServeRaw(int fd, const std::string& path, int* status) const;

  // Links from the root page to every enabled case.
  std::string RootLinksHtml() const;

 private:
  bool ServeFlaky(const std::string& path, httplib::Response& response) const;
  bool ServeRedirectTrap(const std::string& path, httplib::Response& response) const;
  bool ServeBadContent(const std::string& path, httplib::Response& response) const;
  bool ServeDeep(const std::string& path, httplib::Response& response) const;
  bool ServeCalendar(const std::string& path, httplib::Response& response) const;
  bool ServeGrowing(const std::string& path, httplib::Response& response) const;
  // Counts a request to `path`; true while it must still fail.
  bool FailsThisTime(const std::string& path) const;

  const SiteOptions& options_;
  const std::string base_url_;
  const std::string raw_base_url_;
  const StopSignal& stop_;
  mutable std::mutex mu_;
  mutable std::map<std::string, int> flaky_requests_ ABSL_GUARDED_BY(mu_);
};

// --- Streaming bodies (hostile_streams.cc): each sets a content provider
// that generates the body while it is sent.

// 1000 bytes promised, one byte every `interval_ms`.
void SetDripBody(httplib::Response& response, int interval_ms, const StopSignal& stop);
// Content-Length `bytes` announced, filler HTML streamed until the client leaves.
void SetHugeBody(httplib::Response& response, uint64_t bytes, const StopSignal& stop);
// Chunked HTML with `count` links to `link_base` + "/m/<i>".
void SetMillionLinksBody(httplib::Response& response, uint64_t count, std::string link_base,
                         const StopSignal& stop);
// Writes a gzip response of `decoded_bytes` zeros, compressed as it goes; stops
// when the client hangs up. Returns false if it could not start.
bool SendGzipBomb(int fd, uint64_t decoded_bytes);

}  // namespace testsite

#endif  // TESTSITE_SRC_HOSTILE_ROUTES_H_
