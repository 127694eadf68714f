// The crawl's log on stderr: UTC timestamps in ISO 8601 with their offset
// ("2026-11-25T21:30:00.123Z", as pages.jsonl's fetched_at), colored levels
// only on a terminal and never when NO_COLOR is set (no-color.org), and
// --log-format json: one object per line,
//   {"time":"2026-11-25T21:30:00.123Z","level":"info","message":"..."}
// for log shippers; the progress line is then a log line like any other.
//
//   SetUpLogging("info", LogStyleOf(options, std::getenv("NO_COLOR")));
//
// Threading: SetUpLogging once, before other threads log; the formatting
// functions are pure.
#ifndef CRAWLER_APP_LOG_SETUP_H_
#define CRAWLER_APP_LOG_SETUP_H_

#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "crawler/options.h"

namespace crawler {

struct LogStyle {
  bool json = false;  // --log-format json
  bool color = true;  // colored levels when stderr is a terminal
};

// `no_color_env`: the value of NO_COLOR, or null when unset. Set and
// non-empty turns color off (the convention's rule: an empty value does not).
LogStyle LogStyleOf(const CrawlOptions& options, const char* no_color_env);

// Installs the "crawl" logger on stderr as the default spdlog logger.
void SetUpLogging(const std::string& level, const LogStyle& style);

// "2026-11-25T21:30:00.123Z": UTC, milliseconds (truncated), Z for +00:00.
std::string UtcTimestamp(absl::Time time);

// One JSON log line, without the newline. The message is escaped as JSON
// requires (quotes, backslashes, control characters as \uXXXX); bytes that
// are not UTF-8 pass through as they are.
std::string JsonLogLine(absl::Time time, std::string_view level, std::string_view message);

}  // namespace crawler

#endif  // CRAWLER_APP_LOG_SETUP_H_
