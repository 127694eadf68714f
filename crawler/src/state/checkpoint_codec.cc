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
#include "crawler/crawl_state.h"
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
  if (manifest.version < kCrawlStateVersionOldest || manifest.version > kCrawlStateVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": a checkpoint of state format version ", manifest.version, ", written by ",
        manifest.version < kCrawlStateVersion ? "an older" : "a newer",
        " build of crawl; this build reads versions ", kCrawlStateVersionOldest, " to ",
        kCrawlStateVersion,
        ". Resume it with the build that wrote it, or start over with --fresh"));
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

// The frontier file is tab-separated lines: counters and per-host counts,
// nothing per URL (a URL's depth and parent are its Sieve payload, saved in
// sieve.checkpoint). Its size is bounded by the authorities counted for
// --max-pages-per-host (at most ~1.8e6 lines, see HostLimitCounts) plus at
// most 65,536 + 4,096 bucket lines. Lines, in this order:
//   frontier<TAB>2
//   stats<TAB>offered<TAB>accepted<TAB>done<TAB>over_host_limit
//   host<TAB><16 hex digits: StableAuthorityHash><TAB>accepted   (ascending hash)
//   shared<TAB>bucket<TAB>accepted          (HostLimitCounts' shared counters)
//   queued<TAB>bucket<TAB>URLs              (the pass-over sketch's buckets)
constexpr absl::string_view kFrontierHeader = "frontier\t2";

std::string EncodeFrontier(const FrontierSnapshot& snapshot) {
  std::string text;
  const FrontierStats& st = snapshot.stats;
  absl::StrAppend(&text, kFrontierHeader, "\nstats\t", st.offered, "\t", st.accepted, "\t", st.done,
                  "\t", st.over_host_limit, "\n");
  for (const auto& [hash, count] : snapshot.per_host) {
    absl::StrAppend(&text, "host\t", absl::Hex(hash, absl::kZeroPad16), "\t", count, "\n");
  }
  for (const auto& [bucket, count] : snapshot.per_host_shared) {
    absl::StrAppend(&text, "shared\t", bucket, "\t", count, "\n");
  }
  for (const auto& [bucket, count] : snapshot.queued_hosts) {
    absl::StrAppend(&text, "queued\t", bucket, "\t", count, "\n");
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
      if (line != kFrontierHeader) return Damaged(path, "not a frontier file of version 2");
      header = true;
    } else if (f[0] == "stats" && f.size() == 5) {
      FrontierStats& st = snapshot.stats;
      if (!absl::SimpleAtoi(f[1], &st.offered) || !absl::SimpleAtoi(f[2], &st.accepted) ||
          !absl::SimpleAtoi(f[3], &st.done) || !absl::SimpleAtoi(f[4], &st.over_host_limit)) {
        return bad();
      }
      stats = true;
    } else if ((f[0] == "host" || f[0] == "shared" || f[0] == "queued") && f.size() == 3) {
      uint64_t key = 0;
      uint64_t count = 0;
      const bool key_ok = f[0] == "host" ? f[1].size() == 16 && absl::SimpleHexAtoi(f[1], &key)
                                         : absl::SimpleAtoi(f[1], &key);
      if (!key_ok || !absl::SimpleAtoi(f[2], &count)) return bad();
      auto& list = f[0] == "host"     ? snapshot.per_host
                   : f[0] == "shared" ? snapshot.per_host_shared
                                      : snapshot.queued_hosts;
      list.emplace_back(key, count);
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
  // A recrawl's counts: [not_modified, unchanged, changed, new,
  // gone, carried, bytes_saved, previous_lines_skipped].
  if (c.recrawl) {
    with_hosts["recrawl"] = {c.not_modified, c.unchanged, c.changed,     c.new_pages,
                             c.gone,         c.carried,   c.bytes_saved, c.previous_lines_skipped};
  }
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
    if (b.contains("recrawl")) {  // absent in older checkpoints and in first crawls
      const json& r = b.at("recrawl");
      c.recrawl = true;
      c.not_modified = r.at(0).get<int64_t>();
      c.unchanged = r.at(1).get<int64_t>();
      c.changed = r.at(2).get<int64_t>();
      c.new_pages = r.at(3).get<int64_t>();
      c.gone = r.at(4).get<int64_t>();
      c.carried = r.at(5).get<int64_t>();
      c.bytes_saved = r.at(6).get<int64_t>();
      c.previous_lines_skipped = r.at(7).get<int64_t>();
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
