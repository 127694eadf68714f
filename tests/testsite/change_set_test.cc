// The site across epochs: the ChangeSet's counts are what the
// server then serves (404s, new bodies, new pages linked from the root), and
// ETag / Last-Modified / 304 follow RFC 9110's conditional GET rules.
#include "testsite/change_set.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <cmath>
#include <string>

#include "testsite/test_site.h"

namespace testsite {
namespace {

SiteOptions ChangingSite() {
  SiteOptions options;
  options.pages = 400;
  options.changed_fraction = 0.1;
  options.removed_fraction = 0.05;
  options.added_fraction = 0.02;
  options.validators = true;
  return options;
}

TEST(ChangeSet, EpochCountsAreNearTheirFractionsAndDisjoint) {
  const ChangeSet changes(ChangingSite());
  const EpochChanges e1 = changes.Between(1);
  EXPECT_EQ(e1.added.size(), 8u);    // floor(0.02 * 400)
  EXPECT_EQ(e1.edited.front(), 0u);  // the root links to them
  EXPECT_NEAR(static_cast<double>(e1.edited.size()), 40, 3 * std::sqrt(40.0));  // 0.1 * 399
  EXPECT_NEAR(static_cast<double>(e1.removed.size()), 20, 3 * std::sqrt(20.0));
  for (const uint64_t page : e1.removed) {
    EXPECT_FALSE(changes.Exists(page, 1));
    EXPECT_TRUE(changes.Exists(page, 0));
    EXPECT_FALSE(changes.Exists(page, 2));  // gone for good
  }
  for (const uint64_t page : e1.edited) EXPECT_EQ(changes.Revision(page, 1), 1) << page;
  for (const uint64_t page : e1.added) EXPECT_EQ(changes.LastChange(page, 5), 1);
  // Epoch 2 edits and removes only pages still there after epoch 1.
  for (const uint64_t page : changes.Between(2).removed) EXPECT_TRUE(changes.Exists(page, 1));
  EXPECT_EQ(changes.Between(2).added.front(), 408u);
  EXPECT_TRUE(changes.Between(0).edited.empty());
}

TEST(ChangeSet, TheServerServesTheEpoch) {
  auto site = TestSite::Start(ChangingSite());
  ASSERT_TRUE(site.ok()) << site.status();
  httplib::Client client("127.0.0.1", (*site)->port());
  const EpochChanges e1 = (*site)->changes().Between(1);
  ASSERT_FALSE(e1.removed.empty());
  const std::string removed = "/p/" + std::to_string(e1.removed[0]) + ".html";
  const std::string edited = "/p/" + std::to_string(e1.edited[1]) + ".html";
  const std::string added = "/p/" + std::to_string(e1.added[0]) + ".html";

  const auto before = client.Get(edited);
  ASSERT_TRUE(before);
  EXPECT_EQ(before->status, 200);
  EXPECT_EQ(client.Get(removed)->status, 200);
  EXPECT_EQ(client.Get(added)->status, 404);
  EXPECT_EQ(before->get_header_value("Last-Modified"), "Wed, 01 Jan 2020 00:00:00 GMT");
  const std::string etag = before->get_header_value("ETag");

  // Unchanged: both conditional forms give a 304 with no body.
  auto same = client.Get(edited, {{"If-None-Match", etag}});
  EXPECT_EQ(same->status, 304);
  EXPECT_TRUE(same->body.empty());
  EXPECT_EQ(client.Get(edited, {{"If-Modified-Since", "Wed, 01 Jan 2020 00:00:00 GMT"}})->status,
            304);
  EXPECT_EQ(client.Get(edited, {{"If-Modified-Since", "Tue, 31 Dec 2019 00:00:00 GMT"}})->status,
            200);

  (*site)->SetEpoch(1);
  EXPECT_EQ(client.Get(removed)->status, 404);
  EXPECT_EQ(client.Get(added)->status, 200);
  const auto after = client.Get(edited, {{"If-None-Match", etag}});
  EXPECT_EQ(after->status, 200);
  EXPECT_NE(after->body, before->body);
  EXPECT_NE(after->get_header_value("ETag"), etag);
  EXPECT_EQ(after->get_header_value("Last-Modified"), "Thu, 02 Jan 2020 00:00:00 GMT");
  // If-None-Match wins over If-Modified-Since (RFC 9110, 13.2.2).
  EXPECT_EQ(client
                .Get(edited, {{"If-None-Match", etag},
                              {"If-Modified-Since", "Fri, 01 Jan 2021 00:00:00 GMT"}})
                ->status,
            200);
  const auto root = client.Get("/");
  EXPECT_NE(root->body.find("href=\"" + added + "\""), std::string::npos);
  // The server saw the conditional headers (what the crawler's tests check).
  bool seen = false;
  for (const RequestRecord& r : (*site)->RequestLog()) seen = seen || r.if_none_match == etag;
  EXPECT_TRUE(seen);
}

TEST(ChangeSet, BadFractionsAreRefusedNamingTheField) {
  SiteOptions options;
  options.changed_fraction = 1.5;
  const auto site = TestSite::Start(options);
  ASSERT_FALSE(site.ok());
  EXPECT_NE(site.status().message().find("changed_fraction"), std::string::npos);
}

}  // namespace
}  // namespace testsite
