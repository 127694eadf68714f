#include "test_exchanges.h"

#include <random>

namespace crawler_test {

crawler::WarcExchange NumberedExchange(int i, size_t size) {
  crawler::WarcExchange e;
  e.target_uri = "http://127.0.0.1:9/page/" + std::to_string(i);
  e.request_headers = "GET /page/" + std::to_string(i) + " HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n";
  e.response_headers = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n";
  std::mt19937 random(static_cast<uint32_t>(i));
  e.body.resize(size);
  for (char& c : e.body) c = static_cast<char>(random() & 0xff);
  e.remote_ip = "127.0.0.1";
  e.date = std::chrono::system_clock::now();
  return e;
}

crawler::WarcOptions OptionsWithPrefix(const std::string& prefix) {
  crawler::WarcOptions options;
  options.prefix = prefix;
  return options;
}

}  // namespace crawler_test
