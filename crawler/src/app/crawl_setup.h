// From CrawlOptions to each stage's own options: the one place where the
// command line's knobs are translated, so each room keeps its own Options.
#ifndef CRAWLER_APP_CRAWL_SETUP_H_
#define CRAWLER_APP_CRAWL_SETUP_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "crawler/fetch.h"
#include "crawler/frontier.h"
#include "crawler/options.h"
#include "sieve/log.h"
#include "sieve/options.h"

namespace crawler {

// Parses and normalizes each seed (NormalizeForSeen); an invalid seed is an
// InvalidArgumentError naming it. An empty list is an error too.
absl::StatusOr<std::vector<std::string>> NormalizeSeeds(const std::vector<std::string>& seeds,
                                                        const CrawlOptions& options);

// True for loopback, private (RFC 1918), link-local and unique-local literal
// addresses and "localhost": block_private "auto" allows them only when a
// seed is one.
bool IsPrivateHost(std::string_view host);

// The Sieve's messages (sieve/log.h) into the crawler's log (spdlog), with
// the library's option names turned into the crawl flags that set them
// ("SieveOptions::expected_count" -> "--expected").
sieve::LogSink CrawlSieveLogSink();
// The crawl flags' words for a Sieve message.
std::string SieveMessageInFlags(std::string_view message);

sieve::SieveOptions SieveOptionsOf(const CrawlOptions& options);
FrontierOptions FrontierOptionsOf(const CrawlOptions& options);
FetchOptions FetchOptionsOf(const CrawlOptions& options, const std::vector<std::string>& seeds);

}  // namespace crawler

#endif  // CRAWLER_APP_CRAWL_SETUP_H_
