// sieve/log.h: where the Sieve's messages go. Every message the sieve and
// bloom libraries emit (the over-capacity warning, a spill that failed, URLs
// lost to a disk error, the filter's size at creation) is handed to the
// LogSink in SieveOptions::log_sink (RedisSieveOptions::log_sink), worded in
// the library's terms (SieveOptions fields, the overflow policy), never a
// program's flags. An embedder routes them to its own logger:
//
//   sieve::SieveOptions options;
//   options.log_sink = [](sieve::LogLevel level, std::string_view message) {
//     if (level >= sieve::LogLevel::kWarning) my_logger.Warn(message);
//   };
//
// Left empty, the sink is StderrLogSink: kInfo and above to stderr, one line
// each, as "[2026-01-02 03:04:05.678] [warning] sieve: ...".
//
// Threading: the Sieve calls its sink from whichever thread hit the event
// (a pusher, a popper), possibly from several at once, sometimes while
// holding its own locks: a sink must be thread-safe, quick, and must not call
// back into the Sieve.
#ifndef SIEVE_LOG_H_
#define SIEVE_LOG_H_

#include <functional>
#include <string_view>

namespace sieve {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

// "debug", "info", "warning", "error".
const char* LogLevelName(LogLevel level);

// Receives one message (no trailing newline) at a level.
using LogSink = std::function<void(LogLevel level, std::string_view message)>;

// The default sink: writes kInfo and above to stderr with a timestamp and the
// level, one write per line (lines from several threads do not interleave).
void StderrLogSink(LogLevel level, std::string_view message);

}  // namespace sieve

#endif  // SIEVE_LOG_H_
