// Scheme classification of the WHATWG URL Standard: the six special
// schemes and their default ports. Internal to the url room.
#ifndef CRAWLER_SRC_URL_SCHEME_H_
#define CRAWLER_SRC_URL_SCHEME_H_

#include <cstdint>
#include <string_view>

namespace crawler::url_internal {

enum class SchemeType : uint8_t { kHttp, kHttps, kWs, kWss, kFtp, kFile, kOther };

// `scheme` is lower-case, without the colon.
inline SchemeType ClassifyScheme(std::string_view scheme) {
  switch (scheme.size()) {
    case 2:
      if (scheme == "ws") return SchemeType::kWs;
      break;
    case 3:
      if (scheme == "wss") return SchemeType::kWss;
      if (scheme == "ftp") return SchemeType::kFtp;
      break;
    case 4:
      if (scheme == "http") return SchemeType::kHttp;
      if (scheme == "file") return SchemeType::kFile;
      break;
    case 5:
      if (scheme == "https") return SchemeType::kHttps;
      break;
  }
  return SchemeType::kOther;
}

inline bool IsSpecial(SchemeType type) { return type != SchemeType::kOther; }

// -1 for file and non-special schemes, which have no default port.
inline int DefaultPort(SchemeType type) {
  switch (type) {
    case SchemeType::kHttp:
    case SchemeType::kWs:
      return 80;
    case SchemeType::kHttps:
    case SchemeType::kWss:
      return 443;
    case SchemeType::kFtp:
      return 21;
    default:
      return -1;
  }
}

}  // namespace crawler::url_internal

#endif  // CRAWLER_SRC_URL_SCHEME_H_
