// What the crawl skips and where it starts, end to end on loopback:
// --reject-type / --accept-type abort a response after its headers (the
// server sees the request, pages.jsonl records "type_rejected" with no
// bytes), --reject-ext links are never requested, --sitemap starts from a
// sitemap robots.txt does not list, and malformed values are usage errors.

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "e2e/e2e_util.h"
#include "gtest/gtest.h"
#include "support/gzip.h"
#include "testsite/test_site.h"

namespace {

using e2e::PathOf;

constexpr size_t kDocBytes = 8 << 20;  // under the default --max-body: today it is kept whole

void Serve(testsite::TestSite* site, const std::string& path, std::string body,
           const std::string& type) {
  auto shared = std::make_shared<const std::string>(std::move(body));
  site->Handle(path, [shared, type](const httplib::Request&, httplib::Response& res) {
    // A provider sends the bytes as they are (no compression by httplib).
    res.set_content_provider(shared->size(), type,
                             [shared](size_t offset, size_t length, httplib::DataSink& sink) {
                               sink.write(shared->data() + offset, length);
                               return true;
                             });
  });
}

// A root page linking to a large PDF served without a telling extension, a
// zip, an mp4 and an HTML page.
std::unique_ptr<testsite::TestSite> MixedSite() {
  testsite::SiteOptions options;
  options.pages = 1;
  options.links_per_page = 1;
  auto started = testsite::TestSite::Start(options);
  EXPECT_TRUE(started.ok()) << started.status();
  if (!started.ok()) return nullptr;
  auto site = std::move(*started);
  Serve(site.get(), "/",
        "<html><body><a href=/doc>doc</a> <a href=/files/archive.ZIP>zip</a>"
        " <a href=/v/clip.mp4?autoplay=1>clip</a> <a href=/ok.html>ok</a></body></html>",
        "text/html");
  Serve(site.get(), "/doc", std::string(kDocBytes, '%'), "application/pdf");
  Serve(site.get(), "/files/archive.ZIP", std::string(1000, 'z'), "application/zip");
  Serve(site.get(), "/v/clip.mp4", std::string(1000, 'v'), "video/mp4");
  Serve(site.get(), "/ok.html", "<html><body>fine</body></html>", "text/html");
  return site;
}

std::map<std::string, nlohmann::json> PagesByPath(const std::string& out_dir) {
  std::map<std::string, nlohmann::json> pages;
  for (const auto& page : e2e::ReadPages(out_dir)) pages[PathOf(page["url"])] = page;
  return pages;
}

TEST(ContentFilter, RejectedTypeIsAbortedAfterHeadersAndRecorded) {
  auto site = MixedSite();
  ASSERT_NE(site, nullptr);
  crawler::CrawlOptions options = e2e::FastOptions("content-reject-type");
  options.reject_types = {"application/pdf"};
  options.accept_types = {"text/html", "application/*", "video/*"};
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(site->RequestCount("/doc"), 1u) << "the server sees the request";
  auto pages = PagesByPath(options.out_dir);
  ASSERT_TRUE(pages.count("/doc"));
  const nlohmann::json& doc = pages["/doc"];
  EXPECT_EQ(doc["error"], "type_rejected");
  EXPECT_EQ(doc["status"], 200);
  EXPECT_EQ(doc["content_type"], "application/pdf");
  EXPECT_EQ(doc["bytes"], 0);
  EXPECT_EQ(doc["attempts"], 1) << "a refused type is not retried";
  EXPECT_TRUE(pages["/ok.html"]["error"].is_null());
  EXPECT_TRUE(pages["/files/archive.ZIP"]["error"].is_null());  // application/* accepted
  EXPECT_EQ(e2e::ReadSummary(options.out_dir)["errors_by_kind"]["type_rejected"], 1);
}

TEST(ContentFilter, AcceptTypeRefusesTheRest) {
  auto site = MixedSite();
  ASSERT_NE(site, nullptr);
  crawler::CrawlOptions options = e2e::FastOptions("content-accept-type");
  options.accept_types = {"text/html"};
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  auto pages = PagesByPath(options.out_dir);
  for (const char* path : {"/doc", "/files/archive.ZIP", "/v/clip.mp4"}) {
    EXPECT_EQ(site->RequestCount(path), 1u) << path;
    EXPECT_EQ(pages[path]["error"], "type_rejected") << path;
    EXPECT_EQ(pages[path]["bytes"], 0) << path;
  }
  EXPECT_TRUE(pages["/"]["error"].is_null());
  EXPECT_TRUE(pages["/ok.html"]["error"].is_null());
}

TEST(ContentFilter, RejectedExtensionIsNeverRequestedAndCounted) {
  auto site = MixedSite();
  ASSERT_NE(site, nullptr);
  crawler::CrawlOptions options = e2e::FastOptions("content-reject-ext");
  options.reject_ext = {"zip,pdf", "mp4"};
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(site->RequestCount("/files/archive.ZIP"), 0u);
  EXPECT_EQ(site->RequestCount("/v/clip.mp4"), 0u);
  EXPECT_EQ(site->RequestCount("/doc"), 1u);  // no extension: fetched
  EXPECT_EQ(site->RequestCount("/ok.html"), 1u);
  auto pages = PagesByPath(options.out_dir);
  EXPECT_FALSE(pages.count("/files/archive.ZIP"));
  EXPECT_FALSE(pages.count("/v/clip.mp4"));
  EXPECT_EQ(e2e::ReadSummary(options.out_dir)["rejected_ext"], 2);
}

TEST(ContentFilter, DefaultsKeepTodaysBehaviour) {
  auto site = MixedSite();
  ASSERT_NE(site, nullptr);
  crawler::CrawlOptions options = e2e::FastOptions("content-defaults");
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  auto pages = PagesByPath(options.out_dir);
  EXPECT_EQ(pages.size(), 5u);
  EXPECT_EQ(pages["/doc"]["bytes"], static_cast<int64_t>(kDocBytes));
  EXPECT_TRUE(pages["/doc"]["error"].is_null());
  EXPECT_EQ(site->RequestCount("/files/archive.ZIP"), 1u);
  EXPECT_EQ(e2e::ReadSummary(options.out_dir)["rejected_ext"], 0);
}

// A gzip sitemap index that robots.txt does not list, one plain child with
// the shapes the old text search misread.
void AddUnlistedSitemap(testsite::TestSite* site) {
  const std::string base = site->BaseUrl();
  Serve(site, "/robots.txt", "User-agent: *\nDisallow: /hidden/blocked\n", "text/plain");
  Serve(site, "/maps/index.xml.gz",
        test_support::Gzip("<?xml version=\"1.0\"?><sitemapindex "
                           "xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><sitemap><loc>" +
                           base + "/maps/a.xml</loc></sitemap></sitemapindex>"),
        "application/x-gzip");
  Serve(site, "/maps/a.xml",
        "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" "
        "xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\">"
        "<!-- <url><loc>" +
            base +
            "/hidden/commented.html</loc></url> -->"
            "<url><loc >" +
            base + "/hidden/1.html</loc><image:image><image:loc>" + base +
            "/hidden/photo.html</image:loc></image:image></url>"
            "<url><loc><![CDATA[" +
            base +
            "/hidden/2.html?a=1&b=2]]></loc></url>"
            "<url><loc>" +
            base + "/hidden/blocked.html</loc></url></urlset>",
        "application/xml");
  for (const char* page : {"/hidden/1.html", "/hidden/2.html", "/hidden/photo.html",
                           "/hidden/commented.html", "/hidden/blocked.html"}) {
    Serve(site, page, "<html><body>only in the sitemap</body></html>", "text/html");
  }
}

void ExpectSitemapCrawled(const testsite::TestSite& site, const crawler::CrawlOptions& options,
                          bool robots) {
  EXPECT_EQ(site.RequestCount("/maps/index.xml.gz"), 1u);
  EXPECT_EQ(site.RequestCount("/maps/a.xml"), 1u);
  EXPECT_EQ(site.RequestCount("/hidden/1.html"), 1u);
  EXPECT_EQ(site.RequestCount("/hidden/2.html"), 1u);
  EXPECT_EQ(site.RequestCount("/hidden/photo.html"), 0u) << "<image:loc> is not a page";
  EXPECT_EQ(site.RequestCount("/hidden/commented.html"), 0u) << "a comment is not a page";
  EXPECT_EQ(site.RequestCount("/hidden/blocked.html"), robots ? 0u : 1u);
  auto pages = PagesByPath(options.out_dir);
  ASSERT_TRUE(pages.count("/hidden/1.html"));
  EXPECT_EQ(pages["/hidden/1.html"]["depth"], 1);
  EXPECT_EQ(pages["/hidden/1.html"]["parent"], site.BaseUrl() + "/maps/a.xml");
  EXPECT_FALSE(pages.count("/maps/a.xml")) << "sitemaps are not pages";
  const auto summary = e2e::ReadSummary(options.out_dir);
  EXPECT_EQ(summary["sitemap_fetches"], 2);
  EXPECT_EQ(summary["sitemap_urls"], 3);
}

// A 3-page site with the sitemap index of AddUnlistedSitemap.
std::unique_ptr<testsite::TestSite> StartSitemapSite() {
  testsite::SiteOptions site_options;
  site_options.pages = 3;
  auto started = testsite::TestSite::Start(site_options);
  EXPECT_TRUE(started.ok()) << started.status();
  if (!started.ok()) return nullptr;
  AddUnlistedSitemap(started->get());
  return std::move(*started);
}

TEST(ContentFilter, SitemapFlagStartsFromAnUnlistedSitemap) {
  auto site = StartSitemapSite();
  ASSERT_NE(site, nullptr);
  crawler::CrawlOptions options = e2e::FastOptions("content-sitemap");
  options.robots = true;
  options.sitemap_urls = {site->BaseUrl() + "/maps/index.xml.gz"};
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  ExpectSitemapCrawled(*site, options, /*robots=*/true);
  for (const std::string& url : site->PageUrls()) EXPECT_EQ(site->RequestCount(url), 1u) << url;
}

TEST(ContentFilter, SitemapFlagWorksWithRobotsOff) {
  auto site = StartSitemapSite();
  ASSERT_NE(site, nullptr);
  crawler::CrawlOptions options = e2e::FastOptions("content-sitemap-robots-off");
  options.robots = false;
  options.sitemap_urls = {site->BaseUrl() + "/maps/index.xml.gz"};
  auto summary = e2e::Crawl(options, {site->RootUrl()});
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(site->RequestCount("/robots.txt"), 0u);
  ExpectSitemapCrawled(*site, options, /*robots=*/false);
}

// `crawl --sitemap URL` with no seed: the crawl starts from the sitemap,
// its pages in scope by the sitemap's host; nothing else is fetched.
TEST(ContentFilter, SitemapFlagAloneStartsTheCrawl) {
  auto site = StartSitemapSite();
  ASSERT_NE(site, nullptr);
  crawler::CrawlOptions options = e2e::FastOptions("content-sitemap-alone");
  const e2e::CommandResult run =
      e2e::RunProgram("crawl", {"--sitemap", site->BaseUrl() + "/maps/index.xml.gz", "--out",
                                options.out_dir, "--delay", "0", "--quiet"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ExpectSitemapCrawled(*site, options, /*robots=*/true);
  EXPECT_EQ(site->RequestCount("/"), 0u) << "no seed: the root is not a page of this crawl";
  std::set<std::string> recorded;
  for (const auto& page : e2e::ReadPages(options.out_dir)) {
    recorded.insert(e2e::PathOf(page["url"].get<std::string>()));
  }
  // The sitemap's pages, no more: two fetched, one blocked by robots.txt.
  EXPECT_EQ(recorded,
            (std::set<std::string>{"/hidden/1.html", "/hidden/2.html", "/hidden/blocked.html"}));
}

TEST(ContentFilter, BadValuesAreUsageErrorsNamingTheFlag) {
  const std::string dir = e2e::FreshDir("content-bad-values");
  const std::string seeds = e2e::WriteFile(dir, "seeds.txt", "http://127.0.0.1:9/\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--accept-type", "html"}, {"--reject-type", "image/*png"}, {"--reject-ext", "pdf,,zip"},
      {"--reject-ext", "p/df"},  {"--sitemap", "ftp://x/s.xml"},  {"--sitemap", "not a url"},
  };
  for (const auto& [flag, value] : cases) {
    const e2e::CommandResult r =
        e2e::RunProgram("crawl", {"--seeds", seeds, flag, value, "--out", dir + "/out", "--quiet"});
    EXPECT_EQ(r.exit_code, 2) << flag << " " << value << ": " << r.err;
    EXPECT_NE(r.err.find(flag + ":"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir + "/out/pages.jsonl"));
  }
  const std::string toml = e2e::WriteFile(dir, "bad.toml", "[fetch]\naccept_types = [\"html\"]\n");
  const e2e::CommandResult r =
      e2e::RunProgram("crawl", {"--config", toml, "--seeds", seeds, "--out", dir + "/out"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("fetch.accept_types"), std::string::npos) << r.err;
}

}  // namespace
