// fetch-bench: how many requests per second the Fetcher completes against an
// in-process cpp-httplib server on 127.0.0.1 answering at once (no latency).
// A ceiling for the crawl: real servers add latency (which concurrency hides)
// and politeness delays (which nothing hides).
//
// Rows: fetcher threads x concurrent transfers. Each row runs --requests
// fetches of one --body_bytes HTML page, all submitted up front (the queue
// feeds free transfer slots), over keep-alive connections.
//
// Theory: with zero latency the loop is CPU-bound. A keep-alive HTTP/1.1
// request costs the client a send, a poll wake-up, a recv, header parsing
// and the callback (tens of microseconds), and the server (httplib: one
// thread per connection) about as much again. Both share the same 2 cores,
// so expect ~5-20 k requests/s, little gain from a second fetcher thread
// (the server needs the other core), and a loss when connections far exceed
// cores (more threads to schedule on the server side). Process CPU per
// request is printed to check the "tens of microseconds".
#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "crawler/fetch.h"

ABSL_FLAG(int, requests, 10000, "fetches per row");
ABSL_FLAG(int, body_bytes, 4096, "size of the served HTML page");

namespace {

using Clock = std::chrono::steady_clock;

// httplib listens with a backlog of 5; a burst of connects would measure SYN
// retransmits. Linux lets a listening socket re-listen with a larger backlog.
class BenchServer : public httplib::Server {
 public:
  bool EnlargeBacklog() { return ::listen(svr_sock_, 4096) == 0; }
};

double ProcessCpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return now.tv_sec + now.tv_nsec * 1e-9;
}

struct Row {
  int threads = 0;
  int connections = 0;
  double seconds = 0;
  double cpu_seconds = 0;
  size_t ok = 0;
  size_t failed = 0;
  uint64_t connections_opened = 0;
  double p50_ms = 0;
  double p99_ms = 0;
};

Row RunRow(int threads, int connections, const std::string& url, int requests) {
  std::mutex mu;
  std::condition_variable all_done;
  std::vector<double> latencies;
  latencies.reserve(requests);
  Row row{.threads = threads, .connections = connections};
  crawler::FetchOptions options;
  options.threads = threads;
  options.max_transfers = connections;
  auto fetcher = crawler::Fetcher::Create(options, [&](crawler::FetchResult&& r) {
    std::lock_guard lock(mu);
    latencies.push_back(r.fetch_ms);
    (r.error.empty() && r.status == 200 ? row.ok : row.failed) += 1;
    if (latencies.size() == static_cast<size_t>(requests)) all_done.notify_one();
  });
  if (!fetcher.ok()) {
    std::fprintf(stderr, "Fetcher::Create: %s\n", std::string(fetcher.status().message()).c_str());
    std::exit(1);
  }
  const double cpu_start = ProcessCpuSeconds();
  const auto start = Clock::now();
  for (int i = 0; i < requests; ++i) (*fetcher)->Submit({.url = url, .tag = uint64_t(i)});
  {
    std::unique_lock lock(mu);
    all_done.wait(lock, [&] { return latencies.size() == static_cast<size_t>(requests); });
  }
  row.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  row.cpu_seconds = ProcessCpuSeconds() - cpu_start;
  row.connections_opened = (*fetcher)->Stats().connections_opened;
  (*fetcher)->Shutdown(std::chrono::milliseconds(0));
  std::sort(latencies.begin(), latencies.end());
  row.p50_ms = latencies[latencies.size() / 2];
  row.p99_ms = latencies[latencies.size() * 99 / 100];
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const int requests = absl::GetFlag(FLAGS_requests);
  const int body_bytes = absl::GetFlag(FLAGS_body_bytes);
#ifdef NDEBUG
  const bool optimized = true;
#else
  const bool optimized = false;
#endif
  if (!optimized)
    std::printf("WARNING: built without NDEBUG (%s): numbers are not representative\n",
                CRAWL_BUILD_TYPE);

  const std::string page =
      "<html><body>" + std::string(std::max(0, body_bytes - 26), 'x') + "</body></html>";
  BenchServer server;
  server.new_task_queue = [] { return new httplib::ThreadPool(300); };
  server.set_keep_alive_max_count(1000000);
  server.set_tcp_nodelay(true);
  server.Get("/page", [&page](const httplib::Request&, httplib::Response& res) {
    // A content provider with a length: httplib sends it as-is, uncompressed,
    // so the row measures fetching, not the server's brotli encoder.
    res.set_content_provider(page.size(), "text/html",
                             [&page](size_t offset, size_t length, httplib::DataSink& sink) {
                               sink.write(page.data() + offset, length);
                               return true;
                             });
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  if (port <= 0 || !server.EnlargeBacklog()) {
    std::fprintf(stderr, "cannot listen on 127.0.0.1\n");
    return 1;
  }
  std::thread serving([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/page";

  std::printf("fetch-bench: %d requests per row, %zu-byte HTML body, keep-alive HTTP/1.1,\n",
              requests, page.size());
  std::printf("in-process httplib server on 127.0.0.1 (thread per connection), %u cores shared\n",
              std::thread::hardware_concurrency());
  std::printf("theory: CPU-bound; client + server ~tens of us per request -> ~5-20 k req/s\n\n");
  std::printf("%7s %11s %10s %9s %12s %9s %9s %6s %6s\n", "threads", "connections", "req/s", "MB/s",
              "cpu us/req", "p50 ms", "p99 ms", "conns", "failed");
  for (auto [threads, connections] :
       std::vector<std::pair<int, int>>{{1, 16}, {2, 16}, {1, 64}, {2, 64}, {2, 256}}) {
    const Row r = RunRow(threads, connections, url, requests);
    std::printf("%7d %11d %10.0f %9.1f %12.1f %9.2f %9.2f %6llu %6zu\n", r.threads, r.connections,
                requests / r.seconds, requests * double(page.size()) / r.seconds / 1e6,
                r.cpu_seconds / requests * 1e6, r.p50_ms, r.p99_ms,
                static_cast<unsigned long long>(r.connections_opened), r.failed);
  }
  server.stop();
  serving.join();
  return 0;
}
