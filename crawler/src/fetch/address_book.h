// AddressBook: which server each authority's name resolves to, for grouping
// hosts by server (HostAddresses, host_queues.h: --per-ip, --ip-delay).
//
//   auto book = crawler::AddressBook::Create({.resolve = {"a.test:80:127.0.0.1"}});
//   std::optional<std::string> server = (*book)->AddressOf("http://a.test");
//   // "127.0.0.1:80"; nullopt while a name is being looked up; "" when a
//   // name does not resolve (the fetch then fails with a dns error).
//
// An IP literal answers at once, a --resolve entry (curl's syntax,
// HOST:PORT:ADDRESS[,ADDRESS...]: its first ADDRESS) too; any other name is
// looked up with getaddrinfo on the book's own threads, never on the
// caller's (it may block for seconds), and asked for again until answered.
// The first address getaddrinfo gives is the server (the fetch connects
// there: CURLOPT_CONNECT_TO, FetchRequest::connect_address).
//
// Memory: at most max_entries names (~100 bytes each: 65,536 names is
// ~6.5 MB). getaddrinfo gives no TTL, so an answer is kept a fixed
// `lifetime` (5 min), a failure `failure_lifetime` (30 s); an expired
// answer is still given while it is looked up again. When full, expired
// entries are dropped, and if none is, every answered one (they are looked
// up again on demand).
//
// Threading: every method is safe to call concurrently.
#ifndef CRAWLER_SRC_FETCH_ADDRESS_BOOK_H_
#define CRAWLER_SRC_FETCH_ADDRESS_BOOK_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/host_queues.h"

namespace crawler {

// One --resolve entry, HOST:PORT:ADDRESS[,ADDRESS...] (an IPv6 ADDRESS in
// brackets), as curl reads it.
struct ResolveEntry {
  std::string host;  // lower case
  int port = 0;
  std::string address;  // the first ADDRESS, an IPv6 one in brackets
};
// Parses `entry`; an InvalidArgumentError names the flag and the entry
// ("--resolve 'a.test:80': no ADDRESS (expected HOST:PORT:ADDRESS)").
absl::StatusOr<ResolveEntry> ParseResolveEntry(const std::string& entry);

struct AddressBookOptions {
  std::vector<std::string> resolve;  // --resolve entries
  size_t max_entries = 65'536;
  absl::Duration lifetime = absl::Minutes(5);
  absl::Duration failure_lifetime = absl::Seconds(30);
  // Threads calling getaddrinfo: a lookup may take seconds, so a few run
  // side by side; each is idle (blocked on a condition) when none is asked.
  int threads = 4;
  // The name lookup: the first address of `host`, "" when it does not
  // resolve. Empty: getaddrinfo. Tests put their own here. Called on the
  // book's threads.
  std::function<std::string(const std::string& host)> lookup;
  // The clock for lifetimes; empty: absl::Now.
  std::function<absl::Time()> now;
};

class AddressBook : public HostAddresses {
 public:
  // Validates the --resolve entries (ParseResolveEntry) and max_entries,
  // threads >= 1; starts the threads.
  static absl::StatusOr<std::unique_ptr<AddressBook>> Create(AddressBookOptions options);
  ~AddressBook() override;  // stops and joins the threads
  AddressBook(const AddressBook&) = delete;
  AddressBook& operator=(const AddressBook&) = delete;

  std::optional<std::string> AddressOf(const std::string& authority) override;

  // Names with an entry now (answered or being looked up).
  size_t size() const;

 private:
  struct Entry {
    std::string address;  // "" = did not resolve (or not answered yet)
    absl::Time expires = absl::InfinitePast();
    bool answered = false;
    bool looking_up = false;
  };
  explicit AddressBook(AddressBookOptions options);
  void Run();                           // a lookup thread
  void MakeRoomLocked(absl::Time now);  // requires mu_
  absl::Time Now() const { return options_.now ? options_.now() : absl::Now(); }

  const AddressBookOptions options_;
  absl::flat_hash_map<std::string, std::string> fixed_;  // "host:port" -> address (--resolve)
  mutable std::mutex mu_;
  std::condition_variable wake_;
  absl::flat_hash_map<std::string, Entry> names_;  // guarded by mu_
  std::deque<std::string> to_look_up_;             // guarded by mu_
  bool stopping_ = false;                          // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace crawler

#endif  // CRAWLER_SRC_FETCH_ADDRESS_BOOK_H_
