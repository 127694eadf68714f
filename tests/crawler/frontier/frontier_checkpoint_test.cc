// Frontier::Checkpoint and Restore: the snapshot holds counters and
// per-host counts, nothing per URL, taken while the Sieve is saved; a
// Frontier restored over the Sieve opened from that save hands the same URLs
// out again with their depth, parent and hops (their Sieve payloads).
#include <filesystem>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "crawler/frontier.h"
#include "gtest/gtest.h"
#include "sieve/sieve.h"

namespace crawler {
namespace {

namespace fs = std::filesystem;
const absl::Time kCheckpointT0 = absl::FromUnixSeconds(2'000'000);

std::unique_ptr<sieve::Sieve> NewSieve() {
  sieve::SieveOptions options;
  options.expected_count = 1000;
  auto sieve = sieve::Sieve::Create(options);
  EXPECT_TRUE(sieve.ok());
  return sieve.ok() ? std::move(*sieve) : nullptr;
}

FrontierOptions Options() {
  FrontierOptions options;
  options.per_host = 100;
  options.delay = absl::ZeroDuration();
  options.max_pages_per_host = 50;
  return options;
}

TEST(FrontierCheckpoint, RestoredFrontierHandsOutWhatWasNotDone) {
  const fs::path dir = fs::temp_directory_path() / ("frontier-ckpt-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto sieve = NewSieve();
  auto frontier = Frontier::Create(sieve.get(), Options());
  ASSERT_TRUE(frontier.ok());
  CrawlUrl seed;
  seed.url = "http://a/";
  (*frontier)->Offer(seed);
  (*frontier)->OfferLinks({"http://a/1", "http://a/2", "http://a/3"}, 1, "http://a/");
  std::optional<CrawlUrl> first = (*frontier)->Next(kCheckpointT0);  // the seed
  ASSERT_TRUE(first.has_value());
  (*frontier)->Release(*first, FetchOutcome{}, kCheckpointT0);
  (*frontier)->Done(*first);
  std::optional<CrawlUrl> in_flight = (*frontier)->Next(kCheckpointT0);  // a/1: fetched, not Done
  ASSERT_TRUE(in_flight.has_value());

  absl::StatusOr<FrontierSnapshot> snapshot =
      (*frontier)->Checkpoint([&] { return sieve->Save(dir); });
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  // a/1 in flight, a/2 and a/3 buffered: all queued again in the reopened Sieve.
  ASSERT_EQ(snapshot->queued_hosts.size(), 1u);
  EXPECT_EQ(snapshot->queued_hosts[0].second, 3u);
  EXPECT_EQ(snapshot->stats.done, 1u);
  ASSERT_EQ(snapshot->per_host.size(), 1u);
  EXPECT_EQ(snapshot->per_host[0].second, 4u);

  auto reopened = sieve::Sieve::Open(dir);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  auto restored = Frontier::Create(reopened->get(), Options());
  ASSERT_TRUE(restored.ok());
  (*restored)->Restore(*snapshot);
  std::vector<CrawlUrl> again;
  while (auto u = (*restored)->Next(kCheckpointT0)) again.push_back(*u);
  ASSERT_EQ(again.size(), 3u);
  EXPECT_EQ(again[0].url, "http://a/1");  // in flight first, as the Sieve saved it
  for (const CrawlUrl& u : again) {
    EXPECT_EQ(u.depth, 1) << u.url;
    EXPECT_EQ(u.parent, "http://a/") << u.url;
  }
  EXPECT_EQ((*restored)->Stats().handed_out, 1u + 3u);  // done before + handed out now
  EXPECT_FALSE((*restored)->Offer(seed));               // still seen
  // The per-host count came back: a/ has 4 of its 50 accepted.
  std::vector<std::string> more;
  for (int i = 0; i < 60; ++i) more.push_back("http://a/more" + std::to_string(i));
  EXPECT_EQ((*restored)->OfferLinks(more, 1, "http://a/"), 46u);
  fs::remove_all(dir);
}

TEST(FrontierCheckpoint, FailedSieveSaveIsReturned) {
  auto sieve = NewSieve();
  auto frontier = Frontier::Create(sieve.get(), Options());
  ASSERT_TRUE(frontier.ok());
  absl::StatusOr<FrontierSnapshot> snapshot =
      (*frontier)->Checkpoint([] { return absl::UnavailableError("disk full"); });
  ASSERT_FALSE(snapshot.ok());
  EXPECT_EQ(snapshot.status().message(), "disk full");
}

}  // namespace
}  // namespace crawler
