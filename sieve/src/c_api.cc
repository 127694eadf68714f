// The C API (sieve/sieve_c.h): a thin layer over sieve::Sieve. Statuses
// become codes plus a thread-local message; nothing throws across the C
// boundary (every allocation failure is caught and reported as
// SIEVE_INTERNAL).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sieve/sieve.h"
#include "sieve/sieve_c.h"

static_assert(SIEVE_MAX_PAYLOAD_BYTES == sieve::kMaxPayloadBytes);
static_assert(SIEVE_MAX_LANES == sieve::kMaxLanes);

struct sieve_t {
  std::unique_ptr<sieve::Sieve> sieve;
  // Set by sieve_close, so that a push can tell "closed" from "seen" without
  // a Stats() call (which takes the Sieve's locks and builds a whole
  // SieveStats: far more than a push's answer needs).
  std::atomic<bool> closed{false};
};

namespace {

thread_local std::string last_error;

sieve_status Fail(sieve_status code, std::string_view message) {
  last_error.assign(message.data(), message.size());
  return code;
}

sieve_status CodeOf(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return SIEVE_OK;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      return SIEVE_INVALID_ARGUMENT;
    case absl::StatusCode::kNotFound:
      return SIEVE_NOT_FOUND;
    case absl::StatusCode::kDataLoss:
      return SIEVE_DATA_LOSS;
    case absl::StatusCode::kUnimplemented:
      return SIEVE_UNIMPLEMENTED;
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kResourceExhausted:
      return SIEVE_IO_ERROR;
    default:
      return SIEVE_INTERNAL;
  }
}

sieve_status FromStatus(const absl::Status& status) {
  if (status.ok()) return SIEVE_OK;
  return Fail(CodeOf(status), std::string(status.message()));
}

// Runs `body`, turning an escaping C++ exception (std::bad_alloc from a
// string copy) into SIEVE_INTERNAL: none may cross into C.
template <typename Body>
sieve_status Guarded(Body body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return Fail(SIEVE_INTERNAL, e.what());
  } catch (...) {
    return Fail(SIEVE_INTERNAL, "unknown C++ exception");
  }
}

sieve::SieveOptions ToOptions(const sieve_options& in) {
  sieve::SieveOptions out;
  out.expected_count = in.expected_count;
  out.fp_rate = in.fp_rate;
  out.queue_memory_budget_bytes = static_cast<size_t>(in.queue_memory_budget_bytes);
  if (in.spill_dir != nullptr) out.spill_dir = in.spill_dir;
  out.overflow_policy =
      in.overflow_grow ? sieve::OverflowPolicy::kGrow : sieve::OverflowPolicy::kWarn;
  out.lane_order = in.lifo ? sieve::LaneOrder::kLifo : sieve::LaneOrder::kFifo;
  if (in.log != nullptr) {
    out.log_sink = [log = in.log, context = in.log_context](sieve::LogLevel level,
                                                            std::string_view message) {
      const std::string text(message);  // NUL-terminated for C
      log(context, static_cast<int>(level), text.c_str(), text.size());
    };
  }
  return out;
}

sieve_status Wrap(absl::StatusOr<std::unique_ptr<sieve::Sieve>> made, sieve_t** out) {
  if (!made.ok()) return FromStatus(made.status());
  *out = new sieve_t{*std::move(made)};  // the closed flag: false
  return SIEVE_OK;
}

// Copies a popped entry into C-owned memory (malloc, freed by sieve_entry_free).
sieve_status ToEntry(const sieve::SieveEntry& from, sieve_entry* to) {
  char* url = static_cast<char*>(std::malloc(from.url.size() + 1));
  void* payload = from.payload.empty() ? nullptr : std::malloc(from.payload.size());
  if (url == nullptr || (!from.payload.empty() && payload == nullptr)) {
    std::free(url);
    std::free(payload);
    return Fail(SIEVE_INTERNAL, "out of memory copying a popped entry");
  }
  std::memcpy(url, from.url.data(), from.url.size());
  url[from.url.size()] = '\0';
  if (payload != nullptr) std::memcpy(payload, from.payload.data(), from.payload.size());
  *to = sieve_entry{url, from.url.size(), payload, from.payload.size(), from.priority};
  return SIEVE_OK;
}

// A pop's outcome: an entry, or why not (`finished` tells FINISHED from the
// caller's `none` code).
sieve_status PopOutcome(const sieve_t* s, std::optional<sieve::SieveEntry> entry, sieve_status none,
                        sieve_entry* out) {
  if (entry.has_value()) return ToEntry(*entry, out);
  return s->sieve->IsFinished() ? SIEVE_FINISHED : none;
}

// The size of the first sieve_stats this API published (up to `lanes`):
// a caller's struct is at least this big.
constexpr size_t kFirstStatsSize = offsetof(sieve_stats, lanes) + sizeof(uint64_t);
// The same for sieve_options (up to `lifo`, with struct_size first).
constexpr size_t kFirstOptionsSize = offsetof(sieve_options, lifo) + sizeof(int);

// Copies the struct_size bytes of `in` that this library knows over the
// defaults into `known`; false (the error set, naming `call`) if
// struct_size is not a size any version of the header had.
bool ReadOptions(const char* call, const sieve_options& in, sieve_options& known) {
  sieve_options_init(&known);
  if (in.struct_size < kFirstOptionsSize) {
    Fail(SIEVE_INVALID_ARGUMENT,
         absl::StrCat(call, ": options.struct_size is ", in.struct_size,
                      ": start from sieve_options_init (it sets struct_size)"));
    return false;
  }
  std::memcpy(&known, &in, std::min(in.struct_size, sizeof known));
  known.struct_size = sizeof known;
  return true;
}

void FillStats(const sieve::SieveStats& s, sieve_stats* out) {
  *out = sieve_stats{};
  out->queued = s.queued;
  out->in_flight = s.in_flight;
  out->accepted = s.accepted;
  out->dropped = s.dropped;
  out->popped = s.popped;
  out->done = s.done;
  out->deferred = s.deferred;
  out->lost = s.lost;
  out->refused = s.refused;
  out->producers = s.producers;
  out->closed = s.closed ? 1 : 0;
  out->estimated_count = s.estimated_count.value_or(0.0);
  out->filter_saturated = s.filter_saturated ? 1 : 0;
  out->capacity = s.capacity;
  out->target_fp_rate = s.target_fp_rate;
  out->current_fp_rate = s.current_fp_rate;
  out->fill_ratio = s.fill_ratio;
  out->overflow_warnings = s.overflow_warnings;
  out->filter_bytes = s.filter_bytes;
  out->queue_memory_bytes = s.queue_memory_bytes;
  out->queue_disk_bytes = s.queue_disk_bytes;
  out->spilled_segments = s.spilled_segments;
  out->lanes = s.lanes;
}

}  // namespace

extern "C" {

const char* sieve_status_name(sieve_status status) {
  switch (status) {
    case SIEVE_OK:
      return "SIEVE_OK";
    case SIEVE_FINISHED:
      return "SIEVE_FINISHED";
    case SIEVE_TIMEOUT:
      return "SIEVE_TIMEOUT";
    case SIEVE_EMPTY:
      return "SIEVE_EMPTY";
    case SIEVE_INVALID_ARGUMENT:
      return "SIEVE_INVALID_ARGUMENT";
    case SIEVE_NOT_FOUND:
      return "SIEVE_NOT_FOUND";
    case SIEVE_DATA_LOSS:
      return "SIEVE_DATA_LOSS";
    case SIEVE_CLOSED:
      return "SIEVE_CLOSED";
    case SIEVE_REFUSED:
      return "SIEVE_REFUSED";
    case SIEVE_IO_ERROR:
      return "SIEVE_IO_ERROR";
    case SIEVE_UNIMPLEMENTED:
      return "SIEVE_UNIMPLEMENTED";
    case SIEVE_INTERNAL:
      return "SIEVE_INTERNAL";
  }
  return "SIEVE_UNKNOWN";
}

const char* sieve_last_error(void) { return last_error.c_str(); }

void sieve_options_init(sieve_options* options) {
  const sieve::SieveOptions defaults;
  *options = sieve_options{};
  options->struct_size = sizeof(sieve_options);
  options->expected_count = defaults.expected_count;
  options->fp_rate = defaults.fp_rate;
  options->queue_memory_budget_bytes = defaults.queue_memory_budget_bytes;
  options->overflow_grow = defaults.overflow_policy == sieve::OverflowPolicy::kGrow;
}

sieve_status sieve_create(const sieve_options* options, sieve_t** out) {
  if (options == nullptr || out == nullptr) {
    return Fail(SIEVE_INVALID_ARGUMENT, "sieve_create: options and out must not be NULL");
  }
  sieve_options known;
  if (!ReadOptions("sieve_create", *options, known)) return SIEVE_INVALID_ARGUMENT;
  return Guarded([&] { return Wrap(sieve::Sieve::Create(ToOptions(known)), out); });
}

sieve_status sieve_open(const char* dir, const sieve_options* runtime, sieve_t** out) {
  if (dir == nullptr || out == nullptr) {
    return Fail(SIEVE_INVALID_ARGUMENT, "sieve_open: dir and out must not be NULL");
  }
  sieve_options known;
  if (runtime == nullptr) {
    sieve_options_init(&known);
  } else if (!ReadOptions("sieve_open", *runtime, known)) {
    return SIEVE_INVALID_ARGUMENT;
  }
  return Guarded([&] { return Wrap(sieve::Sieve::Open(dir, ToOptions(known)), out); });
}

sieve_status sieve_save(sieve_t* sieve, const char* dir) {
  if (dir == nullptr) return Fail(SIEVE_INVALID_ARGUMENT, "sieve_save: dir must not be NULL");
  return Guarded([&] { return FromStatus(sieve->sieve->Save(dir)); });
}

void sieve_close(sieve_t* sieve) {
  sieve->closed.store(true, std::memory_order_release);
  sieve->sieve->Close();
}

void sieve_free(sieve_t* sieve) { delete sieve; }

sieve_status sieve_push(sieve_t* sieve, const char* url, size_t url_len, const void* payload,
                        size_t payload_len, int* accepted) {
  return sieve_push_priority(sieve, url, url_len, payload, payload_len, 0, accepted);
}

sieve_status sieve_push_priority(sieve_t* sieve, const char* url, size_t url_len,
                                 const void* payload, size_t payload_len, int32_t priority,
                                 int* accepted) {
  if (accepted != nullptr) *accepted = 0;
  return Guarded([&] {
    const std::string_view bytes =
        payload_len == 0 ? std::string_view()
                         : std::string_view(static_cast<const char*>(payload), payload_len);
    const bool is_new = sieve->sieve->Push(std::string_view(url, url_len), bytes, priority);
    if (!is_new && payload_len > SIEVE_MAX_PAYLOAD_BYTES) {
      return Fail(SIEVE_REFUSED, "sieve_push: a payload of " + std::to_string(payload_len) +
                                     " bytes is over SIEVE_MAX_PAYLOAD_BYTES");
    }
    if (!is_new && !sieve->sieve->AcceptsPriority(priority)) {
      return Fail(SIEVE_REFUSED, "sieve_push: priority " + std::to_string(priority) +
                                     " would open a lane past SIEVE_MAX_LANES");
    }
    if (!is_new && sieve->closed.load(std::memory_order_acquire)) {
      return Fail(SIEVE_CLOSED, "sieve_push: the Sieve is closed");
    }
    if (accepted != nullptr) *accepted = is_new;
    return SIEVE_OK;
  });
}

sieve_status sieve_push_batch(sieve_t* sieve, size_t count, const char* const* urls,
                              const size_t* url_lens, const void* const* payloads,
                              const size_t* payload_lens, unsigned char* accepted,
                              size_t* accepted_count) {
  return sieve_push_batch_priority(sieve, count, urls, url_lens, payloads, payload_lens, nullptr,
                                   accepted, accepted_count);
}

sieve_status sieve_push_batch_priority(sieve_t* sieve, size_t count, const char* const* urls,
                                       const size_t* url_lens, const void* const* payloads,
                                       const size_t* payload_lens, const int32_t* priorities,
                                       unsigned char* accepted, size_t* accepted_count) {
  if ((payloads == nullptr) != (payload_lens == nullptr)) {
    return Fail(SIEVE_INVALID_ARGUMENT,
                "sieve_push_batch: payloads and payload_lens must both be NULL or both be set");
  }
  return Guarded([&] {
    std::vector<std::string_view> url_views(count);
    std::vector<std::string_view> payload_views(payloads == nullptr ? 0 : count);
    for (size_t i = 0; i < count; ++i) {
      url_views[i] = std::string_view(urls[i], url_lens[i]);
      if (payloads != nullptr && payload_lens[i] > 0) {
        payload_views[i] = std::string_view(static_cast<const char*>(payloads[i]), payload_lens[i]);
      }
    }
    std::unique_ptr<bool[]> results(new bool[count]);
    const absl::Span<const int32_t> priority_span = priorities == nullptr
                                                        ? absl::Span<const int32_t>()
                                                        : absl::MakeConstSpan(priorities, count);
    const size_t n = sieve->sieve->PushBatch(url_views, payload_views, priority_span,
                                             absl::Span<bool>(results.get(), count));
    if (accepted != nullptr) {
      for (size_t i = 0; i < count; ++i) accepted[i] = results[i];
    }
    if (accepted_count != nullptr) *accepted_count = n;
    return SIEVE_OK;
  });
}

void sieve_entry_free(sieve_entry* entry) {
  if (entry == nullptr) return;
  std::free(entry->url);
  std::free(entry->payload);
  *entry = sieve_entry{};
}

sieve_status sieve_pop(sieve_t* sieve, sieve_entry* entry) {
  return Guarded(
      [&] { return PopOutcome(sieve, sieve->sieve->PopEntry(), SIEVE_FINISHED, entry); });
}

sieve_status sieve_pop_for(sieve_t* sieve, uint64_t timeout_ms, sieve_entry* entry) {
  return Guarded([&] {
    return PopOutcome(sieve, sieve->sieve->PopEntryFor(std::chrono::milliseconds(timeout_ms)),
                      SIEVE_TIMEOUT, entry);
  });
}

sieve_status sieve_try_pop(sieve_t* sieve, sieve_entry* entry) {
  return Guarded(
      [&] { return PopOutcome(sieve, sieve->sieve->TryPopEntry(), SIEVE_EMPTY, entry); });
}

sieve_status sieve_done(sieve_t* sieve, const char* url, size_t url_len) {
  return Guarded([&] {
    if (sieve->sieve->MarkDone(std::string_view(url, url_len))) return SIEVE_OK;
    return Fail(SIEVE_NOT_FOUND,
                "sieve_done: not in flight: " + std::string(url, std::min<size_t>(url_len, 200)));
  });
}

sieve_status sieve_defer(sieve_t* sieve, const char* url, size_t url_len) {
  return Guarded([&] {
    if (sieve->sieve->Defer(std::string_view(url, url_len))) return SIEVE_OK;
    return Fail(SIEVE_NOT_FOUND,
                "sieve_defer: not in flight: " + std::string(url, std::min<size_t>(url_len, 200)));
  });
}

void sieve_add_producer(sieve_t* sieve) { sieve->sieve->AddProducer(); }
void sieve_producer_done(sieve_t* sieve) { sieve->sieve->ProducerDone(); }
int sieve_is_finished(const sieve_t* sieve) { return sieve->sieve->IsFinished() ? 1 : 0; }

sieve_status sieve_get_stats(const sieve_t* sieve, sieve_stats* stats, size_t stats_size) {
  if (stats == nullptr || stats_size < kFirstStatsSize) {
    return Fail(SIEVE_INVALID_ARGUMENT,
                absl::StrCat("sieve_get_stats: stats_size is ", stats_size,
                             "; pass sizeof(sieve_stats) (at least ", kFirstStatsSize, ")"));
  }
  sieve_stats all;
  FillStats(sieve->sieve->Stats(), &all);
  std::memcpy(stats, &all, std::min(stats_size, sizeof all));
  return SIEVE_OK;
}

sieve_status sieve_health(const sieve_t* sieve) {
  return Guarded([&] { return FromStatus(sieve->sieve->Health()); });
}

size_t sieve_get_lanes(const sieve_t* sieve, sieve_lane* lanes, size_t capacity) {
  const sieve::SieveStats s = sieve->sieve->Stats();
  const size_t n = std::min(capacity, s.top_lanes.size());
  for (size_t i = 0; i < n; ++i)
    lanes[i] = sieve_lane{s.top_lanes[i].priority, s.top_lanes[i].queued};
  return n;
}

}  // extern "C"
