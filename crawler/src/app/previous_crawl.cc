#include "app/previous_crawl.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "crawler/fetch.h"
#include "nlohmann/json.hpp"
#include "spdlog/spdlog.h"

namespace crawler {
namespace {

// Damaged lines logged without --strict; the rest are only counted.
constexpr int64_t kLoggedDamagedLines = 5;

std::string StringField(const nlohmann::json& record, const char* key) {
  const auto it = record.find(key);
  if (it == record.end() || it->is_null()) return "";
  if (!it->is_string()) throw std::invalid_argument(absl::StrCat("\"", key, "\" is not a string"));
  return it->get<std::string>();
}

int64_t IntField(const nlohmann::json& record, const char* key) {
  const auto it = record.find(key);
  if (it == record.end() || it->is_null()) return 0;
  if (!it->is_number_integer()) {
    throw std::invalid_argument(absl::StrCat("\"", key, "\" is not an integer"));
  }
  return it->get<int64_t>();
}

bool TrueField(const nlohmann::json& record, const char* key) {
  const auto it = record.find(key);
  return it != record.end() && it->is_boolean() && it->get<bool>();
}

// The URL a record stands for, with its PreviousFetch when it is a page;
// nullopt for a page gone (404, 410), not revisited. Throws
// std::invalid_argument (or nlohmann's errors) for a damaged record.
std::optional<CrawlUrl> UrlOf(const nlohmann::json& record, const RevisitBounds& bounds) {
  if (!record.is_object()) throw std::invalid_argument("not a JSON object");
  CrawlUrl url;
  url.url = StringField(record, "url");
  if (url.url.empty()) throw std::invalid_argument("no \"url\"");
  const int64_t status = IntField(record, "status");
  const bool not_modified = TrueField(record, "not_modified");
  const bool page = (status >= 200 && status < 300) || not_modified;
  url.depth = static_cast<int>(IntField(record, "depth"));
  url.parent = StringField(record, "parent");
  const std::string failure = StringField(record, "error");
  // Gone, or a type this crawl's flags refuse: not asked again.
  if (status == 404 || status == 410 || failure == kFetchTypeRejected) return std::nullopt;
  if (!page || !failure.empty()) return url;  // asked again, plainly
  PreviousFetch previous;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, StringField(record, "fetched_at"), &previous.fetched_at,
                       &error)) {
    throw std::invalid_argument(absl::StrCat("\"fetched_at\" is not RFC 3339: ", error));
  }
  previous.revisit_s =
      std::clamp(IntField(record, "revisit_s") > 0 ? IntField(record, "revisit_s") : bounds.min_s,
                 bounds.min_s, bounds.max_s);
  previous.status = not_modified ? 200 : static_cast<int>(status);
  previous.bytes = IntField(record, "bytes");
  previous.etag = StringField(record, "etag");
  previous.last_modified = StringField(record, "last_modified");
  previous.digest = StringField(record, "digest");
  url.previous = std::move(previous);
  return url;
}

}  // namespace

absl::StatusOr<PreviousCrawlReport> ForEachPreviousPage(
    const std::string& previous_out, const RevisitBounds& bounds, bool strict,
    const std::function<void(CrawlUrl url)>& each) {
  const std::string path = (std::filesystem::path(previous_out) / "pages.jsonl").string();
  std::ifstream in(path);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat("--recrawl: cannot read ", path, " (the previous crawl's --out?)"));
  }
  PreviousCrawlReport report;
  std::string line;
  while (std::getline(in, line)) {
    ++report.lines;
    if (line.empty()) continue;
    std::optional<CrawlUrl> url;
    std::string damage;
    try {
      url = UrlOf(nlohmann::json::parse(line), bounds);
    } catch (const std::exception& e) {
      damage = e.what();
    }
    if (!damage.empty()) {
      const std::string message =
          absl::StrCat("--recrawl: ", path, ":", report.lines, ": damaged record: ", damage);
      if (strict) return absl::InvalidArgumentError(message);
      if (++report.skipped_lines <= kLoggedDamagedLines) spdlog::warn("{} (skipped)", message);
      continue;
    }
    if (!url.has_value()) continue;
    ++(url->previous.has_value() ? report.pages : report.asked_again);
    each(*std::move(url));
  }
  if (in.bad()) return absl::DataLossError(absl::StrCat("--recrawl: reading ", path, " failed"));
  return report;
}

}  // namespace crawler
