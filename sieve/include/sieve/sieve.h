// sieve/sieve.h: the Sieve, a crawler's to-visit queue. A FIFO of URLs plus a
// Bloom filter: Push drops URLs already seen (with a small, chosen false-positive
// rate: a few new URLs are wrongly dropped, never a seen one enqueued twice),
// Pop hands URLs to many fetcher threads, the queue spills to disk past its
// memory budget, and Save/Open checkpoint the whole state.
//
// `Sieve` is the contract; two implementations keep it: the in-memory one
// (sieve/memory_sieve.h, what Create and Open return: one process, spills to
// disk, checkpoints) and RedisSieve (sieve/redis_sieve.h, in the optional
// `sieve::redis` library: the filter and queue live in Redis and are shared by
// many processes). Code written against `Sieve` works with either.
//
//   auto sieve = sieve::Sieve::Create({.expected_count = 1'000'000});
//   if (!sieve.ok()) return sieve.status();
//   (*sieve)->Push("https://example.com/");
//   // In each fetcher thread:
//   while (std::optional<std::string> url = (*sieve)->Pop()) {
//     for (const std::string& link : Fetch(*url)) (*sieve)->Push(link);
//     (*sieve)->MarkDone(*url);
//   }
//   // Every thread's Pop returns nullopt once the queue is empty and no URL is
//   // in flight: the crawl is complete.
//
// Consumers that start before their producers, or that are fed from outside
// (another thread reading a feed, a socket, a Scrapy engine), register the
// producers: while any is open, Pop waits on an empty queue instead of
// returning, and it ends once every producer is done and the queue is
// drained (and nothing is in flight).
//
//   sieve::Sieve::Producer feed(*sieve);          // before any consumer starts
//   std::thread consumer([&] { while (auto url = sieve->Pop()) Fetch(*url); });
//   for (const std::string& url : ReadFeed()) sieve->Push(url);
//   feed.Done();                                   // or let it go out of scope
//   consumer.join();                               // it drained the queue
//
// Priorities: Push(url, payload, priority) puts the URL in the lane of its
// priority (an int32; 0 by default); Pop takes from the highest lane first,
// and within a lane the oldest (FIFO, the default) or the newest
// (SieveOptions::lane_order = kLifo, Scrapy's default order).
//
//   (*sieve)->Push("https://example.com/news", "", /*priority=*/10);
//   (*sieve)->Push("https://example.com/about");      // priority 0
//   // Pop: /news first, then /about.
//
// Per-URL payload: a pusher may attach opaque bytes to a URL (the crawler's
// depth, parent and redirect count; an embedder's request metadata). They
// travel with the URL in the queue, in memory, in spilled segments and in
// checkpoints, so they cost nothing outside the queue's memory budget, and
// come back with it from PopEntry. The filter's key is the URL alone.
//
//   (*sieve)->Push("https://example.com/a", /*payload=*/"\x02depth2");
//   std::optional<sieve::SieveEntry> entry = (*sieve)->PopEntry();
//   // entry->url == "https://example.com/a", entry->payload == "\x02depth2"
//
// Threading: every method of every implementation is safe to call
// concurrently. What follows is the in-memory Sieve's detail: Pushes of the same new
// URL from many threads at once enqueue it exactly once (the filter's
// check-and-insert runs under one of 32 locks striped by the URL's hash). Save
// briefly stops pushes and pops (it holds every lock while it copies the state).
// Destroy the Sieve only after every consumer has returned from Pop (Close,
// then join them). A push that fills a queue segment compresses it (zstd) and
// writes it to disk under the queue lock: pops wait for that one segment
// (8 MiB at 75 MB/s of CPU: ~110 ms measured on a loaded 2-core machine;
// docs/sieve.md).
#ifndef SIEVE_SIEVE_H_
#define SIEVE_SIEVE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sieve/log.h"
#include "sieve/options.h"
#include "sieve/stats.h"

namespace sieve {

// Payloads longer than this are refused (Push returns false, the filter is
// not touched, Stats().refused counts it): a payload is per-URL metadata, not
// a document. 16 KiB holds a parent URL of any length a crawler keeps.
inline constexpr size_t kMaxPayloadBytes = size_t{16} << 10;

// The most distinct priorities that may have URLs queued at once. Each is a
// lane: a queue of its own that spills like the single queue did, inside the
// one queue_memory_budget_bytes (docs/sieve.md, "Lanes"); a lane costs ~0.3
// KiB of bookkeeping plus, when many lanes share the budget, up to 4 KiB of
// URLs it keeps unspilled. A push that would open one more is refused (the
// check runs before the filter, so a push racing it on another thread may
// still open one: at most 31 over, one per lock stripe). An emptied lane is
// dropped and frees its slot.
inline constexpr size_t kMaxLanes = 1024;

// A queued URL, the payload its pusher attached (empty if none) and its
// priority (higher first; 0 unless the pusher gave one).
struct SieveEntry {
  std::string url;
  std::string payload;
  int32_t priority = 0;
};

class Sieve {
 public:
  // The in-memory Sieve (MemorySieve). Validates the options (InvalidArgument
  // naming the bad field) and allocates the filter (its full size at once: see
  // SieveOptions::expected_count).
  static absl::StatusOr<std::unique_ptr<Sieve>> Create(const SieveOptions& options);

  // Restores a Sieve saved with Save(dir): the filter, the queue in the same
  // order (URLs that were in flight come first, queued again), the counters
  // and the overflow policy. The filter's size comes from the checkpoint; only
  // queue_memory_budget_bytes and spill_dir are taken from `runtime`. The
  // queue's segment files are hard-linked into the new Sieve's spill
  // directory, not loaded (their headers are checked now, their checksums when
  // popped), and `dir` is never modified: it stays a valid checkpoint.
  // NotFound if there is no checkpoint, DataLoss naming the file if one is
  // missing, truncated or corrupted. Reads checkpoints of versions 1 to 3
  // too (written before lanes: their queue becomes the lane of priority 0, in
  // FIFO order); the lanes, their order and lane_order come back as saved.
  static absl::StatusOr<std::unique_ptr<Sieve>> Open(const std::filesystem::path& dir,
                                                     const SieveOptions& runtime = {});

  Sieve() = default;
  virtual ~Sieve() = default;
  Sieve(const Sieve&) = delete;
  Sieve& operator=(const Sieve&) = delete;

  // Enqueues `url` with `payload` in the lane of `priority` and returns true
  // if the URL was not seen before; returns false and drops both if it
  // (probably) was, if the Sieve is closed, if the payload is over
  // kMaxPayloadBytes, or if `priority` would open a lane past kMaxLanes
  // (both counted in Stats().refused; the lane bound also logs an error).
  // The filter is one filter: a URL is new or seen whatever its priority.
  // RedisSieve takes priorities in [kRedisMinPriority, kRedisMaxPriority]
  // (redis_sieve.h).
  virtual bool Push(std::string_view url, std::string_view payload, int32_t priority) = 0;
  // Push at priority 0.
  bool Push(std::string_view url, std::string_view payload) { return Push(url, payload, 0); }

  // False if a push at `priority` would be refused now for its priority (the
  // lane bound; RedisSieve: its priority range): for a caller that must tell
  // that refusal from "seen" (the C and Python bindings raise on it). A hint
  // of the moment only: other threads may open or close lanes.
  virtual bool AcceptsPriority(int32_t priority) const { return priority == 0; }
  // Push with an empty payload, at priority 0.
  bool Push(std::string_view url) { return Push(url, std::string_view(), 0); }

  // Push with a payload made only when it is needed: for an embedder whose
  // payload is costly (Scrapy's scheduler pickles each request) and most of
  // whose pushes are of URLs already seen. The result is Push(url,
  // *make_payload())'s, and `make_payload` runs at most once; nullopt from it
  // means "do not push" (false, and the URL stays unseen, as with an oversized
  // payload). The in-memory Sieve calls it only for a URL its filter has not
  // seen, under that URL's lock: it must not call into this Sieve. The Redis
  // Sieve (this default) calls it before every push: the server decides.
  virtual bool PushLazy(std::string_view url,
                        absl::FunctionRef<std::optional<std::string>()> make_payload,
                        int32_t priority);
  // PushLazy at priority 0.
  bool PushLazy(std::string_view url,
                absl::FunctionRef<std::optional<std::string>()> make_payload) {
    return PushLazy(url, make_payload, 0);
  }

  // Push for each URL, in order (a URL repeated in the batch is new only the
  // first time). Faster than single pushes (about 2x on a filter larger than
  // the CPU cache): the filter prefetches the URLs' cache lines so their misses
  // overlap, and the locks are taken once per 512 URLs (every stripe at once).
  // `payloads` is empty (no payloads) or has urls.size() elements, the i-th
  // attached to the i-th URL; so is `priorities` (empty: every URL at 0).
  // `accepted`, if not empty, must have urls.size() elements and receives
  // each result. Returns the number accepted.
  virtual size_t PushBatch(absl::Span<const std::string_view> urls,
                           absl::Span<const std::string_view> payloads,
                           absl::Span<const int32_t> priorities, absl::Span<bool> accepted) = 0;
  // PushBatch at priority 0.
  size_t PushBatch(absl::Span<const std::string_view> urls,
                   absl::Span<const std::string_view> payloads, absl::Span<bool> accepted) {
    return PushBatch(urls, payloads, {}, accepted);
  }
  // PushBatch without payloads, at priority 0.
  size_t PushBatch(absl::Span<const std::string_view> urls, absl::Span<bool> accepted = {}) {
    return PushBatch(urls, {}, {}, accepted);
  }

  // The next queued URL and its payload: from the highest priority's lane,
  // the oldest of that lane (SieveOptions::lane_order kFifo) or the newest
  // (kLifo). The URL is then in flight until MarkDone(url). Blocks while the queue is empty and
  // another URL is in flight (its page may yield more links) or a producer is open (AddProducer).
  // Returns nullopt once Close() was called, or once the queue is empty, nothing is in flight and
  // no producer is open: the crawl is complete.
  virtual std::optional<SieveEntry> PopEntry() = 0;
  // PopEntry without blocking: nullopt if nothing is queued right now.
  virtual std::optional<SieveEntry> TryPopEntry() = 0;
  // PopEntry that waits at most `timeout`; nullopt on timeout too (see IsFinished).
  virtual std::optional<SieveEntry> PopEntryFor(std::chrono::milliseconds timeout) = 0;

  // The URL-only forms of PopEntry, TryPopEntry and PopEntryFor (the payload
  // is dropped).
  std::optional<std::string> Pop() { return UrlOf(PopEntry()); }
  std::optional<std::string> TryPop() { return UrlOf(TryPopEntry()); }
  std::optional<std::string> PopFor(std::chrono::milliseconds timeout) {
    return UrlOf(PopEntryFor(timeout));
  }

  // Marks a popped URL as handled (fetched, failed, skipped: anything final).
  // Returns false if `url` was not in flight. Wakes blocked Pops when the last
  // in-flight URL is done and the queue is empty.
  virtual bool MarkDone(std::string_view url) = 0;

  // Gives a popped, in-flight `url` back: it goes behind every URL queued in
  // its own priority's lane, with its payload (the filter is not touched; it
  // stays seen), and comes out of a later Pop again. In a kLifo Sieve it goes
  // under the lane's stack; URLs deferred there come out first-deferred-first
  // once the rest of the lane is popped.
  // For a consumer that cannot take a URL now without blocking the URLs behind
  // it (the crawler's per-host budget: one host's backlog must not hold the
  // queue's head). Returns false if `url` was not in flight.
  virtual bool Defer(std::string_view url) = 0;

  // Wakes every blocked Pop (they return nullopt) and refuses further pushes
  // and pops. Queued and in-flight URLs stay and can be saved.
  virtual void Close() = 0;
  // True once closed, or when the queue is empty, nothing is in flight and
  // no producer is open.
  virtual bool IsFinished() const = 0;

  // Producer counting, for consumers that must wait for URLs not pushed yet.
  // AddProducer opens a producer: until the matching ProducerDone, a Pop on
  // an empty queue waits (PopEntryFor until its timeout) rather than
  // returning nullopt, and IsFinished is false. Call AddProducer before the
  // consumers could see an empty queue (before starting them), and
  // ProducerDone exactly once per AddProducer (on every path: the Producer
  // handle below does it), or consumers wait forever (Close still ends them).
  // Several producers may be open at once; the count is not saved in
  // checkpoints. RedisSieve counts this client's producers only: its
  // consumers wait while their own process has one open (or the fleet still
  // has URLs queued or leased); other processes' producers are not seen.
  virtual void AddProducer() = 0;
  virtual void ProducerDone() = 0;

  // An open producer for the lifetime of the handle (AddProducer in the
  // constructor, ProducerDone in Done() or the destructor, whichever is
  // first). Movable; the Sieve must outlive it.
  class Producer {
   public:
    explicit Producer(Sieve& sieve) : sieve_(&sieve) { sieve_->AddProducer(); }
    ~Producer() { Done(); }
    Producer(Producer&& other) noexcept : sieve_(std::exchange(other.sieve_, nullptr)) {}
    Producer& operator=(Producer&& other) noexcept {
      if (this != &other) {
        Done();
        sieve_ = std::exchange(other.sieve_, nullptr);
      }
      return *this;
    }
    Producer(const Producer&) = delete;
    Producer& operator=(const Producer&) = delete;
    // This producer pushed its last URL.
    void Done() {
      if (sieve_ != nullptr) std::exchange(sieve_, nullptr)->ProducerDone();
    }

   private:
    Sieve* sieve_;
  };

  virtual SieveStats Stats() const = 0;

  // OK while the Sieve keeps its contract; otherwise why not, for an owner
  // that must stop rather than degrade (the crawler checks it with Stats()):
  //   ResourceExhausted (or Internal): the queue cannot spill to spill_dir
  //     (the message names the directory and errno: a full disk, a quota);
  //     the URLs stay in memory past queue_memory_budget_bytes, so RAM grows.
  //     Cleared when a later spill succeeds.
  //   DataLoss: a spilled segment could not be read back (the message names
  //     the file); its URLs were lost (Stats().lost). Stays.
  // RedisSieve: the error that put the client in its failed state (its
  // retries exhausted: Unavailable; the frontier gone from Redis: DataLoss),
  // after which it reads as finished. Stays.
  virtual absl::Status Health() const { return absl::OkStatus(); }

  // Writes a checkpoint into `dir` (created if missing); Open(dir) reads it.
  // The in-memory Sieve writes only files whose names start with "sieve"
  // (docs/sieve.md, "Checkpoint layout"): the manifest CheckpointPath(dir),
  // the queue as segment files (spilled segments are hard-linked from
  // spill_dir, not copied: copied only if spill_dir is on another file
  // system; only the in-memory part of the queue is written), and the filter.
  // Atomic: everything is fsynced and the manifest is replaced last, so a
  // crash or a failed Save (a full disk: ResourceExhausted naming the file)
  // leaves the previous checkpoint in `dir` whole; files of earlier Saves that
  // the new manifest does not name are then removed. One Save at a time per
  // Sieve, and one Sieve saving into a given `dir`. In-flight URLs are saved
  // as queued. Stops pushes and pops while it writes (not while it fsyncs the
  // directory and replaces the manifest). RedisSieve keeps its state in
  // Redis and returns Unimplemented here.
  virtual absl::Status Save(const std::filesystem::path& dir) const = 0;

  // The checkpoint file the in-memory Sieve's Save writes in `dir`.
  static std::filesystem::path CheckpointPath(const std::filesystem::path& dir);

 private:
  static std::optional<std::string> UrlOf(std::optional<SieveEntry> entry) {
    if (!entry.has_value()) return std::nullopt;
    return std::move(entry->url);
  }
};

}  // namespace sieve

#endif  // SIEVE_SIEVE_H_
