// DuplicateContentGuard: the duplicate-content trap defence. A session-id
// trap serves one page under ever new ids (in the path, in a query parameter
// of any name, after ";jsessionid="): no rule on URLs can know them all, but
// the copies say the same thing. Each HTML page's PageFingerprint
// (crawler/page_fingerprint.h: its tags and words, attribute values left out)
// is counted per host; once a host has served more than `max_copies` pages
// near one fingerprint (within kNearDuplicateDistance bits), links from
// further such pages are not followed. The copies already queued are still
// fetched (up to links-per-copy x max_copies of them), and the host's other
// pages are untouched.
//
//   DuplicateContentGuard guard(options.trap_duplicate_content);
//   if (guard.AddPage(page_url, PageFingerprint(body))) skip_its_links();
//
// Per host: kEntriesPerHost (fingerprint, pages) entries. A page counts
// toward the first entry of its host within the distance; failing that it
// takes the entry with the fewest pages, starting again at 1. Not
// Space-Saving's "inherit the evicted count": over a site of 20 000 distinct
// pages that gave every entry ~2 500 and cut a site with no trap. So counts
// can only be under: the defence can come late (a trap whose copies are rarer
// than 1 in 8 of its host's pages keeps losing its entry until the host's
// other pages run out), never early.
//
// Bounds: fixed, whatever the crawl's size: kHostSlots (4096) slots of
// kEntriesPerHost (8) entries of 16 bytes, 512 KiB, allocated zeroed. A host
// hashes to a slot (XXH3); hosts sharing a slot share its 8 entries, each
// entry tagged with its host's hash so counts never mix: with many hosts
// per slot (a crawl of 100 000 hosts puts ~25 in each) entries churn and a
// trap is found later, as above. Not checkpointed: a resumed crawl counts
// from zero, so a trap gets up to max_copies more pages per run.
//
// Threading: AddPage is safe to call concurrently (64 lock stripes over the
// slots).
#ifndef CRAWLER_APP_DUPLICATE_CONTENT_GUARD_H_
#define CRAWLER_APP_DUPLICATE_CONTENT_GUARD_H_

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>

namespace crawler {

class DuplicateContentGuard {
 public:
  static constexpr size_t kHostSlots = 4096;
  static constexpr size_t kEntriesPerHost = 8;

  // max_copies 0 turns the defence off (AddPage is then always false).
  explicit DuplicateContentGuard(uint64_t max_copies);

  // Counts a 2xx HTML page fetched from `page_url` (its host and port count)
  // whose content is `fingerprint`. True when that host has now served more
  // than max_copies pages near it, this one included: its links are not to
  // be followed. Logs a warning the first time a fingerprint passes.
  bool AddPage(std::string_view page_url, uint64_t fingerprint);

 private:
  struct Entry {
    uint64_t fingerprint = 0;
    uint32_t host_tag = 0;  // 0: unused
    uint32_t pages = 0;
  };
  static constexpr size_t kStripes = 64;

  // The count of the entry `fingerprint` falls into, after adding the page.
  uint32_t Count(size_t slot, uint32_t host_tag, uint64_t fingerprint);

  const uint64_t max_copies_;
  std::unique_ptr<Entry[]> entries_;  // [kHostSlots * kEntriesPerHost]
  std::array<std::mutex, kStripes> stripes_;
};

}  // namespace crawler

#endif  // CRAWLER_APP_DUPLICATE_CONTENT_GUARD_H_
