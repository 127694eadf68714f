#include "app/duplicate_content_guard.h"

#include <string>

#include "bloom/hash.h"
#include "crawler/page_fingerprint.h"
#include "spdlog/spdlog.h"
#include "url/after_scheme.h"
#include "url/find_first_of.h"

namespace crawler {
namespace {

// "http://a.b:81/x?q" -> "a.b:81": a server per port is a site of its own.
std::string_view AuthorityOfPage(std::string_view url) {
  const size_t start = AfterScheme(url);
  if (start == std::string_view::npos) return url;
  const size_t end = FindFirstOf(url, "/?#", start);
  return url.substr(start, end == std::string_view::npos ? url.npos : end - start);
}

}  // namespace

DuplicateContentGuard::DuplicateContentGuard(uint64_t max_copies)
    : max_copies_(max_copies),
      entries_(max_copies > 0 ? std::make_unique<Entry[]>(kHostSlots * kEntriesPerHost) : nullptr) {
}

uint32_t DuplicateContentGuard::Count(size_t slot, uint32_t host_tag, uint64_t fingerprint) {
  std::lock_guard<std::mutex> lock(stripes_[slot % kStripes]);
  Entry* const host = &entries_[slot * kEntriesPerHost];
  Entry* fewest = &host[0];
  for (size_t i = 0; i < kEntriesPerHost; ++i) {
    Entry& entry = host[i];
    if (entry.host_tag == host_tag &&
        FingerprintDistance(entry.fingerprint, fingerprint) <= kNearDuplicateDistance) {
      return ++entry.pages;
    }
    if (entry.pages < fewest->pages) fewest = &entry;
  }
  *fewest = Entry{fingerprint, host_tag, 1};
  return 1;
}

bool DuplicateContentGuard::AddPage(std::string_view page_url, uint64_t fingerprint) {
  if (entries_ == nullptr) return false;
  const std::string_view authority = AuthorityOfPage(page_url);
  const uint64_t hash = bloom::HashKey(authority).low;
  const auto host_tag = static_cast<uint32_t>(hash >> 32) | 1;  // never 0 (unused)
  const uint32_t pages = Count(hash & (kHostSlots - 1), host_tag, fingerprint);
  if (pages == max_copies_ + 1) {
    spdlog::warn(
        "trap: {} served more than {} pages with the same content (fingerprint {:016x}, "
        "--trap-duplicate-content); links from further copies are not followed",
        std::string(authority), max_copies_, fingerprint);
  }
  return pages > max_copies_;
}

}  // namespace crawler
