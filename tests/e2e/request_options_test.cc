// The everyday request controls end to end on loopback: --proxy
// and the proxy environment variables (a ForwardProxy sees every request, or
// none with --no-proxy-env), --header and [[hosts]] headers as the server
// sees them, and [[hosts]] credentials that reach only their host and appear
// in no output (pages.jsonl, WARC, logs).
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "e2e/e2e_util.h"
#include "e2e/forward_proxy.h"
#include "gtest/gtest.h"
#include "testsite/test_site.h"

namespace {

std::unique_ptr<testsite::TestSite> SmallSite(uint64_t pages = 5) {
  testsite::SiteOptions options;
  options.pages = pages;
  options.links_per_page = 4;
  options.page_bytes = 512;
  auto site = testsite::TestSite::Start(options);
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

// Sets an environment variable for one scope (the crawl runs in process:
// curl reads http_proxy at each transfer).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

TEST(RequestOptions, ProxyFlagSeesEveryRequest) {
  auto site = SmallSite();
  ASSERT_NE(site, nullptr);
  e2e::ForwardProxy proxy;
  crawler::CrawlOptions options = e2e::FastOptions("proxy-flag");
  options.proxy = proxy.Url();
  ASSERT_TRUE(e2e::Crawl(options, {site->RootUrl()}).ok());
  EXPECT_EQ(site->TotalRequests(), 5u);
  const std::vector<std::string> targets = proxy.Targets();
  EXPECT_EQ(targets.size(), 5u);
  for (const std::string& target : targets) EXPECT_EQ(target.rfind(site->BaseUrl(), 0), 0u);
  for (const nlohmann::json& page : e2e::ReadPages(options.out_dir)) EXPECT_EQ(page["status"], 200);
}

TEST(RequestOptions, ProxyEnvironmentHonouredUnlessNoProxyEnv) {
  auto site = SmallSite();
  ASSERT_NE(site, nullptr);
  e2e::ForwardProxy proxy;
  ScopedEnv http_proxy("http_proxy", proxy.Url());
  crawler::CrawlOptions options = e2e::FastOptions("proxy-env");
  ASSERT_TRUE(e2e::Crawl(options, {site->RootUrl()}).ok());
  EXPECT_EQ(proxy.Targets().size(), 5u);
  EXPECT_EQ(site->TotalRequests(), 5u);

  site->ResetCounts();
  crawler::CrawlOptions direct = e2e::FastOptions("proxy-env-ignored");
  direct.no_proxy_env = true;
  ASSERT_TRUE(e2e::Crawl(direct, {site->RootUrl()}).ok());
  EXPECT_EQ(proxy.Targets().size(), 5u);  // none more
  EXPECT_EQ(site->TotalRequests(), 5u);
}

// Collects one header's values as a route saw them.
class HeaderProbe {
 public:
  testsite::Handler Handler(const std::string& name) {
    return [this, name](const httplib::Request& request, httplib::Response& response) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        seen_.push_back(request.has_header(name) ? request.get_header_value(name) : "<none>");
      }
      response.set_content("<html>ok</html>", "text/html");
    };
  }
  std::vector<std::string> Seen() const {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> seen_;
};

TEST(RequestOptions, HeadersReachTheServerPerHostPattern) {
  auto a = SmallSite(1);
  auto b = SmallSite(1);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  HeaderProbe a_global, a_host, b_global, b_host;
  a->Handle("/g", a_global.Handler("X-Everywhere"));
  a->Handle("/h", a_host.Handler("X-Only-A"));
  b->Handle("/g", b_global.Handler("X-Everywhere"));
  b->Handle("/h", b_host.Handler("X-Only-A"));
  crawler::CrawlOptions options = e2e::FastOptions("headers");
  options.headers = {"X-Everywhere: yes"};
  crawler::HostRule rule;
  rule.pattern = "127.0.0.1:" + std::to_string(a->port());
  rule.headers = {"X-Only-A: a"};
  options.hosts = {rule};
  ASSERT_TRUE(e2e::Crawl(options, {a->BaseUrl() + "/g", a->BaseUrl() + "/h", b->BaseUrl() + "/g",
                                   b->BaseUrl() + "/h"})
                  .ok());
  EXPECT_EQ(a_global.Seen(), std::vector<std::string>{"yes"});
  EXPECT_EQ(b_global.Seen(), std::vector<std::string>{"yes"});
  EXPECT_EQ(a_host.Seen(), std::vector<std::string>{"a"});
  EXPECT_EQ(b_host.Seen(), std::vector<std::string>{"<none>"});
}

// Every byte of a (multi-member) gzip file, decompressed.
std::string Gunzip(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string packed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string out;
  z_stream z{};
  inflateInit2(&z, 16 + MAX_WBITS);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  z.avail_in = static_cast<uInt>(packed.size());
  char buffer[1 << 16];
  while (z.avail_in > 0) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof(buffer);
    const int code = inflate(&z, Z_NO_FLUSH);
    out.append(buffer, sizeof(buffer) - z.avail_out);
    if (code == Z_STREAM_END) {
      inflateReset(&z);
    } else if (code != Z_OK) {
      break;
    }
  }
  inflateEnd(&z);
  return out;
}

// Every file under `dir`, as text (WARC files decompressed).
std::string AllOutput(const std::string& dir) {
  std::string all;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string path = entry.path().string();
    if (path.ends_with(".gz")) {
      all += Gunzip(path);
    } else {
      std::ifstream in(path, std::ios::binary);
      all.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  }
  return all;
}

TEST(RequestOptions, AuthReachesOnlyItsHostAndNoOutput) {
  auto a = SmallSite(1);
  auto b = SmallSite(1);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  HeaderProbe a_auth, b_auth;
  a->Handle("/secret", a_auth.Handler("Authorization"));
  b->Handle("/secret", b_auth.Handler("Authorization"));
  const std::string password = "pa55-w0rd-zq";
  crawler::CrawlOptions options = e2e::FastOptions("auth");
  options.warc_prefix = options.out_dir + "/archive";
  crawler::HostRule rule;
  rule.pattern = "127.0.0.1:" + std::to_string(a->port());
  rule.user = "crawler";
  rule.password = password;
  options.hosts = {rule};
  options.quiet = false;
  options.log_level = "trace";
  ASSERT_TRUE(e2e::Crawl(options, {a->BaseUrl() + "/secret", b->BaseUrl() + "/secret"}).ok());
  const std::string basic = absl::Base64Escape("crawler:" + password);
  EXPECT_EQ(a_auth.Seen(), std::vector<std::string>{"Basic " + basic});
  EXPECT_EQ(b_auth.Seen(), std::vector<std::string>{"<none>"});
  const std::string output = AllOutput(options.out_dir);
  ASSERT_NE(output.find("WARC-Type: request"), std::string::npos);
  EXPECT_NE(output.find("Authorization: Basic [redacted]"), std::string::npos);
  EXPECT_EQ(output.find(password), std::string::npos);
  EXPECT_EQ(output.find(basic), std::string::npos);
}

// One cookie jar per crawl. /set sets a cookie and links to
// /check, which records the Cookie header it gets; --save-cookies writes the
// jar (Netscape format), --load-cookies reads one, --cookies off sends none.
class CookieSite {
 public:
  CookieSite() : site_(SmallSite(1)) {
    site_->Handle("/set", [](const httplib::Request&, httplib::Response& response) {
      response.set_header("Set-Cookie", "session=abc123; Path=/");
      response.set_content("<html><a href=\"/check\">next</a></html>", "text/html");
    });
    site_->Handle("/check", probe_.Handler("Cookie"));
  }
  testsite::TestSite& site() { return *site_; }
  std::vector<std::string> Seen() const { return probe_.Seen(); }

 private:
  std::unique_ptr<testsite::TestSite> site_;
  HeaderProbe probe_;
};

TEST(RequestOptions, CookiesSetAreSentBackAndSaved) {
  CookieSite on;
  crawler::CrawlOptions options = e2e::FastOptions("cookies-on");
  options.save_cookies = options.out_dir + "/jar.txt";
  ASSERT_TRUE(e2e::Crawl(options, {on.site().BaseUrl() + "/set"}).ok());
  EXPECT_EQ(on.Seen(), std::vector<std::string>{"session=abc123"});
  std::ifstream jar(options.save_cookies);
  const std::string saved((std::istreambuf_iterator<char>(jar)), std::istreambuf_iterator<char>());
  EXPECT_NE(saved.find("# Netscape HTTP Cookie File"), std::string::npos) << saved;
  EXPECT_NE(saved.find("\tsession\tabc123"), std::string::npos) << saved;

  CookieSite off;
  crawler::CrawlOptions no_jar = e2e::FastOptions("cookies-off");
  no_jar.cookies = false;
  ASSERT_TRUE(e2e::Crawl(no_jar, {off.site().BaseUrl() + "/set"}).ok());
  EXPECT_EQ(off.Seen(), std::vector<std::string>{"<none>"});
}

TEST(RequestOptions, LoadCookiesSendsThemFromTheFirstRequest) {
  CookieSite site;
  const std::string dir = e2e::FreshDir("cookies-load-file");
  const std::string file =
      e2e::WriteFile(dir, "cookies.txt",
                     "# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tconsent\tyes\n");
  crawler::CrawlOptions options = e2e::FastOptions("cookies-load");
  options.load_cookies = file;
  ASSERT_TRUE(e2e::Crawl(options, {site.site().BaseUrl() + "/check"}).ok());
  EXPECT_EQ(site.Seen(), std::vector<std::string>{"consent=yes"});
}

}  // namespace
