// warc-bench: throughput of WarcWriter on HTML-like pages, the cost the crawl
// pays per fetch with --warc. Prints the setup, then per gzip level and thread
// count: pages/s, MB/s of WARC text in, bytes on disk per page.
//
//   warc-bench [PAGES] [PAGE_BYTES] [DIR]     (defaults 20000, 20000, /tmp)
//
// Theory: Write's cost is sha1 twice over the body (~1 GB/s) plus deflate
// (~50-100 MB/s at level 6 on text, ~3x faster at level 1), so deflate
// dominates: at 20 KB pages and ~60 MB/s one core archives ~3000 pages/s, well
// above a 2-core crawl's fetch rate on loopback.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "crawler/warc.h"

namespace {

// Words drawn from a small vocabulary inside tags: compresses like real HTML
// (about 4-5x with gzip -6).
std::string HtmlLikePage(int seed, size_t size) {
  static const char* kWords[] = {"the",  "crawler", "archive", "page",   "link",   "<a href=\"/p/",
                                 "\">",  "</a>",    "<div>",   "</div>", "record", "web",
                                 "data", "index",   "<p>",     "</p>",   "search", "frontier"};
  std::mt19937 random(static_cast<uint32_t>(seed));
  std::string page = "<html><head><title>page</title></head><body>";
  while (page.size() < size) {
    page += kWords[random() % (sizeof kWords / sizeof kWords[0])];
    if (random() % 4 == 0) page += std::to_string(random() % 100000);
    page += ' ';
  }
  page.resize(size);
  return page;
}

struct Result {
  double seconds = 0;
  crawler::WarcStats stats;
};

Result Run(const std::string& dir, int level, int threads, int pages, size_t page_bytes,
           const std::vector<std::string>& bodies) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  crawler::WarcOptions options;
  options.prefix = dir + "/bench";
  options.compression_level = level;
  options.max_file_size = 256 << 20;
  auto writer = crawler::WarcWriter::Create(options);
  if (!writer.ok()) {
    std::fprintf(stderr, "%s\n", writer.status().ToString().c_str());
    std::exit(1);
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      crawler::WarcExchange e;
      e.request_headers = "GET /p HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: crawl/0.1\r\n";
      e.response_headers = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " +
                           std::to_string(page_bytes) + "\r\n";
      e.remote_ip = "127.0.0.1";
      for (int i = t; i < pages; i += threads) {
        e.target_uri = "http://127.0.0.1:8080/p/" + std::to_string(i);
        e.body = bodies[i % bodies.size()] + std::to_string(i);  // distinct: no revisits
        e.date = std::chrono::system_clock::now();
        if (!(*writer)->Write(e).ok()) std::exit(1);
      }
    });
  }
  for (auto& w : workers) w.join();
  if (!(*writer)->Close().ok()) std::exit(1);
  Result result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.stats = (*writer)->Stats();
  std::filesystem::remove_all(dir);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  const int pages = argc > 1 ? std::atoi(argv[1]) : 20000;
  const size_t page_bytes = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 20000;
  const std::string dir = std::string(argc > 3 ? argv[3] : "/tmp") + "/warc-bench";
#ifdef NDEBUG
  const char* optimized = "yes";
#else
  const char* optimized = "NO (numbers are not representative)";
#endif
  std::printf("warc-bench: %d pages of %zu bytes of HTML-like text, build %s, optimized: %s\n",
              pages, page_bytes, CRAWL_BUILD_TYPE, optimized);
  std::printf("%-6s %-8s %10s %10s %14s %12s %10s\n", "level", "threads", "pages/s", "MB/s in",
              "bytes/page", "ratio", "seconds");
  std::vector<std::string> bodies;
  for (int i = 0; i < 64; ++i) bodies.push_back(HtmlLikePage(i, page_bytes));
  for (int level : {6, 1}) {
    for (int threads : {1, 2}) {
      const Result r = Run(dir, level, threads, pages, page_bytes, bodies);
      const double mb_in = r.stats.uncompressed_bytes / 1e6;
      std::printf(
          "%-6d %-8d %10.0f %10.1f %14.0f %12.2f %10.2f\n", level, threads, pages / r.seconds,
          mb_in / r.seconds, static_cast<double>(r.stats.written_bytes) / pages,
          static_cast<double>(r.stats.uncompressed_bytes) / r.stats.written_bytes, r.seconds);
    }
  }
  return 0;
}
