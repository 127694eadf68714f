#include "e2e/forward_proxy.h"

#include <chrono>
#include <utility>

namespace e2e {

ForwardProxy::ForwardProxy() {
  server_.Get(".*", [this](const httplib::Request& request, httplib::Response& response) {
    Forward(request, response);
  });
  port_ = server_.bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

ForwardProxy::~ForwardProxy() {
  server_.stop();
  if (thread_.joinable()) thread_.join();
}

std::string ForwardProxy::Url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::vector<std::string> ForwardProxy::Targets() const {
  std::lock_guard<std::mutex> lock(mu_);
  return targets_;
}

void ForwardProxy::Forward(const httplib::Request& request, httplib::Response& response) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    targets_.push_back(request.target);
  }
  // "http://HOST:PORT/path?query": the origin, then the origin-form target.
  const std::string& target = request.target;
  const size_t host_start = target.find("://");
  const size_t path_start =
      host_start == std::string::npos ? std::string::npos : target.find('/', host_start + 3);
  if (!target.starts_with("http://") || path_start == std::string::npos) {
    response.status = 400;
    return;
  }
  httplib::Client origin(target.substr(0, path_start));
  httplib::Headers headers;
  for (const auto& [name, value] : request.headers) {
    if (name == "Cookie" || name == "Authorization" || name.starts_with("X-")) {
      headers.emplace(name, value);
    }
  }
  httplib::Result answer = origin.Get(target.substr(path_start), headers);
  if (!answer) {
    response.status = 502;
    return;
  }
  response.status = answer->status;
  for (const char* name : {"Location", "Set-Cookie"}) {
    if (answer->has_header(name)) response.set_header(name, answer->get_header_value(name));
  }
  response.set_content(answer->body, answer->get_header_value("Content-Type"));
}

}  // namespace e2e
