// MediaTypeFilter, CheckMediaTypePattern, ParseExtensionList, HasExtension
// (crawler/type_filter.h), and the flags that use them.
#include "crawler/type_filter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "crawler/cli.h"

namespace crawler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(MediaTypePattern, AcceptsTheThreeShapes) {
  for (const char* good : {"text/html", "image/*", "*/*", "application/xhtml+xml", "TEXT/Html"}) {
    EXPECT_TRUE(CheckMediaTypePattern(good).ok()) << good;
  }
}

TEST(MediaTypePattern, RefusesWhatIsNotOne) {
  for (const char* bad : {"", "text", "text/", "/html", "*/html", "text/ht*", "text/html; q=1",
                          "text/html extra", "te xt/html", "text/html/x", "*"}) {
    const absl::Status status = CheckMediaTypePattern(bad);
    EXPECT_FALSE(status.ok()) << bad;
    EXPECT_THAT(std::string(status.message()), HasSubstr("not a media type pattern")) << bad;
  }
}

TEST(MediaTypeFilter, EmptyAcceptsEverything) {
  const MediaTypeFilter filter;
  EXPECT_TRUE(filter.empty());
  EXPECT_TRUE(filter.Accepts("application/pdf"));
  EXPECT_TRUE(filter.Accepts(""));
}

TEST(MediaTypeFilter, AcceptListKeepsOnlyItsTypesParametersAndCaseIgnored) {
  auto filter = MediaTypeFilter::Create({"text/html", "application/xhtml+xml"}, {});
  ASSERT_TRUE(filter.ok()) << filter.status();
  EXPECT_TRUE(filter->Accepts("text/html"));
  EXPECT_TRUE(filter->Accepts("Text/HTML ; charset=UTF-8"));
  EXPECT_TRUE(filter->Accepts("application/xhtml+xml"));
  EXPECT_FALSE(filter->Accepts("text/plain"));
  EXPECT_FALSE(filter->Accepts("application/pdf"));
  EXPECT_FALSE(filter->Accepts(""));  // application/octet-stream
}

TEST(MediaTypeFilter, RejectWinsAndWildcardsMatchWholeTypes) {
  auto filter = MediaTypeFilter::Create({"image/*", "text/*"}, {"image/svg+xml", "video/*"});
  ASSERT_TRUE(filter.ok()) << filter.status();
  EXPECT_TRUE(filter->Accepts("image/png"));
  EXPECT_FALSE(filter->Accepts("image/svg+xml"));
  EXPECT_TRUE(filter->Accepts("text/css"));
  EXPECT_FALSE(filter->Accepts("imagex/png"));  // "image/*" is not a string prefix
  EXPECT_FALSE(filter->Accepts("video/mp4"));
}

TEST(MediaTypeFilter, RejectOnlyKeepsTheRest) {
  auto filter = MediaTypeFilter::Create({}, {"application/pdf", "application/octet-stream"});
  ASSERT_TRUE(filter.ok()) << filter.status();
  EXPECT_TRUE(filter->Accepts("text/html"));
  EXPECT_FALSE(filter->Accepts("application/PDF"));
  EXPECT_FALSE(filter->Accepts(""));  // RFC 9110 8.3: no type = octet-stream
}

TEST(MediaTypeFilter, BadPatternIsAnError) {
  EXPECT_FALSE(MediaTypeFilter::Create({"html"}, {}).ok());
  EXPECT_FALSE(MediaTypeFilter::Create({}, {"image/"}).ok());
}

TEST(ExtensionList, SplitsLowersAndDropsDots) {
  auto list = ParseExtensionList("pdf, .ZIP,tar.gz");
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_THAT(*list, ElementsAre("pdf", "zip", "tar.gz"));
}

TEST(ExtensionList, RefusesEmptyAndOddItems) {
  for (const char* bad : {"", "pdf,,zip", "pdf,", "p/df", "pdf?", "..pdf", "pdf.", "a b"}) {
    EXPECT_FALSE(ParseExtensionList(bad).ok()) << bad;
  }
}

TEST(HasExtension, LastPathSegmentOnly) {
  const std::vector<std::string> ext = {"pdf", "tar.gz"};
  EXPECT_TRUE(HasExtension("http://a.test/x.pdf", ext));
  EXPECT_TRUE(HasExtension("https://a.test/d/Y.Pdf?x=1#f", ext));
  EXPECT_TRUE(HasExtension("http://a.test/src-1.0.tar.gz", ext));
  EXPECT_FALSE(HasExtension("http://a.test/.pdf", ext));
  EXPECT_FALSE(HasExtension("http://a.test/", ext));
  EXPECT_FALSE(HasExtension("http://a.test", ext));
  EXPECT_FALSE(HasExtension("http://a.test/x.pdf/", ext));
  EXPECT_FALSE(HasExtension("http://a.test/x?f=a.pdf", ext));
  EXPECT_FALSE(HasExtension("http://a.test/x.gz", ext));
  EXPECT_FALSE(HasExtension("http://a.test/x.pdf", {}));
}

}  // namespace
}  // namespace crawler
