// JSON through nlohmann: its accessors throw on a wrong type, so each decoder
// catches and turns that into DataLoss naming the file (no exception leaves
// the library).
#include "state/checkpoint_codec.h"

#include <cinttypes>
#include <cstdio>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "state/state_files.h"

namespace crawler::state_internal {
namespace {

using nlohmann::json;

constexpr absl::string_view kMagic = "crawl-state ";

// Debian's Abseil has its own string_view, distinct from std::string_view.
absl::string_view Av(std::string_view text) { return absl::string_view(text.data(), text.size()); }

absl::Status Damaged(const std::string& path, std::string_view what) {
  return absl::DataLossError(
      absl::StrCat(path, ": ", Av(what), " (damaged checkpoint; --fresh starts over)"));
}

absl::StatusOr<json> ParseJson(std::string_view bytes, const std::string& path) {
  json parsed = json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) return Damaged(path, "not valid JSON");
  return parsed;
}

}  // namespace

std::string EncodeManifest(const Manifest& manifest) {
  json files = json::object();
  for (const auto& [name, check] : manifest.files) {
    files[name] = {{"bytes", check.bytes}, {"crc32", check.crc32}};
  }
  const json body = {
      {"sequence", manifest.sequence}, {"log_bytes", manifest.log_bytes}, {"files", files}};
  std::string text = absl::StrCat(kMagic, manifest.version, "\n", body.dump(), "\n");
  absl::StrAppend(&text, absl::StrFormat("crc32 %08x\n", Crc32(text)));
  return text;
}

absl::StatusOr<Manifest> DecodeManifest(std::string_view bytes, const std::string& path) {
  if (!bytes.starts_with(std::string_view(kMagic.data(), kMagic.size())))
    return Damaged(path, "not a crawl state manifest");
  const size_t crc_at = bytes.rfind("crc32 ");
  uint32_t stored = 0;
  if (crc_at == std::string_view::npos || bytes.size() != crc_at + 6 + 8 + 1 ||
      !absl::SimpleHexAtoi(Av(bytes.substr(crc_at + 6, 8)), &stored)) {
    return Damaged(path, "truncated (no checksum line)");
  }
  const std::string_view covered = bytes.substr(0, crc_at);
  if (Crc32(covered) != stored) return Damaged(path, "checksum mismatch");
  const size_t line_end = covered.find('\n');
  Manifest manifest;
  if (!absl::SimpleAtoi(Av(covered.substr(kMagic.size(), line_end - kMagic.size())),
                        &manifest.version)) {
    return Damaged(path, "bad version line");
  }
  if (manifest.version != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": format version ", manifest.version,
                     " is not supported (this crawl reads version 1; --fresh starts over)"));
  }
  absl::StatusOr<json> body = ParseJson(covered.substr(line_end + 1), path);
  if (!body.ok()) return body.status();
  try {
    manifest.sequence = body->at("sequence").get<int64_t>();
    manifest.log_bytes = body->at("log_bytes").get<int64_t>();
    for (const auto& [name, check] : body->at("files").items()) {
      manifest.files[name] = {check.at("bytes").get<uint64_t>(), check.at("crc32").get<uint32_t>()};
    }
  } catch (const json::exception& e) {
    return Damaged(path, e.what());
  }
  return manifest;
}

std::string EncodeFrontier(const FrontierSnapshot& snapshot) {
  json pending = json::array();
  for (const CrawlUrl& url : snapshot.pending) {
    pending.push_back({url.url, url.depth, url.redirect_hops, url.parent});
  }
  json per_host = json::array();
  for (const auto& [authority, count] : snapshot.per_host) per_host.push_back({authority, count});
  const json body = {{"pending", pending},
                     {"per_host", per_host},
                     {"offered", snapshot.stats.offered},
                     {"accepted", snapshot.stats.accepted},
                     {"done", snapshot.stats.done},
                     {"over_host_limit", snapshot.stats.over_host_limit}};
  return body.dump() + "\n";
}

absl::StatusOr<FrontierSnapshot> DecodeFrontier(std::string_view bytes, const std::string& path) {
  absl::StatusOr<json> body = ParseJson(bytes, path);
  if (!body.ok()) return body.status();
  FrontierSnapshot snapshot;
  try {
    for (const json& entry : body->at("pending")) {
      CrawlUrl url;
      url.url = entry.at(0).get<std::string>();
      url.depth = entry.at(1).get<int>();
      url.redirect_hops = entry.at(2).get<int>();
      url.parent = entry.at(3).get<std::string>();
      snapshot.pending.push_back(std::move(url));
    }
    for (const json& entry : body->at("per_host")) {
      snapshot.per_host.emplace_back(entry.at(0).get<std::string>(), entry.at(1).get<uint64_t>());
    }
    snapshot.stats.offered = body->at("offered").get<uint64_t>();
    snapshot.stats.accepted = body->at("accepted").get<uint64_t>();
    snapshot.stats.done = body->at("done").get<uint64_t>();
    snapshot.stats.over_host_limit = body->at("over_host_limit").get<uint64_t>();
  } catch (const json::exception& e) {
    return Damaged(path, e.what());
  }
  return snapshot;
}

std::string EncodeCounters(const CrawlSummary& c) {
  json errors = json::object();
  for (const auto& [kind, n] : c.errors_by_kind) errors[kind] = n;
  json statuses = json::object();
  for (const auto& [status, n] : c.status_counts) statuses[absl::StrCat(status)] = n;
  const json body = {{"pages", c.pages},
                     {"pages_ok", c.pages_ok},
                     {"bytes", c.bytes},
                     {"duration_s", c.duration_s},
                     {"errors_by_kind", errors},
                     {"status_counts", statuses},
                     {"links_found", c.links_found},
                     {"links_new", c.links_new},
                     {"off_scope", c.off_scope},
                     {"over_depth", c.over_depth},
                     {"too_long", c.too_long},
                     {"rejected", c.rejected},
                     {"nofollow_skipped", c.nofollow_skipped},
                     {"redirects", c.redirects}};
  return body.dump() + "\n";
}

absl::StatusOr<CrawlSummary> DecodeCounters(std::string_view bytes, const std::string& path) {
  absl::StatusOr<json> body = ParseJson(bytes, path);
  if (!body.ok()) return body.status();
  CrawlSummary c;
  try {
    const json& b = *body;
    c.pages = b.at("pages").get<int64_t>();
    c.pages_ok = b.at("pages_ok").get<int64_t>();
    c.bytes = b.at("bytes").get<int64_t>();
    c.duration_s = b.at("duration_s").get<double>();
    for (const auto& [kind, n] : b.at("errors_by_kind").items()) {
      c.errors_by_kind[kind] = n.get<int64_t>();
    }
    for (const auto& [status, n] : b.at("status_counts").items()) {
      int code = 0;
      if (!absl::SimpleAtoi(status, &code)) return Damaged(path, "bad status code key");
      c.status_counts[code] = n.get<int64_t>();
    }
    c.links_found = b.at("links_found").get<int64_t>();
    c.links_new = b.at("links_new").get<int64_t>();
    c.off_scope = b.at("off_scope").get<int64_t>();
    c.over_depth = b.at("over_depth").get<int64_t>();
    c.too_long = b.at("too_long").get<int64_t>();
    c.rejected = b.at("rejected").get<int64_t>();
    c.nofollow_skipped = b.at("nofollow_skipped").get<int64_t>();
    c.redirects = b.at("redirects").get<int64_t>();
  } catch (const json::exception& e) {
    return Damaged(path, e.what());
  }
  return c;
}

std::string EncodeSeeds(const std::vector<std::string>& seeds) {
  std::string text;
  for (const std::string& seed : seeds) absl::StrAppend(&text, seed, "\n");
  return text;
}

std::vector<std::string> DecodeSeeds(std::string_view bytes) {
  return absl::StrSplit(Av(bytes), '\n', absl::SkipEmpty());
}

}  // namespace crawler::state_internal
