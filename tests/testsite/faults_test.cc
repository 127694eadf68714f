// SiteOptions::fault_rate: a seeded share of the pages fails its
// first request in one of the promised ways and succeeds afterwards; the same
// seed picks the same pages. Source of truth: the bytes on a plain socket
// (an RST shows as ECONNRESET, a cut body as EOF before Content-Length).
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <set>
#include <string>

#include "absl/strings/numbers.h"
#include "testsite/test_site.h"

namespace {

using testsite::SiteOptions;
using testsite::TestSite;

constexpr uint64_t kPages = 200;

std::unique_ptr<TestSite> StartFaulty(double rate, uint64_t seed) {
  SiteOptions options;
  options.pages = kPages;
  options.page_bytes = 1024;
  options.fault_rate = rate;
  options.fault_stall_ms = 50;
  options.seed = seed;
  auto site = TestSite::Start(options);
  EXPECT_TRUE(site.ok()) << site.status();
  return site.ok() ? std::move(*site) : nullptr;
}

// What one GET on a fresh connection got back.
struct Answer {
  int status = 0;
  bool reset = false;     // recv failed with ECONNRESET
  bool complete = false;  // the whole Content-Length arrived
};

Answer Get(const TestSite& site, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(site.port()));
  ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  Answer answer;
  std::string got;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) {
    const std::string request = "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    (void)::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    char buf[65536];
    ssize_t n = 0;
    while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) got.append(buf, static_cast<size_t>(n));
    answer.reset = n < 0 && errno == ECONNRESET;
  }
  ::close(fd);
  const size_t head_end = got.find("\r\n\r\n");
  if (got.size() < 12 || head_end == std::string::npos) return answer;
  (void)absl::SimpleAtoi(got.substr(9, 3), &answer.status);
  const size_t length_at = got.find("Content-Length: ");
  size_t length = 0;
  if (length_at != std::string::npos && length_at < head_end &&
      absl::SimpleAtoi(got.substr(length_at + 16, got.find("\r\n", length_at) - length_at - 16),
                       &length)) {
    answer.complete = got.size() - head_end - 4 == length;
  }
  return answer;
}

std::string PagePath(uint64_t i) { return i == 0 ? "/" : "/p/" + std::to_string(i) + ".html"; }

TEST(Faults, FirstRequestOfAFaultyPageFailsEveryLaterOneSucceeds) {
  auto site = StartFaulty(0.5, 3);
  ASSERT_NE(site, nullptr);
  int statuses_500 = 0, statuses_503 = 0, resets = 0, truncated = 0, clean = 0;
  for (uint64_t i = 0; i < kPages; ++i) {
    const Answer first = Get(*site, PagePath(i));
    statuses_500 += first.status == 500;
    statuses_503 += first.status == 503;
    resets += first.reset;
    truncated += first.status == 200 && !first.complete && !first.reset;
    clean += first.status == 200 && first.complete;
    EXPECT_EQ(site->FailuresInjected(PagePath(i)), first.status == 200 && first.complete ? 0 : 1)
        << PagePath(i);
    const Answer second = Get(*site, PagePath(i));
    EXPECT_EQ(second.status, 200) << PagePath(i);
    EXPECT_TRUE(second.complete) << PagePath(i);
  }
  const testsite::FaultCounts faults = site->InjectedFaults();
  EXPECT_EQ(faults.http_500, static_cast<uint64_t>(statuses_500));
  EXPECT_EQ(faults.http_503, static_cast<uint64_t>(statuses_503));
  EXPECT_EQ(faults.resets, static_cast<uint64_t>(resets));
  EXPECT_EQ(faults.truncations, static_cast<uint64_t>(truncated));
  EXPECT_GT(faults.stalls, 0u);  // a stall is a complete 200, only late
  // Half the pages faulty: binomial(200, 0.5) is within 100 +- 30 with
  // probability 1 - 2e-5; the seed is fixed anyway.
  const uint64_t faulty = faults.failures() + faults.stalls;
  EXPECT_GT(faulty, 70u);
  EXPECT_LT(faulty, 130u);
  EXPECT_EQ(clean + static_cast<int>(faults.failures()), static_cast<int>(kPages));
  // Each of the five kinds gets about a fifth of the faulty pages.
  for (uint64_t kind : {faults.http_500, faults.http_503, faults.resets, faults.truncations}) {
    EXPECT_GT(kind, 5u);
  }
}

TEST(Faults, TheSameSeedPicksTheSamePagesAnotherSeedOthers) {
  auto faulty_pages = [](uint64_t seed) {
    auto site = StartFaulty(0.2, seed);
    std::set<uint64_t> failed;
    if (site == nullptr) return failed;
    for (uint64_t i = 0; i < kPages; ++i) {
      const Answer first = Get(*site, PagePath(i));
      if (!(first.status == 200 && first.complete)) failed.insert(i);
    }
    return failed;
  };
  const std::set<uint64_t> a = faulty_pages(11);
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(faulty_pages(11), a);
  EXPECT_NE(faulty_pages(12), a);
}

TEST(Faults, RateOutsideZeroOneIsRejected) {
  SiteOptions options;
  options.fault_rate = 1.5;
  EXPECT_FALSE(TestSite::Start(options).ok());
  options.fault_rate = -0.1;
  EXPECT_FALSE(TestSite::Start(options).ok());
}

}  // namespace
