// Which fetcher thread gets a request. Each thread has its own connection
// cache, so sending every request for a host to the same thread is what
// makes keep-alive work for a polite crawl (one request to a host at a
// time, seconds apart): alternate threads and each keeps its own connection,
// half of them idle. Affinity gives way only when the host's thread is full
// (its slots all taken), so one busy host cannot starve while another
// thread idles.
#ifndef CRAWLER_SRC_FETCH_WORKER_CHOICE_H_
#define CRAWLER_SRC_FETCH_WORKER_CHOICE_H_

#include <cstddef>
#include <string_view>
#include <vector>

namespace crawler::fetch_internal {

// The authority of an absolute URL ("user@host:port"), lower-cased or not
// (callers only hash it); empty if there is no "://".
std::string_view AuthorityOf(std::string_view url);

struct WorkerLoad {
  size_t load = 0;   // queued + running
  size_t slots = 0;  // concurrent transfers it may run
};

// Index of the worker for `url`: the host's own worker unless it is at
// capacity, else the least loaded. `workers` must not be empty.
size_t ChooseWorker(std::string_view url, const std::vector<WorkerLoad>& workers);

}  // namespace crawler::fetch_internal

#endif  // CRAWLER_SRC_FETCH_WORKER_CHOICE_H_
