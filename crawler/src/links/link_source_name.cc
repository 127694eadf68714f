// LinkSourceName: the names `crawl links` and the logs print.
#include <string_view>

#include "crawler/links.h"

namespace crawler {

std::string_view LinkSourceName(LinkSource source) {
  switch (source) {
    case LinkSource::kAnchor:
      return "a";
    case LinkSource::kArea:
      return "area";
    case LinkSource::kLink:
      return "link";
    case LinkSource::kIframe:
      return "iframe";
    case LinkSource::kFrame:
      return "frame";
    case LinkSource::kMetaRefresh:
      return "meta-refresh";
  }
  return "unknown";
}

}  // namespace crawler
