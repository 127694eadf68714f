// AddressBook: --resolve entries parsed as curl reads them (and refused with
// the flag and the entry named), IP literals, and lookups on the book's own
// threads, cached for a fixed lifetime and bounded in entries.
#include "../../../crawler/src/fetch/address_book.h"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

TEST(ParseResolveEntry, HostPortAndTheFirstAddress) {
  auto entry = ParseResolveEntry("H0.Test:8080:127.0.0.1");
  ASSERT_TRUE(entry.ok()) << entry.status();
  EXPECT_EQ(entry->host, "h0.test");
  EXPECT_EQ(entry->port, 8080);
  EXPECT_EQ(entry->address, "127.0.0.1");
  auto v6 = ParseResolveEntry("a.test:443:[::1],127.0.0.2");
  ASSERT_TRUE(v6.ok()) << v6.status();
  EXPECT_EQ(v6->address, "[::1]");
  auto bare_v6 = ParseResolveEntry("a.test:443:::1");
  ASSERT_TRUE(bare_v6.ok()) << bare_v6.status();
  EXPECT_EQ(bare_v6->address, "[::1]");
}

TEST(ParseResolveEntry, BadSyntaxNamesTheFlagAndTheEntry) {
  for (const char* bad : {"crawl.test:80", ":80:127.0.0.1", "a.test:http:127.0.0.1",
                          "a.test:0:127.0.0.1", "a.test:80:", "a.test:80:not-an-ip"}) {
    auto entry = ParseResolveEntry(bad);
    ASSERT_FALSE(entry.ok()) << bad;
    EXPECT_TRUE(absl::IsInvalidArgument(entry.status())) << bad;
    EXPECT_NE(entry.status().message().find(std::string("--resolve '") + bad + "'"),
              std::string::npos)
        << entry.status();
  }
  AddressBookOptions options;
  options.resolve = {"a.test:80"};
  EXPECT_FALSE(AddressBook::Create(options).ok());
}

TEST(AddressBook, ResolveEntriesAndLiteralsAnswerAtOnce) {
  AddressBookOptions options;
  options.resolve = {"h1.test:8080:127.0.0.1", "h2.test:8080:127.0.0.1"};
  options.lookup = [](const std::string&) -> std::string {
    ADD_FAILURE() << "no lookup expected";
    return "";
  };
  auto book = AddressBook::Create(options);
  ASSERT_TRUE(book.ok()) << book.status();
  EXPECT_EQ((*book)->AddressOf("http://h1.test:8080"), "127.0.0.1:8080");
  EXPECT_EQ((*book)->AddressOf("http://H2.test:8080"), "127.0.0.1:8080");
  EXPECT_EQ((*book)->AddressOf("http://127.0.0.7:81"), "127.0.0.7:81");
  EXPECT_EQ((*book)->AddressOf("https://[::1]"), "[::1]:443");
  EXPECT_EQ((*book)->AddressOf("http://10.0.0.1"), "10.0.0.1:80");
}

// Waits (bounded: 10 s) until `authority` is answered.
std::optional<std::string> Answer(AddressBook& book, const std::string& authority) {
  for (int i = 0; i < 10'000; ++i) {
    if (auto answer = book.AddressOf(authority)) return answer;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return std::nullopt;
}

TEST(AddressBook, NamesAreLookedUpOffTheCallersThreadAndKeptForTheirLifetime) {
  std::atomic<int> lookups = 0;
  std::atomic<absl::Time> now = absl::FromUnixSeconds(1'000);
  AddressBookOptions options;
  options.lifetime = absl::Minutes(5);
  options.failure_lifetime = absl::Seconds(30);
  const std::thread::id caller = std::this_thread::get_id();
  options.lookup = [&](const std::string& host) -> std::string {
    EXPECT_NE(std::this_thread::get_id(), caller);
    ++lookups;
    return host == "gone.invalid" ? "" : "192.0.2.7";
  };
  options.now = [&] { return now.load(); };
  auto book = AddressBook::Create(options);
  ASSERT_TRUE(book.ok()) << book.status();
  EXPECT_EQ((*book)->AddressOf("http://a.test"), std::nullopt);  // not known yet
  EXPECT_EQ(Answer(**book, "http://a.test"), "192.0.2.7:80");
  EXPECT_EQ(Answer(**book, "https://a.test"), "192.0.2.7:443");  // one name, any port
  EXPECT_EQ(lookups.load(), 1);
  EXPECT_EQ(Answer(**book, "http://gone.invalid"), "");  // did not resolve: not grouped
  EXPECT_EQ(lookups.load(), 2);
  // Past its lifetime an answer is still given while it is looked up again.
  now = now.load() + absl::Minutes(5);
  EXPECT_EQ((*book)->AddressOf("http://a.test"), "192.0.2.7:80");
  for (int i = 0; i < 10'000 && lookups.load() < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(lookups.load(), 3);
}

TEST(AddressBook, BoundedInEntries) {
  AddressBookOptions options;
  options.max_entries = 8;
  options.lookup = [](const std::string&) { return std::string("192.0.2.1"); };
  auto book = AddressBook::Create(options);
  ASSERT_TRUE(book.ok()) << book.status();
  for (int i = 0; i < 100; ++i) {
    const std::string authority = "http://n" + std::to_string(i) + ".test";
    EXPECT_EQ(Answer(**book, authority), "192.0.2.1:80");
    EXPECT_LE((*book)->size(), 8u);
  }
}

TEST(AddressBook, GetaddrinfoAnswersLocalhost) {
  // /etc/hosts: no traffic leaves the machine.
  auto book = AddressBook::Create({});
  ASSERT_TRUE(book.ok()) << book.status();
  const std::optional<std::string> answer = Answer(**book, "http://localhost:8080");
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(*answer == "127.0.0.1:8080" || *answer == "[::1]:8080") << *answer;
}

}  // namespace
}  // namespace crawler
