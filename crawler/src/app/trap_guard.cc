#include "app/trap_guard.h"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bloom/hash.h"
#include "spdlog/spdlog.h"

namespace crawler {
namespace {

constexpr size_t kSlots = size_t{1} << 18;
constexpr uint64_t kPagesPerInlinkHost = 1000;

// Stable across runs (absl::Hash is seeded per process), so checkpointed
// counts keep their slots.
uint64_t StableHash(std::string_view key) { return bloom::HashKey(key).low; }
size_t SlotOf(std::string_view key) { return StableHash(key) & (kSlots - 1); }

template <typename T>
T* Zeroed() {
  return static_cast<T*>(std::calloc(kSlots, sizeof(T)));
}

// Distinct hosts set in a 64-bit linear-counting bitmap: 64 ln(64 / zeros).
double InlinkHosts(uint64_t bits) {
  const int zeros = 64 - __builtin_popcountll(bits);
  return 64.0 * std::log(64.0 / std::max(zeros, 1));
}

}  // namespace

bool HasRepeatedSegments(std::string_view path, uint64_t times) {
  if (times < 2) return false;
  // Inline room for the paths of nearly every link: this runs once a link
  // (~16 a page), and a heap vector was a malloc and a free each time.
  absl::InlinedVector<std::string_view, 16> segments;
  size_t at = 0;
  while (at < path.size()) {
    const size_t slash = path.find('/', at);
    const size_t end = slash == std::string_view::npos ? path.size() : slash;
    if (end > at) segments.push_back(path.substr(at, end - at));
    at = end + 1;
  }
  for (size_t run = 1; run <= 3; ++run) {
    for (size_t i = 0; i + run * times <= segments.size(); ++i) {
      uint64_t repeats = 1;
      while (repeats < times && i + (repeats + 1) * run <= segments.size()) {
        bool same = true;
        for (size_t k = 0; k < run && same; ++k) {
          same = segments[i + k] == segments[i + repeats * run + k];
        }
        if (!same) break;
        ++repeats;
      }
      if (repeats >= times) return true;
    }
  }
  return false;
}

TrapGuard::TrapGuard(const CrawlOptions& options)
    : host_budget_(options.trap_host_budget),
      query_variants_(options.trap_query_variants),
      repeated_segments_(options.trap_repeated_segments),
      host_pages_(Zeroed<uint32_t>()),
      host_inlinks_(Zeroed<uint64_t>()),
      query_pages_(Zeroed<uint32_t>()) {}

TrapGuard::~TrapGuard() {
  std::free(host_pages_);
  std::free(host_inlinks_);
  std::free(query_pages_);
}

uint64_t TrapGuard::HostBudget(size_t slot) const {
  const uint64_t bits =
      std::atomic_ref<uint64_t>(host_inlinks_[slot]).load(std::memory_order_relaxed);
  return host_budget_ + static_cast<uint64_t>(InlinkHosts(bits)) * kPagesPerInlinkHost;
}

void TrapGuard::OnPageFetched(std::string_view url) {
  if (host_pages_ == nullptr || host_inlinks_ == nullptr || query_pages_ == nullptr) return;
  const UrlParts parts = SplitUrl(url);
  if (host_budget_ > 0) {
    const size_t slot = SlotOf(parts.authority);
    const uint64_t pages =
        std::atomic_ref<uint32_t>(host_pages_[slot]).fetch_add(1, std::memory_order_relaxed) + 1;
    if (pages == HostBudget(slot)) {
      spdlog::warn(
          "trap: {} reached its budget of {} pages (--trap-host-budget); its further "
          "links are not followed",
          std::string(parts.authority), pages);
    }
  }
  if (query_variants_ > 0 && parts.has_query) {
    const size_t slot = SlotOf(url.substr(0, parts.path.data() + parts.path.size() - url.data()));
    const uint64_t pages =
        std::atomic_ref<uint32_t>(query_pages_[slot]).fetch_add(1, std::memory_order_relaxed) + 1;
    if (pages == query_variants_) {
      spdlog::warn(
          "trap: {} fetched with {} queries (--trap-query-variants); its further "
          "query links are not followed",
          std::string(url.substr(0, parts.path.data() + parts.path.size() - url.data())), pages);
    }
  }
}

TrapKind TrapGuard::Check(std::string_view url, std::string_view from_host) {
  return Check(url, SplitUrl(url), from_host);
}

TrapKind TrapGuard::Check(std::string_view url, const UrlParts& parts, std::string_view from_host) {
  if (host_pages_ == nullptr || host_inlinks_ == nullptr || query_pages_ == nullptr) {
    return TrapKind::kNone;  // calloc failed: no defence rather than no crawl
  }
  if (repeated_segments_ > 0 && HasRepeatedSegments(parts.path, repeated_segments_)) {
    return TrapKind::kRepeatedSegments;
  }
  if (host_budget_ > 0) {
    const size_t slot = SlotOf(parts.authority);
    if (!from_host.empty() && parts.host != from_host) {
      std::atomic_ref<uint64_t>(host_inlinks_[slot])
          .fetch_or(uint64_t{1} << (StableHash(from_host) >> 58), std::memory_order_relaxed);
    }
    const uint64_t pages =
        std::atomic_ref<uint32_t>(host_pages_[slot]).load(std::memory_order_relaxed);
    // HostBudget only adds to host_budget_: under it, its logarithm (per
    // link) is not needed.
    if (pages >= host_budget_ && pages >= HostBudget(slot)) return TrapKind::kHostBudget;
  }
  if (query_variants_ > 0 && parts.has_query) {
    const size_t slot = SlotOf(url.substr(0, parts.path.data() + parts.path.size() - url.data()));
    const uint64_t pages =
        std::atomic_ref<uint32_t>(query_pages_[slot]).load(std::memory_order_relaxed);
    if (pages >= query_variants_) return TrapKind::kQueryVariants;
  }
  return TrapKind::kNone;
}

namespace {

template <typename T>
T LoadRelaxed(T* cells, size_t slot) {
  return std::atomic_ref<T>(cells[slot]).load(std::memory_order_relaxed);
}

absl::Status BadTrapLine(const std::string& path, size_t line, absl::string_view why) {
  return absl::DataLossError(absl::StrCat(path, ":", line, ": ", why));
}

}  // namespace

std::string TrapGuard::Encode() const {
  std::string text = absl::StrCat("traps\t1\t", kSlots, "\n");
  if (host_pages_ == nullptr || host_inlinks_ == nullptr || query_pages_ == nullptr) return text;
  for (size_t slot = 0; slot < kSlots; ++slot) {
    const uint32_t pages = LoadRelaxed(host_pages_, slot);
    const uint64_t inlinks = LoadRelaxed(host_inlinks_, slot);
    if (pages != 0 || inlinks != 0) {
      absl::StrAppend(&text, "host\t", slot, "\t", pages, "\t", absl::Hex(inlinks), "\n");
    }
  }
  for (size_t slot = 0; slot < kSlots; ++slot) {
    const uint32_t pages = LoadRelaxed(query_pages_, slot);
    if (pages != 0) absl::StrAppend(&text, "path\t", slot, "\t", pages, "\n");
  }
  return text;
}

absl::Status TrapGuard::Decode(std::string_view text, const std::string& path) {
  if (host_pages_ == nullptr || host_inlinks_ == nullptr || query_pages_ == nullptr) {
    return absl::OkStatus();  // no tables (calloc failed): no defence, nothing to restore
  }
  struct Cell {
    bool host;
    size_t slot;
    uint32_t pages;
    uint64_t inlinks;
  };
  std::vector<Cell> cells;
  size_t line_number = 0;
  const absl::string_view all(text.data(), text.size());  // Debian's absl: its own string_view
  for (absl::string_view line : absl::StrSplit(all, '\n', absl::SkipEmpty())) {
    ++line_number;
    const std::vector<absl::string_view> f = absl::StrSplit(line, '\t');
    if (line_number == 1) {
      if (f.size() != 3 || f[0] != "traps" || f[1] != "1") {
        return BadTrapLine(path, 1, "not a traps file of version 1");
      }
      uint64_t slots = 0;
      if (!absl::SimpleAtoi(f[2], &slots) || slots != kSlots) {
        return BadTrapLine(path, 1, absl::StrCat("slot count ", f[2], ", this build has ", kSlots));
      }
      continue;
    }
    Cell cell{f[0] == "host", 0, 0, 0};
    const size_t fields = cell.host ? 4 : 3;
    if ((f[0] != "host" && f[0] != "path") || f.size() != fields ||
        !absl::SimpleAtoi(f[1], &cell.slot) || cell.slot >= kSlots ||
        !absl::SimpleAtoi(f[2], &cell.pages) ||
        (cell.host && !absl::SimpleHexAtoi(f[3], &cell.inlinks))) {
      return BadTrapLine(path, line_number, "not a host or path line");
    }
    cells.push_back(cell);
  }
  if (line_number == 0) return BadTrapLine(path, 1, "empty");
  for (const Cell& cell : cells) {
    if (cell.host) {
      std::atomic_ref<uint32_t>(host_pages_[cell.slot]).fetch_add(cell.pages);
      std::atomic_ref<uint64_t>(host_inlinks_[cell.slot]).fetch_or(cell.inlinks);
    } else {
      std::atomic_ref<uint32_t>(query_pages_[cell.slot]).fetch_add(cell.pages);
    }
  }
  return absl::OkStatus();
}

}  // namespace crawler
