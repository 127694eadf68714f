// The WHATWG host parser (URL Standard section 3.5): domains (through IDNA),
// IPv4, IPv6 and opaque hosts. Internal to the url room.
#ifndef CRAWLER_SRC_URL_HOST_H_
#define CRAWLER_SRC_URL_HOST_H_

#include <string>
#include <string_view>

namespace crawler::url_internal {

// Parses `input` (the raw host text of a URL) and appends its serialization
// to `out`. `is_special` selects the domain/IPv4 parser (http, https, ws, wss,
// ftp, file) over the opaque-host parser. Returns nullptr on success, or a
// static string saying why the host is invalid (out is then unspecified).
// `input` must not be empty for special URLs.
const char* AppendParsedHost(std::string_view input, bool is_special, std::string& out);

}  // namespace crawler::url_internal

#endif  // CRAWLER_SRC_URL_HOST_H_
