#include "url_origin.h"

namespace sieve_test {

std::string HostOf(std::string_view url) {
  return std::string(url.substr(0, url.find('/', url.find("://") + 3)));
}

}  // namespace sieve_test
