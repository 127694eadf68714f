// SessionTrapSite: a loopback site with a session-id trap
// beside pages of its own. The trap is one page served under ever new random
// ids: each copy links to itself twice, each time under a fresh id, so a
// crawler that goes by URLs never runs out of new ones. Where the id goes:
//
//   kPath        /s/<16 hex>/index.html
//   kToken       /shop.html?token=<16 hex>
//   kJsessionid  /shop.html;jsessionid=<16 hex>
//   kPhpsessid   /shop.html?PHPSESSID=<16 hex>x
//   kNone        no trap: only the site's own pages
//
// With `id_in_text` the copy also prints its id ("Your session: <id>"). The
// site's own pages, /a/<i>.html, share one template (title, navigation,
// footer) and differ in a paragraph of `paragraph_words` words; the root
// links to all of them and to the trap.
//
//   SessionTrapSite site({.place = SessionTrapSite::kToken, .own_pages = 20});
//   RunCrawlBinary("trap", {site.RootUrl()});
//   EXPECT_LT(site.TrapRequests(), 300u);
//
// Threading: the counts are safe to read while requests are served.
#ifndef TESTS_E2E_SESSION_TRAP_SITE_H_
#define TESTS_E2E_SESSION_TRAP_SITE_H_

#include <httplib.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>

namespace e2e {

class SessionTrapSite {
 public:
  enum Place { kNone, kPath, kToken, kJsessionid, kPhpsessid };
  struct Options {
    Place place = kPath;
    bool id_in_text = false;
    int own_pages = 20;
    int paragraph_words = 60;
  };

  explicit SessionTrapSite(Options options);  // binds 127.0.0.1:0 and serves
  ~SessionTrapSite();
  SessionTrapSite(const SessionTrapSite&) = delete;
  SessionTrapSite& operator=(const SessionTrapSite&) = delete;

  std::string RootUrl() const;  // "http://127.0.0.1:PORT/"
  // Requests for the trap page, under any id.
  uint64_t TrapRequests() const;
  // Requests for /a/<page>.html.
  uint64_t OwnPageRequests(int page) const;

 private:
  void Serve(const httplib::Request& request, httplib::Response& response);
  std::string FreshId();
  std::string TrapLink(const std::string& id) const;
  std::string TrapPage(const std::string& id);
  std::string OwnPage(int page) const;
  std::string Root();

  const Options options_;
  std::map<int, std::string> paragraphs_;  // per own page, fixed at construction
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  std::mt19937_64 ids_;  // guarded by mu_
  uint64_t trap_requests_ = 0;
  std::map<int, uint64_t> own_requests_;
};

}  // namespace e2e

#endif  // TESTS_E2E_SESSION_TRAP_SITE_H_
