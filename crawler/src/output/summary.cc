// summary.json: written once at the end, through a temporary file and a rename
// so a reader never sees half a summary.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "crawler/output.h"
#include "nlohmann/json.hpp"

namespace crawler {

namespace {

nlohmann::ordered_json HostsToJson(const std::vector<HostSummary>& hosts) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const HostSummary& h : hosts) {
    nlohmann::ordered_json& one = out[h.authority];
    one["pages"] = h.pages;
    one["errors"] = h.errors;
    one["robots_blocked"] = h.robots_blocked;
    one["mean_delay_ms"] = h.mean_delay_ms;
    one["min_delay_ms"] = h.min_delay_ms;
    one["delay_ms"] = h.delay_ms;
    one["dropped"] =
        h.dropped.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(h.dropped);
  }
  return out;
}

// A number, or null when it is not finite (the reader gets no inf or NaN).
nlohmann::ordered_json Finite(double x) {
  return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json();
}

template <typename T>
nlohmann::ordered_json OrNull(const std::optional<T>& x) {
  return x ? nlohmann::ordered_json(*x) : nlohmann::ordered_json();
}

nlohmann::ordered_json MeasuredToJson(const MeasuredLoss& m) {
  nlohmann::ordered_json j;
  j["sample_one_in"] = m.sample_one_in;
  j["sampled_urls"] = m.sampled_urls;
  j["sampled_false_positives"] = m.sampled_false_positives;
  j["sample_bytes"] = m.sample_bytes;
  j["rate"] = Finite(m.rate);
  j["rate_95"] = {Finite(m.rate_low), Finite(m.rate_high)};
  j["wrongly_dropped"] = Finite(std::round(m.wrongly_dropped));
  j["wrongly_dropped_95"] = {Finite(std::floor(m.wrongly_dropped_low)),
                             Finite(std::ceil(m.wrongly_dropped_high))};
  return j;
}

}  // namespace

std::string CrawlSummaryToJson(const CrawlSummary& s) {
  nlohmann::ordered_json j;
  j["pages"] = s.pages;
  j["pages_ok"] = s.pages_ok;
  j["bytes"] = s.bytes;
  j["duration_s"] = s.duration_s;
  j["pages_per_s"] = s.duration_s > 0 ? static_cast<double>(s.pages) / s.duration_s : 0.0;
  nlohmann::ordered_json errors = nlohmann::ordered_json::object();
  for (const auto& [kind, n] : s.errors_by_kind) errors[kind] = n;
  j["errors_by_kind"] = errors;
  nlohmann::ordered_json statuses = nlohmann::ordered_json::object();
  for (const auto& [code, n] : s.status_counts) statuses[std::to_string(code)] = n;
  j["status_counts"] = statuses;
  j["links_found"] = s.links_found;
  j["links_new"] = s.links_new;
  j["off_scope"] = s.off_scope;
  j["over_depth"] = s.over_depth;
  j["too_long"] = s.too_long;
  j["over_host_limit"] = s.over_host_limit;
  j["rejected"] = s.rejected;
  j["nofollow_skipped"] = s.nofollow_skipped;
  j["rejected_ext"] = s.rejected_ext;
  j["traps"] = {{"host_budget", s.trap_host_budget},
                {"query_variants", s.trap_query_variants},
                {"repeated_segments", s.trap_repeated_segments},
                {"duplicate_content", s.trap_duplicate_content}};
  j["redirects"] = s.redirects;
  j["robots_fetches"] = s.robots_fetches;
  j["robots_blocked"] = s.robots_blocked;
  j["sitemap_fetches"] = s.sitemap_fetches;
  j["sitemap_urls"] = s.sitemap_urls;
  j["seen_estimate"] = OrNull(s.seen_estimate);
  j["filter_saturated"] = s.filter_saturated;
  j["queued_at_end"] = s.queued_at_end;
  j["filter_bytes"] = s.filter_bytes;
  j["filter_fp_rate"] = Finite(s.filter_fp_rate);
  j["filter_fill"] = Finite(s.filter_fill);
  j["fp_measured"] = s.fp_measured ? MeasuredToJson(*s.fp_measured) : nlohmann::ordered_json();
  j["last_checkpoint_ms"] = s.last_checkpoint_ms;
  j["last_checkpoint_bytes"] = s.last_checkpoint_bytes;
  j["interrupted"] = s.interrupted;
  j["stop_reason"] = s.stop_reason;
  j["hosts"] = HostsToJson(s.hosts);
  if (s.recrawl) {
    j["recrawl"] = {{"not_modified", s.not_modified},
                    {"unchanged", s.unchanged},
                    {"changed", s.changed},
                    {"new", s.new_pages},
                    {"gone", s.gone},
                    {"carried", s.carried},
                    {"bytes_saved", s.bytes_saved},
                    {"previous_lines_skipped", s.previous_lines_skipped}};
  } else {
    j["recrawl"] = nullptr;
  }
  j["hosts_not_listed"] = s.hosts_not_listed;
  nlohmann::ordered_json busiest = nlohmann::ordered_json::object();
  for (const ServerSummary& server : s.busiest_servers) {
    busiest[server.address] = {{"starts", server.starts},
                               {"slot_waits", server.slot_waits},
                               {"delay_waits", server.delay_waits}};
  }
  j["servers"] = {{"counted", s.servers_counted},
                  {"slot_waits", s.server_slot_waits},
                  {"delay_waits", s.server_delay_waits},
                  {"busiest", busiest}};
  nlohmann::ordered_json reasons = nlohmann::ordered_json::object();
  for (const auto& [field, reason] : s.null_reasons) reasons[field] = reason;
  j["null_reasons"] = reasons;
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

absl::Status WriteSummary(const std::string& dir, const CrawlSummary& summary) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::UnavailableError(absl::StrCat("cannot create ", dir, ": ", ec.message()));
  const std::string final_path = (std::filesystem::path(dir) / "summary.json").string();
  const std::string tmp_path = final_path + ".tmp";
  std::FILE* f = std::fopen(tmp_path.c_str(), "wb");
  if (f == nullptr) {
    return absl::UnavailableError(absl::StrCat("open ", tmp_path, ": ", std::strerror(errno)));
  }
  const std::string text = CrawlSummaryToJson(summary) + "\n";
  const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  if (!wrote || !closed) {
    return absl::DataLossError(absl::StrCat("write ", tmp_path, ": ", std::strerror(errno)));
  }
  std::filesystem::rename(tmp_path, final_path, ec);
  if (ec) return absl::DataLossError(absl::StrCat("rename to ", final_path, ": ", ec.message()));
  return absl::OkStatus();
}

}  // namespace crawler
