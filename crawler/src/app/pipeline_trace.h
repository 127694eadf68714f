// PipelineTrace: a thread that samples the crawl's stage depths every few
// milliseconds and writes them as tab-separated lines, to find where the
// pipeline stalls (fetchers waiting for URLs, the scheduler for a slot or the
// parsers, the parsers for pages). Off unless --debug-pipeline FILE is given;
// a sample reads a few atomics and takes the Frontier's and the Sieve's locks
// once each, so 100 samples a second cost well under 1% of a core.
//
//   auto trace = PipelineTrace::Start("pipe.tsv", absl::Milliseconds(10),
//                                     [&] { return SampleNow(); });
//   ...  // the crawl; the trace's destructor writes the last lines
//
// The file's columns are its first line (kPipelineTraceHeader). Counters
// (`*_total`) are cumulative: a step's difference is what happened in it.
//
// Threading: the sample function runs on the trace's own thread and must be
// safe to call concurrently with the crawl. Start and the destructor from
// one thread.
#ifndef CRAWLER_APP_PIPELINE_TRACE_H_
#define CRAWLER_APP_PIPELINE_TRACE_H_

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace crawler {

// One look at the pipeline. Depths are read without one common lock, so
// two of them may be a few microseconds apart.
struct PipelineSample {
  int64_t scheduled = 0;          // handed to the fetcher and not yet answered (the slots in use)
  int64_t fetch_queued = 0;       // of those, not yet started by a fetch thread
  int64_t fetch_running = 0;      // of those, transfers curl runs
  int64_t parse_jobs = 0;         // pages fetched and not yet recorded
  int64_t parse_bytes = 0;        // their bodies' bytes
  int64_t frontier_buffered = 0;  // URLs in the host queues (popped from the Sieve)
  int64_t sieve_queued = 0;       // URLs in the Sieve's queue
  char waiting = '-';  // what the scheduler waits for: S slot, P parse room, U a URL, - nothing
  uint64_t sleeps_total = 0;     // scheduler's waits for an event
  uint64_t woken_total = 0;      // of those, ended by a wake-up (the rest: a timeout)
  uint64_t submitted_total = 0;  // URLs handed to the fetcher
  uint64_t parsed_total = 0;     // pages recorded by the parsers
};

inline constexpr char kPipelineTraceHeader[] =
    "t_ms\tcpu_ms\tscheduled\tfetch_queued\tfetch_running\tparse_jobs\tparse_bytes\t"
    "frontier_buffered\tsieve_queued\twaiting\tsleeps_total\twoken_total\tsubmitted_total\t"
    "parsed_total\n";

class PipelineTrace {
 public:
  // Opens (truncates) `path` and starts sampling every `period`; an
  // unwritable path is an error naming it.
  static absl::StatusOr<std::unique_ptr<PipelineTrace>> Start(
      const std::string& path, absl::Duration period, std::function<PipelineSample()> sample);
  // Takes a last sample, writes everything and closes the file.
  ~PipelineTrace();
  PipelineTrace(const PipelineTrace&) = delete;
  PipelineTrace& operator=(const PipelineTrace&) = delete;

 private:
  PipelineTrace(std::FILE* file, absl::Duration period, std::function<PipelineSample()> sample);
  void Loop();
  void Record();

  std::FILE* const file_;
  const absl::Duration period_;
  const std::function<PipelineSample()> sample_;
  const absl::Time start_ = absl::Now();
  std::string pending_;  // lines not yet written; written about once a second
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;     // last: starts after everything above exists
};

}  // namespace crawler

#endif  // CRAWLER_APP_PIPELINE_TRACE_H_
