// SetUpLogging: spdlog's pattern with UTC time for text, a formatter of our
// own for JSON lines.
#include "app/log_setup.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

namespace crawler {
namespace {

void AppendJsonString(std::string_view text, std::string* out) {
  out->push_back('"');
  for (const char c : text) {
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          *out += absl::StrFormat("\\u%04x", static_cast<unsigned char>(c));
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

// --log-format json: spdlog hands us each message; we write the whole line.
class JsonLogFormatter : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const auto level = spdlog::level::to_string_view(msg.level);
    const std::string line =
        JsonLogLine(absl::FromChrono(msg.time), std::string_view(level.data(), level.size()),
                    std::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(line.data(), line.data() + line.size());
    dest.push_back('\n');
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonLogFormatter>();
  }
};

}  // namespace

LogStyle LogStyleOf(const CrawlOptions& options, const char* no_color_env) {
  LogStyle style;
  style.json = options.log_format == "json";
  style.color = !style.json && (no_color_env == nullptr || no_color_env[0] == '\0');
  return style;
}

void SetUpLogging(const std::string& level, const LogStyle& style) {
  auto logger = spdlog::stderr_color_mt(
      "crawl", style.color ? spdlog::color_mode::automatic : spdlog::color_mode::never);
  if (style.json) {
    logger->set_formatter(std::make_unique<JsonLogFormatter>());
  } else {
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v", spdlog::pattern_time_type::utc);
  }
  logger->set_level(spdlog::level::from_str(level));
  spdlog::set_default_logger(logger);
}

std::string UtcTimestamp(absl::Time time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", time, absl::UTCTimeZone());
}

std::string JsonLogLine(absl::Time time, std::string_view level, std::string_view message) {
  std::string line = absl::StrCat("{\"time\":\"", UtcTimestamp(time), "\",\"level\":");
  AppendJsonString(level, &line);
  line += ",\"message\":";
  AppendJsonString(message, &line);
  line += "}";
  return line;
}

}  // namespace crawler
