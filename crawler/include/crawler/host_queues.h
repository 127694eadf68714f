// HostQueues: the frontier's back queues (Mercator's design). One FIFO per
// authority ("scheme://host:port"), and a heap of authorities ordered by the
// time each may next be fetched. `TakeReady` hands out the URL of the
// authority that has been ready longest, provided it has a free connection
// slot; `Release` gives the slot back and asks the HostPolicy when that
// authority may be fetched again. Politeness (robots, delays, back-off) lives in
// the HostPolicy, not here.
//
//   crawler::FixedDelayPolicy policy(/*connections=*/2, absl::Seconds(1));
//   crawler::HostQueues queues(&policy);
//   queues.Add(std::move(url));
//   if (auto next = queues.TakeReady(absl::Now())) { Fetch(*next); }
//   ... queues.Release(next->authority, outcome, absl::Now());
//   absl::Time wake = queues.NextReadyTime();   // when to look again
//
// Servers: with a HostAddresses (below), authorities are also grouped by
// the server they resolve to ("ADDR:PORT"), and a URL is handed out only
// when both its authority and its server allow a start: the policy's
// AddressConnections fetches at once and AddressInterval between starts
// per server, so a thousand names on one shared host cannot open a
// thousand connections to it. TakeReady stamps CrawlUrl::address, which the
// fetch connects to, so the grouping is what the server sees.
//
// Dropped hosts: when the policy's DropReason names a reason for an
// authority, its queued and later URLs are handed out at once, without a
// slot or a delay, with CrawlUrl::drop_reason set: the caller records them
// instead of fetching them (and does not Release them).
//
// Memory: one small record per authority with URLs queued, in flight or
// waiting out a pause (~100 bytes plus its name; idle ones are swept and the
// policy told to Forget them) and the queued URLs themselves; the caller
// bounds the latter by how much it adds (the Frontier pulls from the Sieve
// only up to a budget, see over_cap()).
//
// Threading: not thread-safe; the Frontier serializes access under its lock.
#ifndef CRAWLER_HOST_QUEUES_H_
#define CRAWLER_HOST_QUEUES_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"

namespace crawler {

// What the previous crawl recorded of a URL (--recrawl): sent back
// as If-None-Match / If-Modified-Since, compared with the new body, and the
// interval the URL is revisited at. Travels in the Sieve payload (version 2,
// frontier/url_payload.h): ~100 bytes a URL with a typical ETag.
struct PreviousFetch {
  absl::Time fetched_at;  // its last fetch (millisecond resolution, as pages.jsonl)
  int64_t revisit_s = 0;  // its revisit interval, seconds
  int status = 0;         // the status recorded then
  int64_t bytes = 0;      // body bytes it had (what a 304 or a carried record saves)
  std::string etag;       // "" when the server sent none
  std::string last_modified;
  std::string digest;  // "sha1:" + base32 of the body
};

// A URL on its way to a fetcher, with what the crawl knows about it.
struct CrawlUrl {
  std::string url;        // normalized (the Sieve's key)
  std::string authority;  // "scheme://host[:port]", the per-host key
  int depth = 0;          // hops from a seed through links; redirects keep the depth
  std::string parent;     // the page that linked or redirected here; "" for seeds
  int redirect_hops = 0;  // redirects followed to reach this URL
  // Its Sieve priority (crawler/link_priority.h): within a host's queue,
  // higher first, then in arrival order.
  int32_t priority = 0;
  // Set by HostQueues when the authority was dropped (HostPolicy::DropReason):
  // record the URL with error "host_dropped: <reason>", do not fetch it.
  std::string drop_reason;
  // A request the crawl makes for itself (a sitemap, Frontier::QueueSitemap),
  // not a page: it waits for its host's slot and delay like a page, but is not
  // a page of the crawl (no Sieve entry, no page count, no Done).
  bool sitemap = false;
  // The server its authority resolved to, "ADDR:PORT" (an IPv6 ADDR in
  // brackets), set by HostQueues when it was grouped by server; the fetch
  // connects there. "" when not grouped (curl resolves the name itself).
  std::string address;
  // Set for a URL of the previous crawl (--recrawl); nullopt for any other.
  std::optional<PreviousFetch> previous;
  // Set by the Frontier for a previous URL not due yet (fetched_at +
  // revisit_s > now): record it as carried, do not fetch it.
  bool carried = false;
};

// How one fetch of an authority ended; what a HostPolicy may react to.
struct FetchOutcome {
  int status = 0;          // HTTP status, 0 when no response
  bool failed = false;     // transport error (timeout, reset, ...)
  absl::Duration elapsed;  // transfer time
  // From the fetch's start to its request going out (connect, TLS and
  // libcurl's queueing done); zero when no request was sent. The server
  // sees the fetch at about start + sent_after, so spacing counted from
  // there holds at the server however long the set-up took.
  absl::Duration sent_after;
  // The fetch error's kind ("timeout", "connect", "reset", "dns", ...; see
  // fetch.h), "" when a response arrived whole.
  std::string error_kind;
  // Retry-After of a 429 or 503 response (RetryAfterFromHeaders), uncapped.
  std::optional<absl::Duration> retry_after;
};

// When an authority may be fetched, and how many at once. One interface, so
// that the queues do not care which rule answers: FixedDelayPolicy (below:
// --per-host and --delay as given) or PolitePolicy (polite_policy.h: the
// crawler's, with robots.txt Crawl-delay, Retry-After and back-off on
// 429/503 and failures).
class HostPolicy {
 public:
  virtual ~HostPolicy() = default;
  // Concurrent fetches allowed to `authority`; >= 1.
  virtual int MaxConnections(const std::string& authority) = 0;
  // Minimum time between the starts of two fetches of `authority`.
  virtual absl::Duration StartInterval(const std::string& authority) = 0;
  // Called when a fetch of `authority` ended at `now`: the earliest time the
  // next one may start (now for "no extra wait"; later to back off or to
  // space the next start from this fetch's request, `sent_after`). A slot
  // given back unfetched comes with an empty FetchOutcome (status 0, not
  // failed, no error kind).
  virtual absl::Time NextFetchTime(const std::string& authority, const FetchOutcome& outcome,
                                   absl::Time now) = 0;
  // Why `authority` must not be fetched any more, or null. Asked after each
  // NextFetchTime and when an authority's record is created.
  virtual const std::string* DropReason(const std::string& /*authority*/) { return nullptr; }
  // Why `authority` may not start a fetch before `until` when a pause of the
  // policy's (Retry-After, back-off) holds it; "" when only its start
  // interval does. For the crawl's "waiting for" log line.
  virtual std::string PauseReason(const std::string& /*authority*/, absl::Time /*until*/) {
    return "";
  }
  // HostQueues swept `authority` (nothing queued, in flight or pending): the
  // policy may drop what it keeps for it, so per-host state stays bounded.
  virtual void Forget(const std::string& /*authority*/) {}
  // Concurrent fetches allowed to the server `authority` resolved to, across
  // all the names it serves, checked when `authority` starts one; 0 = no
  // per-server limit. Only asked when the HostQueues has HostAddresses.
  virtual int AddressConnections(const std::string& /*authority*/) { return 0; }
  // Minimum time between two starts on that server (checked likewise).
  virtual absl::Duration AddressInterval(const std::string& /*authority*/) {
    return absl::ZeroDuration();
  }
};

// Which server an authority's name resolves to, for grouping authorities by
// server (see HostQueues). One method, so a test can map names as it likes;
// the crawl's is fetch's AddressBook (getaddrinfo off the scheduler thread,
// cached, and --resolve).
class HostAddresses {
 public:
  virtual ~HostAddresses() = default;
  // "ADDR:PORT" of `authority` ("scheme://host[:port]"), IPv6 ADDR in
  // brackets; "" when it has no address to group by (the name did not
  // resolve: the fetch then fails as curl finds it, a dns error);
  // nullopt while the answer is not known yet (being looked up): the
  // authority is asked again kAddressRetry later. Must not block.
  virtual std::optional<std::string> AddressOf(const std::string& authority) = 0;
};

// Why an authority ready on its own waits for its server (HostQueues::
// ServerHoldOf): none, the server's start interval (AddressInterval), all
// its connections in use here (AddressConnections), or the fleet's lease of
// the server refused a start (ServerLeases, below).
enum class ServerHold { kNone, kInterval, kSlots, kFleet };

// What HostQueues counted of one server: starts, and waits of an authority
// ready on its own for the server's slots or its start interval (the
// fleet's lease counts among the slot waits).
struct ServerCount {
  uint64_t starts = 0;
  uint64_t slot_waits = 0;
  uint64_t delay_waits = 0;
};

// A server's fetch slots shared with other processes (a fleet on one shared
// frontier: app/redis_frontier.h keeps them in Redis), so --per-ip and
// --ip-delay hold across the fleet, not per process. HostQueues asks it
// after its own limits allowed a start on a server, and gives the slot
// back at the fetch's end. Threading: HostQueues calls it under the
// Frontier's lock; it may wait for a round trip, never much longer.
class ServerLeases {
 public:
  virtual ~ServerLeases() = default;
  struct Grant {
    std::string token;        // the slot's; "" when refused
    absl::Duration retry_in;  // refused: when to ask again (0: the caller's poll interval)
  };
  // One of `address`'s `limit` slots (0: no limit) if nobody of the fleet
  // started there less than `interval` ago.
  virtual Grant Take(const std::string& address, int limit, absl::Duration interval) = 0;
  // Gives the slot of `token` back; the next start there no sooner than
  // `next_start_in` from now.
  virtual void Give(const std::string& address, const std::string& token,
                    absl::Duration next_start_in) = 0;
};

// The default policy (--per-host, --delay): `connections` per authority and
// `delay` between the starts of two fetches of it; no back-off.
class FixedDelayPolicy : public HostPolicy {
 public:
  FixedDelayPolicy(int connections, absl::Duration delay)
      : connections_(connections < 1 ? 1 : connections), delay_(delay) {}
  int MaxConnections(const std::string&) override { return connections_; }
  absl::Duration StartInterval(const std::string&) override { return delay_; }
  absl::Time NextFetchTime(const std::string&, const FetchOutcome&, absl::Time now) override {
    return now;
  }

 private:
  const int connections_;
  const absl::Duration delay_;
};

// "scheme://host[:port]" of a serialized absolute URL (userinfo dropped), or
// the whole string up to the path when it does not look like one. For
// WHATWG-serialized URLs this is the same key for the same origin.
std::string AuthorityOf(const std::string& url);
// AuthorityOf(url) without a copy where it is a prefix of `url` (no
// userinfo, as in every normalized URL); otherwise AuthorityOf(url), kept in
// `scratch`. The view lives as long as `url` and `scratch` are unchanged.
std::string_view AuthorityView(std::string_view url, std::string& scratch);

class HostQueues {
 public:
  // `max_queued_per_host`: URLs of one authority beyond this many count as
  // over_cap() instead of queued-under-cap (see Frontier's refill); 0 = no cap.
  // `addresses`: null = no grouping by server (per-authority limits only).
  // `leases`: the fleet's server slots (only with `addresses`); null = the
  // per-server limits hold in this process only.
  explicit HostQueues(HostPolicy* policy, size_t max_queued_per_host = 0,
                      HostAddresses* addresses = nullptr, ServerLeases* leases = nullptr)
      : policy_(policy), cap_(max_queued_per_host), addresses_(addresses), leases_(leases) {}

  // How long a server whose fleet slots are all held waits before it is
  // asked for again: one round trip per server per poll, whatever the
  // number of its names waiting.
  static constexpr absl::Duration kFleetPoll = absl::Milliseconds(20);

  // How long an authority whose address is being looked up waits before
  // it is asked for again.
  static constexpr absl::Duration kAddressRetry = absl::Milliseconds(10);

  // Queues `url` behind the others of its authority of the same or a higher
  // priority, ahead of those of a lower one (url.authority; filled in with
  // AuthorityOf when empty). All at one priority: a FIFO.
  void Add(CrawlUrl url);

  // The next URL whose authority is ready at `now` and has a free slot, or
  // nullopt. The returned URL holds one of its authority's slots until Release.
  std::optional<CrawlUrl> TakeReady(absl::Time now);

  // Gives back the slot of a URL returned by TakeReady. An unfetched outcome
  // (status 0, not failed, no error kind) right after its TakeReady also
  // gives back the start interval that take began.
  void Release(const std::string& authority, const FetchOutcome& outcome, absl::Time now);

  // Earliest time some queued authority becomes ready (may be in the past);
  // InfiniteFuture when every authority with URLs is at its connection limit
  // or nothing is queued.
  absl::Time NextReadyTime() const;
  // The authority NextReadyTime is for ("" when nothing is scheduled). A
  // stale heap entry may name a time earlier than the authority's real one.
  const std::string& NextReadyAuthority() const;

  size_t queued() const { return queued_; }
  // Queued URLs beyond their authority's first max_queued_per_host.
  size_t over_cap() const { return over_cap_; }
  // Authorities with at least max_queued_per_host URLs queued (another Add
  // would be over the cap); empty when there is no cap.
  const absl::flat_hash_set<std::string>& at_cap() const { return at_cap_; }
  bool AtCap(const std::string& authority) const { return at_cap_.contains(authority); }
  // URLs taken (Next) and not yet Released: the fetches under way.
  size_t fetching() const { return fetching_; }
  size_t authorities() const { return hosts_.size(); }
  // Servers with a record (fetches in flight, authorities waiting for a
  // slot, or a start interval running).
  size_t servers() const { return servers_.size(); }
  // Times an authority ready on its own had to wait for its server, since
  // construction: for a free connection (or the fleet's lease), or for the
  // server's start interval; server_waits() is their sum.
  uint64_t server_slot_waits() const { return server_slot_waits_; }
  uint64_t server_delay_waits() const { return server_delay_waits_; }
  uint64_t server_waits() const { return server_slot_waits_ + server_delay_waits_; }
  // Servers counted in ServerCounts (at most kMaxServersCounted).
  size_t servers_counted() const { return server_counts_.size(); }
  // The `limit` counted servers with the most starts, most first (ties by
  // address).
  std::vector<std::pair<std::string, ServerCount>> BusiestServers(size_t limit) const;
  // Why `authority`'s entry at `ready` waits for its server: kNone when its
  // own time (delay, pause) is what holds it. Fills `address`.
  ServerHold ServerHoldOf(const std::string& authority, absl::Time ready,
                          std::string* address) const;
  // Per-server counts kept for at most this many servers (~100 bytes each,
  // ~1 MB); later servers still count in the totals above.
  static constexpr size_t kMaxServersCounted = 10'000;

 private:
  struct Host {
    std::deque<CrawlUrl> urls;
    int in_flight = 0;
    absl::Time next_allowed = absl::InfinitePast();
    bool in_heap = false;
    std::string drop_reason;  // non-empty: hand URLs out as dropped
    // next_allowed before the last TakeReady, while no fetch ended since: a
    // slot given back unfetched (robots.txt said no) restores it, so a
    // blocked URL costs its host no start interval.
    std::optional<absl::Time> allowed_before_take;
    // Its server, "ADDR:PORT"; "" when not grouped. address_known: asked
    // and answered (an authority is asked once per record).
    std::string address;
    bool address_known = false;
    bool parked = false;  // waiting in its server's `parked` for a slot
    // Why its server last held it back; kNone once it started.
    ServerHold server_hold = ServerHold::kNone;
    // The server's next_allowed before and after the last TakeReady, while
    // no fetch ended since: an unfetched slot gives the interval back, as
    // allowed_before_take does for the authority.
    std::optional<std::pair<absl::Time, absl::Time>> server_take;
    // The fleet's slots its fetches in flight hold (ServerLeases), one each.
    std::vector<std::string> fleet_tokens;
  };
  // One server (resolved address and port) and the authorities it serves.
  // Bound: one record per server with fetches in flight, parked authorities
  // or a running interval; idle ones are swept with the authorities.
  struct Server {
    int in_flight = 0;
    absl::Time next_allowed = absl::InfinitePast();
    // Ready authorities waiting for one of its slots, in arrival order: a
    // slot given back wakes the first (no heap churn while it is full).
    std::deque<std::string> parked;
    // The fleet refused a start: no authority of this server asks it again
    // before this time.
    absl::Time fleet_retry = absl::InfinitePast();
  };
  struct HeapEntry {
    absl::Time ready;
    uint64_t order;  // FIFO among equal times: deterministic, and fair
    std::string authority;
    bool operator>(const HeapEntry& o) const {
      return ready != o.ready ? ready > o.ready : order > o.order;
    }
  };

  // Puts `host` in the heap if it has URLs, a free slot and is not there yet.
  void MaybeSchedule(const std::string& authority, Host& host);
  // Drops idle authorities whose wait has passed, every kSweepEvery releases,
  // so a long crawl of millions of hosts does not keep one record per host.
  void MaybeSweep(absl::Time now);
  // Whether `host`'s server lets it start at `now`: true, or false with
  // `host` parked on the server or pushed back to the server's next start.
  bool ServerAllows(const std::string& authority, Host& host, absl::Time now);
  // With leases_: whether the fleet lets `host` start on its server now; a
  // refused host waits (pushed to the server's fleet_retry).
  bool FleetAllows(const std::string& authority, Host& host, absl::Time now);
  // Gives one of `host`'s fleet slots back at a fetch's end.
  void GiveFleetSlot(const std::string& authority, Host& host, const FetchOutcome& outcome,
                     absl::Time now);
  // A server slot came free: the first parked authority goes back on the
  // heap; every one of them when nothing is in flight there any more (so
  // none can wait for a release that will not come).
  void WakeParked(Server& server);
  // Gives back `host`'s server slot at the end of a fetch.
  void ReleaseServer(const std::string& authority, Host& host, const FetchOutcome& outcome,
                     bool unfetched, absl::Time now);
  // The server's counts, or null past kMaxServersCounted.
  ServerCount* CountOf(const std::string& address);
  // Hands out the front URL of a dropped authority (no slot, no delay).
  CrawlUrl TakeDropped(const std::string& authority, Host& host);
  // Pops the front URL, keeping queued_ and over_cap_ right.
  CrawlUrl PopFront(Host& host);
  static constexpr uint64_t kSweepEvery = 4096;

  HostPolicy* const policy_;
  const size_t cap_;
  absl::flat_hash_map<std::string, Host> hosts_;
  std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<>> heap_;
  uint64_t order_ = 0;
  size_t queued_ = 0;
  size_t over_cap_ = 0;
  absl::flat_hash_set<std::string> at_cap_;
  size_t fetching_ = 0;
  uint64_t releases_ = 0;
  HostAddresses* const addresses_;
  ServerLeases* const leases_;
  absl::flat_hash_map<std::string, Server> servers_;
  uint64_t server_slot_waits_ = 0;
  uint64_t server_delay_waits_ = 0;
  // Per-server counts, bounded by kMaxServersCounted.
  absl::flat_hash_map<std::string, ServerCount> server_counts_;
};

}  // namespace crawler

#endif  // CRAWLER_HOST_QUEUES_H_
