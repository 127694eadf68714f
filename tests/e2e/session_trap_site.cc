#include "e2e/session_trap_site.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace e2e {
namespace {

constexpr std::array<const char*, 32> kTrapSiteWords = {
    "garden", "seed",   "pot",    "tool",  "spade", "rake",  "water", "soil",
    "leaf",   "root",   "flower", "tree",  "grass", "stone", "path",  "fence",
    "spring", "summer", "autumn", "frost", "sun",   "rain",  "shade", "weed",
    "the",    "of",     "and",    "a",     "to",    "in",    "is",    "with"};

// The template every page of the site shares: a head, a navigation list, a
// footer; `main` goes between.
std::string InTemplate(const std::string& title, const std::string& main) {
  std::string navigation;
  for (int i = 0; i < 12; ++i) {
    absl::StrAppend(&navigation, "<li><a href=\"/\">Section ", i, "</a></li>");
  }
  return absl::StrCat(
      "<!DOCTYPE html><html><head><title>", title, "</title></head><body>",
      "<header><h1>The garden shop</h1><p>Tools, seeds and pots, shipped in two days.</p>",
      "</header><nav><ul>", navigation, "</ul></nav><main>", main, "</main>",
      "<footer><p>Run by the garden club. Write to us by post.</p></footer></body></html>");
}

}  // namespace

SessionTrapSite::SessionTrapSite(Options options) : options_(options), ids_(33) {
  std::mt19937_64 words(7);
  for (int page = 0; page < options_.own_pages; ++page) {
    std::string text;
    for (int w = 0; w < options_.paragraph_words; ++w) {
      absl::StrAppend(&text, w > 0 ? " " : "", kTrapSiteWords[words() % kTrapSiteWords.size()]);
    }
    paragraphs_[page] = std::move(text);
  }
  server_.Get(".*", [this](const httplib::Request& request, httplib::Response& response) {
    Serve(request, response);
  });
  port_ = server_.bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

SessionTrapSite::~SessionTrapSite() {
  server_.stop();
  if (thread_.joinable()) thread_.join();
}

std::string SessionTrapSite::RootUrl() const {
  return absl::StrCat("http://127.0.0.1:", port_, "/");
}

uint64_t SessionTrapSite::TrapRequests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return trap_requests_;
}

uint64_t SessionTrapSite::OwnPageRequests(int page) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = own_requests_.find(page);
  return it == own_requests_.end() ? 0 : it->second;
}

std::string SessionTrapSite::FreshId() {
  std::lock_guard<std::mutex> lock(mu_);
  return absl::StrFormat("%016x", ids_());
}

std::string SessionTrapSite::TrapLink(const std::string& id) const {
  switch (options_.place) {
    case kPath:
      return absl::StrCat("/s/", id, "/index.html");
    case kToken:
      return absl::StrCat("/shop.html?token=", id);
    case kJsessionid:
      return absl::StrCat("/shop.html;jsessionid=", id);
    case kPhpsessid:
      return absl::StrCat("/shop.html?PHPSESSID=", id, "x");
    case kNone:
      break;
  }
  return "";
}

std::string SessionTrapSite::TrapPage(const std::string& id) {
  const std::string text = options_.id_in_text ? absl::StrCat("<p>Your session: ", id, "</p>") : "";
  return InTemplate(
      "Welcome",
      absl::StrCat("<h2>Welcome</h2><p>Browse our tools and seeds. Every order ships within two ",
                   "days, and returns are free for a month.</p>", text, "<a href=\"",
                   TrapLink(FreshId()), "\">Continue shopping</a> <a href=\"", TrapLink(FreshId()),
                   "\">Your basket</a> <a href=\"/\">Home</a>"));
}

std::string SessionTrapSite::OwnPage(int page) const {
  return InTemplate(absl::StrCat("Article ", page),
                    absl::StrCat("<h2>Article ", page, "</h2><p>", paragraphs_.at(page), "</p>"));
}

std::string SessionTrapSite::Root() {
  std::string links;
  for (int page = 0; page < options_.own_pages; ++page) {
    absl::StrAppend(&links, "<li><a href=\"/a/", page, ".html\">Article ", page, "</a></li>");
  }
  if (options_.place != kNone) {
    absl::StrAppend(&links, "<li><a href=\"", TrapLink(FreshId()), "\">Shop</a></li>");
  }
  return InTemplate("Home", absl::StrCat("<ul>", links, "</ul>"));
}

void SessionTrapSite::Serve(const httplib::Request& request, httplib::Response& response) {
  const std::string& path = request.path;
  int page = -1;
  if (path == "/") {
    response.set_content(Root(), "text/html");
  } else if (options_.place != kNone &&
             (path.rfind("/s/", 0) == 0 || path.rfind("/shop.html", 0) == 0)) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++trap_requests_;
    }
    response.set_content(TrapPage(FreshId()), "text/html");  // its session: a fresh id
  } else if (std::sscanf(path.c_str(), "/a/%d.html", &page) == 1 && page >= 0 &&
             page < options_.own_pages) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++own_requests_[page];
    }
    response.set_content(OwnPage(page), "text/html");
  } else {
    response.status = 404;
  }
}

}  // namespace e2e
