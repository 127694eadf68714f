// JSON through nlohmann: its accessors throw on a wrong type, so each decoder
// catches and turns that into DataLoss naming the file (no exception leaves
// the library).
#include "state/checkpoint_codec.h"

#include <cinttypes>
#include <cstdio>
#include <vector>

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

// The frontier file is tab-separated lines, not JSON: it holds one entry per
// URL not yet done (a million seeds make a million), and building a JSON
// document of them took ~1.5 GB and 19 s. Serialized URLs never contain a tab
// or a newline (the URL parser strips them), so no escaping is needed.
//   frontier<TAB>1
//   stats<TAB>offered<TAB>accepted<TAB>done<TAB>over_host_limit
//   host<TAB>accepted<TAB>authority                  (per authority)
//   url<TAB>depth<TAB>redirect_hops<TAB>url<TAB>parent  (per pending URL)
constexpr absl::string_view kFrontierHeader = "frontier\t1";

std::string EncodeFrontier(const FrontierSnapshot& snapshot) {
  std::string text;
  const FrontierStats& st = snapshot.stats;
  absl::StrAppend(&text, kFrontierHeader, "\nstats\t", st.offered, "\t", st.accepted, "\t", st.done,
                  "\t", st.over_host_limit, "\n");
  for (const auto& [authority, count] : snapshot.per_host) {
    absl::StrAppend(&text, "host\t", count, "\t", authority, "\n");
  }
  for (const CrawlUrl& url : snapshot.pending) {
    absl::StrAppend(&text, "url\t", url.depth, "\t", url.redirect_hops, "\t", url.url, "\t",
                    url.parent, "\n");
  }
  return text;
}

absl::StatusOr<FrontierSnapshot> DecodeFrontier(std::string_view bytes, const std::string& path) {
  FrontierSnapshot snapshot;
  bool header = false;
  bool stats = false;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(Av(bytes), '\n', absl::SkipEmpty())) {
    ++line_number;
    const std::vector<absl::string_view> f = absl::StrSplit(line, '\t');
    const auto bad = [&] { return Damaged(path, absl::StrCat("bad line ", line_number)); };
    if (!header) {
      if (line != kFrontierHeader) return Damaged(path, "not a frontier file of version 1");
      header = true;
    } else if (f[0] == "stats" && f.size() == 5) {
      FrontierStats& st = snapshot.stats;
      if (!absl::SimpleAtoi(f[1], &st.offered) || !absl::SimpleAtoi(f[2], &st.accepted) ||
          !absl::SimpleAtoi(f[3], &st.done) || !absl::SimpleAtoi(f[4], &st.over_host_limit)) {
        return bad();
      }
      stats = true;
    } else if (f[0] == "host" && f.size() == 3) {
      uint64_t count = 0;
      if (!absl::SimpleAtoi(f[1], &count)) return bad();
      snapshot.per_host.emplace_back(std::string(f[2]), count);
    } else if (f[0] == "url" && f.size() == 5) {
      CrawlUrl url;
      if (!absl::SimpleAtoi(f[1], &url.depth) || !absl::SimpleAtoi(f[2], &url.redirect_hops) ||
          f[3].empty()) {
        return bad();
      }
      url.url = std::string(f[3]);
      url.parent = std::string(f[4]);
      snapshot.pending.push_back(std::move(url));
    } else {
      return bad();
    }
  }
  if (!header || !stats) return Damaged(path, "incomplete frontier file");
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
  json hosts = json::array();
  for (const HostSummary& h : c.hosts) {
    hosts.push_back({h.authority, h.pages, h.errors, h.robots_blocked, h.mean_delay_ms,
                     h.delay_samples, h.dropped});
  }
  json with_hosts = body;
  with_hosts["hosts"] = std::move(hosts);
  with_hosts["hosts_not_listed"] = c.hosts_not_listed;
  return with_hosts.dump() + "\n";
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
    // Per-host counters: [authority, pages, errors, robots_blocked,
    // mean_delay_ms, delay_samples, dropped]; absent in older checkpoints.
    if (b.contains("hosts")) {
      for (const json& row : b.at("hosts")) {
        HostSummary h;
        h.authority = row.at(0).get<std::string>();
        h.pages = row.at(1).get<int64_t>();
        h.errors = row.at(2).get<int64_t>();
        h.robots_blocked = row.at(3).get<int64_t>();
        h.mean_delay_ms = row.at(4).get<double>();
        h.delay_samples = row.at(5).get<int64_t>();
        h.dropped = row.at(6).get<std::string>();
        c.hosts.push_back(std::move(h));
      }
      c.hosts_not_listed = b.at("hosts_not_listed").get<int64_t>();
    }
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
