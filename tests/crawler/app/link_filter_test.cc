// LinkFilter: the checks before the Sieve, in their documented order, and the
// host/domain helpers behind --scope.
#include "crawler/link_filter.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "crawler/crawl.h"
#include "crawler/url_parts.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

std::unique_ptr<LinkFilter> Make(const CrawlOptions& options,
                                 const std::vector<std::string>& seeds) {
  auto filter = LinkFilter::Create(options, seeds);
  EXPECT_TRUE(filter.ok()) << filter.status();
  return filter.ok() ? std::move(*filter) : nullptr;
}

TEST(HostOfUrl, HostWithoutPortOrUserinfo) {
  EXPECT_EQ(HostOfUrl("http://a.b:81/x"), "a.b");
  EXPECT_EQ(HostOfUrl("https://u:p@a.b/x"), "a.b");
  EXPECT_EQ(HostOfUrl("http://[::1]:8080/"), "[::1]");
  EXPECT_EQ(HostOfUrl("http://a.b?q"), "a.b");
  EXPECT_EQ(HostOfUrl("mailto:x"), "");
}

TEST(HostOfAuthority, IsHostOfUrlOnTheSplitAuthority) {
  EXPECT_EQ(HostOfAuthority("a.b:81"), "a.b");
  EXPECT_EQ(HostOfAuthority("u:p@a.b"), "a.b");
  EXPECT_EQ(HostOfAuthority("u@v@a.b:1"), "a.b");
  EXPECT_EQ(HostOfAuthority("[::1]:8080"), "[::1]");
  EXPECT_EQ(HostOfAuthority(""), "");
  for (const char* url : {"http://a.b:81/x", "https://u:p@a.b/x", "http://[::1]:8080/",
                          "http://a.b?q", "http://u@a.b#f", "http://a.b", "http://@:/"}) {
    const std::string_view u(url);
    const size_t start = u.find("://") + 3;
    const size_t end = std::min(u.find_first_of("/?#", start), u.size());
    EXPECT_EQ(HostOfAuthority(u.substr(start, end - start)), HostOfUrl(u)) << url;
  }
}

TEST(RegistrableDomain, UsesThePublicSuffixList) {
  EXPECT_EQ(RegistrableDomain("www.example.co.uk"), "example.co.uk");
  EXPECT_EQ(RegistrableDomain("a.b.example.com"), "example.com");
  EXPECT_EQ(RegistrableDomain("127.0.0.1"), "127.0.0.1");
}

TEST(LinkFilter, HostScopeIsTheExactHostOfASeed) {
  CrawlOptions options;
  auto filter = Make(options, {"http://www.example.com/"});
  EXPECT_EQ(filter->Check("https://www.example.com:8443/x", 1), LinkVerdict::kFollow);
  EXPECT_EQ(filter->Check("http://example.com/", 1), LinkVerdict::kOffScope);
  EXPECT_EQ(filter->Check("http://other.org/", 1), LinkVerdict::kOffScope);
}

TEST(LinkFilter, DomainScopeIsTheRegistrableDomain) {
  CrawlOptions options;
  options.scope = Scope::kDomain;
  auto filter = Make(options, {"http://www.example.co.uk/"});
  EXPECT_EQ(filter->Check("http://shop.example.co.uk/", 1), LinkVerdict::kFollow);
  EXPECT_EQ(filter->Check("http://example.co.uk/", 1), LinkVerdict::kFollow);
  EXPECT_EQ(filter->Check("http://other.co.uk/", 1), LinkVerdict::kOffScope);
}

TEST(LinkFilter, AnyScopeFollowsEverything) {
  CrawlOptions options;
  options.scope = Scope::kAny;
  auto filter = Make(options, {"http://a.com/"});
  EXPECT_EQ(filter->Check("http://b.org/", 1), LinkVerdict::kFollow);
}

TEST(LinkFilter, LengthAndDepthComeFirst) {
  CrawlOptions options;
  options.max_depth = 2;
  options.max_url_length = 30;
  auto filter = Make(options, {"http://a.com/"});
  EXPECT_EQ(filter->Check("http://a.com/" + std::string(40, 'x'), 1), LinkVerdict::kTooLong);
  EXPECT_EQ(filter->Check("http://other.com/", 3), LinkVerdict::kOverDepth);
  EXPECT_EQ(filter->Check("http://a.com/x", 2), LinkVerdict::kFollow);
}

// The parser threads split each link once and hand the parts in: the
// verdict is the one of the URL alone, in every scope.
TEST(LinkFilter, SplitPartsGiveTheVerdictOfTheUrlAlone) {
  for (const Scope scope : {Scope::kHost, Scope::kDomain, Scope::kAny}) {
    CrawlOptions options;
    options.scope = scope;
    options.max_url_length = 40;
    auto filter = Make(options, {"http://www.example.co.uk:81/", "http://[::1]:8080/"});
    for (const std::string& url : std::vector<std::string>{
             "http://www.example.co.uk/x", "https://u:p@www.example.co.uk:8443/?q",
             "http://shop.example.co.uk/", "http://other.org/", "http://[::1]/a",
             "http://www.example.co.uk/" + std::string(40, 'x'), "mailto:x@y", "http://a.b?q"}) {
      for (const int depth : {0, 3}) {
        EXPECT_EQ(filter->Check(url, SplitUrl(url), depth), filter->Check(url, depth)) << url;
      }
    }
  }
}

TEST(LinkFilter, AllowAndDenyArePartialMatches) {
  CrawlOptions options;
  options.allow = {"/docs/", "/blog/"};
  options.deny = {"\\.pdf$"};
  auto filter = Make(options, {"http://a.com/"});
  EXPECT_EQ(filter->Check("http://a.com/docs/x.html", 1), LinkVerdict::kFollow);
  EXPECT_EQ(filter->Check("http://a.com/blog/", 1), LinkVerdict::kFollow);
  EXPECT_EQ(filter->Check("http://a.com/shop/", 1), LinkVerdict::kNotAllowed);
  EXPECT_EQ(filter->Check("http://a.com/docs/x.pdf", 1), LinkVerdict::kDenied);
}

TEST(LinkFilter, BadRegexIsAnErrorNamingTheFlag) {
  CrawlOptions options;
  options.deny = {"("};
  auto filter = LinkFilter::Create(options, {"http://a.com/"});
  ASSERT_FALSE(filter.ok());
  EXPECT_NE(std::string(filter.status().message()).find("--deny"), std::string::npos);
}

TEST(LinkFilter, RejectedExtensionsAreNotFollowed) {
  CrawlOptions options;
  options.reject_ext = {"pdf,zip", ".MP4", "tar.gz"};
  auto filter = Make(options, {"http://a.com/"});
  EXPECT_EQ(filter->Check("http://a.com/docs/x.pdf", 1), LinkVerdict::kRejectedExtension);
  EXPECT_EQ(filter->Check("http://a.com/X.PDF?download=1", 1), LinkVerdict::kRejectedExtension);
  EXPECT_EQ(filter->Check("http://a.com/a.zip#top", 1), LinkVerdict::kRejectedExtension);
  EXPECT_EQ(filter->Check("http://a.com/v/clip.mp4", 1), LinkVerdict::kRejectedExtension);
  EXPECT_EQ(filter->Check("http://a.com/src.tar.gz", 1), LinkVerdict::kRejectedExtension);
  // Only the path's last segment counts: not a directory, not the query.
  EXPECT_EQ(filter->Check("http://a.com/pdf/", 1), LinkVerdict::kFollow);
  EXPECT_EQ(filter->Check("http://a.com/x.pdf/page", 1), LinkVerdict::kFollow);
  EXPECT_EQ(filter->Check("http://a.com/view?file=x.pdf", 1), LinkVerdict::kFollow);
  EXPECT_EQ(filter->Check("http://a.com/x.gz", 1), LinkVerdict::kFollow);
  EXPECT_EQ(filter->Check("http://a.com/xpdf", 1), LinkVerdict::kFollow);
  // Scope is still checked first.
  EXPECT_EQ(filter->Check("http://b.com/x.pdf", 1), LinkVerdict::kOffScope);
}

TEST(LinkFilter, BadExtensionListIsAnErrorNamingTheFlag) {
  CrawlOptions options;
  options.reject_ext = {"pdf,,zip"};
  auto filter = LinkFilter::Create(options, {"http://a.com/"});
  ASSERT_FALSE(filter.ok());
  EXPECT_NE(std::string(filter.status().message()).find("--reject-ext"), std::string::npos);
}

TEST(LinkVerdictName, NamesEveryVerdict) {
  EXPECT_EQ(LinkVerdictName(LinkVerdict::kRejectedExtension), "rejected-ext");
  EXPECT_EQ(LinkVerdictName(LinkVerdict::kFollow), "follow");
  EXPECT_EQ(LinkVerdictName(LinkVerdict::kOffScope), "off-scope");
  EXPECT_EQ(LinkVerdictName(LinkVerdict::kDenied), "denied");
}

TEST(FormatProgress, ShowsTheIssuesFields) {
  CrawlProgress p;
  p.pages = 100;
  p.elapsed_s = 4;
  p.queued = 7;
  p.in_flight = 3;
  p.seen_estimate = 250;
  p.filter_fill = 0.031;
  p.filter_fp_rate = 0.0001;
  p.errors = 2;
  const std::string line = FormatProgress(p);
  EXPECT_NE(line.find("100 pages"), std::string::npos) << line;
  EXPECT_NE(line.find("25.0/s"), std::string::npos) << line;
  EXPECT_NE(line.find("queued 7"), std::string::npos) << line;
  EXPECT_NE(line.find("in flight 3"), std::string::npos) << line;
  EXPECT_NE(line.find("seen ~250"), std::string::npos) << line;
  EXPECT_NE(line.find("3.1%"), std::string::npos) << line;
  EXPECT_NE(line.find("errors 2"), std::string::npos) << line;
}

TEST(FormatProgress, ShowsTheScaleBenchFields) {  // bench/scale parses these
  CrawlProgress p;
  p.accepted = 5000;
  p.passed_over = 12;
  p.filter_bytes = 1198000000;
  p.queue_memory_bytes = 268435456;
  p.queue_disk_bytes = 77;
  const std::string line = FormatProgress(p);
  EXPECT_NE(line.find("accepted 5000  passed over 12  filter_bytes 1198000000  "
                      "queue_ram 268435456  queue_disk 77"),
            std::string::npos)
      << line;
}

TEST(FormatProgress, ASaturatedFilterShowsNoInfiniteOrNegativeNumber) {
  CrawlProgress p;
  p.pages = 460;
  p.elapsed_s = 1;
  p.seen_estimate = std::nullopt;
  p.filter_fill = 1;
  p.filter_fp_rate = 1;
  MeasuredLoss m;
  m.sampled_urls = 3000;
  m.sampled_false_positives = 2540;
  m.rate = 0.8467;
  m.rate_low = 0.833;
  m.rate_high = 0.859;
  m.wrongly_dropped = 2540;
  m.wrongly_dropped_low = 2540;
  m.wrongly_dropped_high = 2540;
  p.fp_measured = m;
  const std::string line = FormatProgress(p);
  EXPECT_NE(line.find("seen ? (filter saturated)"), std::string::npos) << line;
  EXPECT_NE(line.find("wrongly dropped ~2540 [2540..2540]"), std::string::npos) << line;
  EXPECT_EQ(line.find("inf"), std::string::npos) << line;
  EXPECT_EQ(line.find("-"), std::string::npos) << line;
}

// The ~200-character line wrapped in an 80-column
// terminal at every refresh. Fitted to the width, the first fields stay.
TEST(FormatProgress, FitsTheTerminalWidthKeepingTheFirstFields) {
  CrawlProgress p;
  p.pages = 123456;
  p.elapsed_s = 100;
  p.queued = 9876543;
  p.in_flight = 64;
  p.errors = 12;
  p.filter_bytes = 1198000000;
  p.waiting_for = "Retry-After of a 503 (2s) of http://a.test until 14:05:09.120 UTC";
  const std::string all = FormatProgress(p);
  EXPECT_GT(all.size(), 150u) << all;  // a log line keeps everything
  for (size_t width : {79u, 120u}) {
    const std::string line = FormatProgress(p, width);
    EXPECT_LE(line.size(), width) << line;
    EXPECT_EQ(line.rfind("123456 pages  1234.6/s  queued 9876543  in flight 64  errors 12", 0), 0u)
        << line;
  }
  EXPECT_NE(FormatProgress(p, 160).find("waiting for Retry-After"), std::string::npos);
  EXPECT_LE(FormatProgress(p, 20).size(), 20u);
}

// After --resume the rate counted the restored pages as
// fetched in this run.
TEST(FormatProgress, TheRateCountsThisRunsPagesOnly) {
  CrawlProgress p;
  p.pages = 1000;
  p.pages_this_run = 470;
  p.elapsed_s = 10;
  EXPECT_NE(FormatProgress(p).find("1000 pages  47.0/s"), std::string::npos) << FormatProgress(p);
}

TEST(FormatProgress, ANegligibleLossIsNotShown) {
  CrawlProgress p;
  MeasuredLoss m;
  m.sampled_urls = 3000;
  p.fp_measured = m;
  EXPECT_EQ(FormatProgress(p).find("wrongly dropped"), std::string::npos);
  EXPECT_EQ(FormatMeasuredLoss(std::nullopt), "");
}

}  // namespace
}  // namespace crawler
