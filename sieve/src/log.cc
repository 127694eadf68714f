// The default LogSink (sieve/log.h): stderr, kInfo and up, spdlog's default
// line format, so that a program that sets no sink sees what it saw when the
// library logged through spdlog.
#include "sieve/log.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <string>

#include "absl/strings/str_format.h"

namespace sieve {

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kError:
      return "error";
  }
  return "error";
}

void StderrLogSink(LogLevel level, std::string_view message) {
  if (level < LogLevel::kInfo) return;
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const long millis = static_cast<long>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
  std::tm local{};
  localtime_r(&seconds, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &local);
  const std::string line =
      absl::StrFormat("[%s.%03d] [%s] %s\n", stamp, millis, LogLevelName(level),
                      absl::string_view(message.data(), message.size()));
  // One write(2) per line: concurrent messages do not interleave.
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace sieve
