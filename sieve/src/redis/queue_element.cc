#include "queue_element.h"

namespace sieve::internal {

std::string EncodeQueueElement(std::string_view url, std::string_view payload) {
  std::string element(url);
  if (payload.empty()) return element;
  element.reserve(url.size() + 1 + payload.size());
  element.push_back('\0');
  element.append(payload);
  return element;
}

std::string_view UrlOfQueueElement(std::string_view element) {
  return element.substr(0, element.find('\0'));
}

SieveEntry DecodeQueueElement(std::string_view element) {
  const size_t nul = element.find('\0');
  if (nul == std::string_view::npos) return SieveEntry{std::string(element), std::string()};
  return SieveEntry{std::string(element.substr(0, nul)), std::string(element.substr(nul + 1))};
}

}  // namespace sieve::internal
