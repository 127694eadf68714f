/* sieve/sieve_c.h: the Sieve's C API, for crawlers written in C or in any
 * language with a C foreign-function interface (Go's cgo, Rust, Node's
 * N-API, Java's Panama/JNA). The same Sieve as sieve/sieve.h (a Bloom filter
 * + a FIFO to-visit queue spilling to disk, checkpoints), behind an opaque
 * handle; nothing C++ or Abseil in this header.
 *
 *   sieve_options options;
 *   sieve_options_init(&options);
 *   options.expected_count = 1000000;
 *   sieve_t* sieve = NULL;
 *   if (sieve_create(&options, &sieve) != SIEVE_OK) {
 *     fprintf(stderr, "%s\n", sieve_last_error());
 *     return 1;
 *   }
 *   sieve_push(sieve, "https://example.com/", 20, NULL, 0, NULL);
 *   sieve_entry entry;
 *   while (sieve_pop(sieve, &entry) == SIEVE_OK) {   // SIEVE_FINISHED: done
 *     ... fetch entry.url (entry.url_len bytes), push its links ...
 *     sieve_done(sieve, entry.url, entry.url_len);
 *     sieve_entry_free(&entry);
 *   }
 *   sieve_free(sieve);
 *
 * Errors: every fallible call returns a sieve_status; SIEVE_OK is 0. When a
 * call fails (anything but SIEVE_OK and the pop outcomes SIEVE_FINISHED,
 * SIEVE_TIMEOUT, SIEVE_EMPTY), sieve_last_error() gives the message (the
 * option, file or URL at fault), valid in the calling thread until its next
 * call into this API.
 *
 * Strings: URLs and payloads are byte strings with explicit lengths (no NUL
 * needed); a payload may hold any bytes, up to SIEVE_MAX_PAYLOAD_BYTES.
 * Entries returned by a pop are owned by the caller (sieve_entry_free); their
 * url is also NUL-terminated for convenience.
 *
 * Threading: every function taking a sieve_t* is safe to call concurrently
 * from many threads (as sieve/sieve.h), except sieve_free, which must come
 * after every other call on that handle has returned (sieve_close, then join
 * the consumers). The log callback is called from those threads.
 */
#ifndef SIEVE_SIEVE_C_H_
#define SIEVE_SIEVE_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest payload a push accepts (16 KiB), as sieve::kMaxPayloadBytes. */
#define SIEVE_MAX_PAYLOAD_BYTES ((size_t)16 << 10)
/* The most priorities with URLs queued at once (sieve::kMaxLanes). */
#define SIEVE_MAX_LANES ((size_t)1024)

typedef enum sieve_status {
  SIEVE_OK = 0,
  /* Pop outcomes (not errors; sieve_last_error is not set). */
  SIEVE_FINISHED = 1, /* closed, or empty with nothing in flight and no producer */
  SIEVE_TIMEOUT = 2,  /* sieve_pop_for: nothing within the timeout */
  SIEVE_EMPTY = 3,    /* sieve_try_pop: nothing queued right now */
  /* Errors (sieve_last_error says more). */
  SIEVE_INVALID_ARGUMENT = 10, /* a bad option or argument (named in the message) */
  SIEVE_NOT_FOUND = 11,        /* no checkpoint in the directory; a URL not in flight */
  SIEVE_DATA_LOSS = 12,        /* a checkpoint truncated or corrupted */
  SIEVE_CLOSED = 13,           /* the Sieve was closed: no more pushes */
  SIEVE_REFUSED = 14,          /* a payload over SIEVE_MAX_PAYLOAD_BYTES, or lanes full */
  SIEVE_IO_ERROR = 15,         /* the disk failed (save, spill directory) */
  SIEVE_UNIMPLEMENTED = 16,    /* not supported by this Sieve */
  SIEVE_INTERNAL = 17          /* anything else (out of memory, a bug) */
} sieve_status;

/* "SIEVE_OK", "SIEVE_FINISHED", ... */
const char* sieve_status_name(sieve_status status);
/* The message of this thread's last failed call ("" if none). */
const char* sieve_last_error(void);

/* Log levels of the messages a Sieve emits (sieve/log.h). */
enum { SIEVE_LOG_DEBUG = 0, SIEVE_LOG_INFO = 1, SIEVE_LOG_WARNING = 2, SIEVE_LOG_ERROR = 3 };
/* Receives one message (NUL-terminated, also given with its length). Called
 * from any thread using the Sieve, possibly concurrently; must not call back
 * into the Sieve. */
typedef void (*sieve_log_fn)(void* context, int level, const char* message, size_t length);

/* The options of sieve::SieveOptions (sieve/options.h gives each trade-off).
 * Always start from sieve_options_init, which sets the defaults and
 * struct_size. The struct may grow at its end in later versions: the
 * library reads only struct_size bytes of it (the fields after them keep
 * their defaults), so code built against this header keeps working with a
 * later library. */
typedef struct sieve_options {
  /* sizeof(sieve_options) of the caller's header; set by init. New in the
     release that added it: code built against an earlier header must be
     rebuilt once (it passed no size). */
  size_t struct_size;
  uint64_t expected_count;            /* distinct URLs the filter is sized for; 10,000,000 */
  double fp_rate;                     /* wanted false-positive rate, in (0, 1); 0.01 */
  uint64_t queue_memory_budget_bytes; /* queue bytes in RAM before spilling; 64 MiB */
  const char* spill_dir;              /* NULL or "": $TMPDIR or /tmp */
  int overflow_grow;                  /* 0: warn past expected_count; 1: grow the filter */
  sieve_log_fn log;                   /* NULL: stderr, info and up */
  void* log_context;                  /* passed to log */
  int lifo; /* 0: oldest first within a priority (FIFO); 1: newest first (LIFO). Saved in
               checkpoints. */
} sieve_options;

void sieve_options_init(sieve_options* options);

/* The handle. Named with a _t, which POSIX reserves for its own types, as an
 * exception: the C++ API's namespace is `sieve`, so a C type named `sieve`
 * would clash for C++ code that includes both headers; POSIX has no type
 * starting sieve_. Every other type here is sieve_<what> without _t. */
typedef struct sieve_t sieve_t;

/* A new, empty Sieve. Invalid options: SIEVE_INVALID_ARGUMENT naming the field. */
sieve_status sieve_create(const sieve_options* options, sieve_t** out);
/* Restores the Sieve checkpointed in `dir` by sieve_save. `runtime` (NULL:
 * defaults) gives only queue_memory_budget_bytes, spill_dir and the log
 * sink; the rest comes from the checkpoint. SIEVE_NOT_FOUND without one,
 * SIEVE_DATA_LOSS if it is damaged. */
sieve_status sieve_open(const char* dir, const sieve_options* runtime, sieve_t** out);
/* Writes a checkpoint into `dir` (created if missing), atomically. */
sieve_status sieve_save(sieve_t* sieve, const char* dir);
/* Wakes every blocked pop (SIEVE_FINISHED) and refuses further pushes and
 * pops; what is queued stays (and can be saved). */
void sieve_close(sieve_t* sieve);
/* Destroys the handle (NULL is fine). */
void sieve_free(sieve_t* sieve);

/* Enqueues `url` with its payload (payload may be NULL when payload_len is
 * 0). *accepted (if not NULL) is 1 if the URL was new and enqueued, 0 if it
 * was (probably) seen. SIEVE_REFUSED for a payload over the limit,
 * SIEVE_CLOSED after sieve_close; *accepted is 0 then. */
sieve_status sieve_push(sieve_t* sieve, const char* url, size_t url_len, const void* payload,
                        size_t payload_len, int* accepted);
/* sieve_push into the lane of `priority` (higher pops first; sieve_push is
 * priority 0). SIEVE_REFUSED if the priority would open a lane past
 * SIEVE_MAX_LANES (the message says so). */
sieve_status sieve_push_priority(sieve_t* sieve, const char* url, size_t url_len,
                                 const void* payload, size_t payload_len, int32_t priority,
                                 int* accepted);
/* sieve_push for `count` URLs at once (faster: see Sieve::PushBatch).
 * payloads and payload_lens are both NULL (no payloads) or both hold `count`
 * elements. accepted, if not NULL, receives `count` results (1/0);
 * *accepted_count (if not NULL) the number accepted. A payload over the limit
 * is refused alone (its result 0); the call returns SIEVE_OK then. */
sieve_status sieve_push_batch(sieve_t* sieve, size_t count, const char* const* urls,
                              const size_t* url_lens, const void* const* payloads,
                              const size_t* payload_lens, unsigned char* accepted,
                              size_t* accepted_count);
/* sieve_push_batch with `priorities` (NULL: all 0) holding `count` elements.
 * A URL refused for its priority (the lane bound) gets result 0, as a
 * payload over the limit does. */
sieve_status sieve_push_batch_priority(sieve_t* sieve, size_t count, const char* const* urls,
                                       const size_t* url_lens, const void* const* payloads,
                                       const size_t* payload_lens, const int32_t* priorities,
                                       unsigned char* accepted, size_t* accepted_count);

/* A popped URL, its payload and priority, owned by the caller until
 * sieve_entry_free. */
typedef struct sieve_entry {
  char* url; /* url_len bytes, then a NUL */
  size_t url_len;
  void* payload; /* payload_len bytes (NULL when 0) */
  size_t payload_len;
  int32_t priority; /* the lane it came from */
} sieve_entry;
void sieve_entry_free(sieve_entry* entry);

/* The next queued URL (highest priority first; within one, the oldest, or
 * the newest with options.lifo); it is then in flight until sieve_done. Blocks while
 * the queue is empty and a URL is in flight or a producer is open; returns
 * SIEVE_FINISHED (entry untouched) when nothing more can come. */
sieve_status sieve_pop(sieve_t* sieve, sieve_entry* entry);
/* sieve_pop waiting at most timeout_ms: SIEVE_TIMEOUT if nothing came. */
sieve_status sieve_pop_for(sieve_t* sieve, uint64_t timeout_ms, sieve_entry* entry);
/* sieve_pop without waiting: SIEVE_EMPTY if nothing is queued now (or
 * SIEVE_FINISHED if nothing more can come). */
sieve_status sieve_try_pop(sieve_t* sieve, sieve_entry* entry);

/* A popped URL is handled. SIEVE_NOT_FOUND if it was not in flight. */
sieve_status sieve_done(sieve_t* sieve, const char* url, size_t url_len);
/* A popped URL goes back to the tail of the queue (see Sieve::Defer). */
sieve_status sieve_defer(sieve_t* sieve, const char* url, size_t url_len);

/* Producer counting (Sieve::AddProducer): while a producer is open, pops wait
 * on an empty queue instead of finishing. Call sieve_producer_done once per
 * sieve_add_producer. */
void sieve_add_producer(sieve_t* sieve);
void sieve_producer_done(sieve_t* sieve);
/* 1 once closed, or empty with nothing in flight and no producer open. */
int sieve_is_finished(const sieve_t* sieve);

/* sieve::SieveStats (sieve/stats.h gives each field's meaning). The struct
 * may grow at its end in later versions: sieve_get_stats fills only the
 * stats_size bytes the caller says it has. */
typedef struct sieve_stats {
  uint64_t queued, in_flight, accepted, dropped, popped, done, deferred, lost, refused;
  uint64_t producers;
  int closed;
  /* The filter's estimated count of distinct URLs; 0 with filter_saturated
     set when the filter is saturated and has no estimate (never negative or
     infinite). */
  double estimated_count;
  int filter_saturated;
  uint64_t capacity;
  double target_fp_rate, current_fp_rate, fill_ratio;
  uint64_t overflow_warnings;
  uint64_t filter_bytes, queue_memory_bytes, queue_disk_bytes, spilled_segments;
  uint64_t lanes; /* priorities with URLs queued (sieve_get_lanes lists them) */
} sieve_stats;
/* Fills *stats; pass sizeof(*stats) (of your header) as stats_size.
 * SIEVE_INVALID_ARGUMENT if stats_size is smaller than this API's first
 * sieve_stats (nothing is written then). */
sieve_status sieve_get_stats(const sieve_t* sieve, sieve_stats* stats, size_t stats_size);

/* The Sieve's health: SIEVE_OK, or the error that makes it lose or keep in
 * memory what it should have on disk (a spill that failed and still fails:
 * SIEVE_IO_ERROR; a spilled segment that could not be read back:
 * SIEVE_DATA_LOSS), with sieve_last_error naming the file. sieve::Sieve's
 * Health(). */
sieve_status sieve_health(const sieve_t* sieve);

/* One priority's lane and its queued URLs. */
typedef struct sieve_lane {
  int32_t priority;
  uint64_t queued;
} sieve_lane;
/* Fills `lanes` with up to min(capacity, 16) lanes, highest priority first,
 * and returns how many it wrote. */
size_t sieve_get_lanes(const sieve_t* sieve, sieve_lane* lanes, size_t capacity);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SIEVE_SIEVE_C_H_ */
