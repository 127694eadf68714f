// The seeds file: the start URLs of a crawl, one per line.
//
//   # comments and blank lines are ignored
//   https://example.org/
//   http://example.net/start.html   # a trailing comment after a blank
//
// Leading and trailing whitespace (and a CR before the newline) is ignored; a
// line whose first non-blank character is '#' is a comment. Since a URL has
// no raw whitespace, a blank ends it and may only be followed by a "# comment"
// ('#' right after the URL is its fragment, kept as written). A line that is not an absolute
// http(s) URL is reported as "file:line: 'text' is not an http(s) URL" and skipped, or, in strict
// mode, makes the whole read fail with that message.
//
//   absl::StatusOr<crawler::SeedsReport> seeds = crawler::ReadSeedsFile("seeds.txt", false);
//   for (const std::string& problem : seeds->problems) spdlog::warn("{}", problem);
//
// Threading: pure function, safe from any thread.
#ifndef CRAWLER_SEEDS_H_
#define CRAWLER_SEEDS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace crawler {

struct SeedsReport {
  // Valid seed URLs in file order, as written (trimmed). Duplicates are kept;
  // the frontier de-duplicates. May be empty: the caller decides whether a
  // crawl without seeds is an error.
  std::vector<std::string> urls;
  // One "file:line: reason" per skipped line, in file order.
  std::vector<std::string> problems;
};

// Reads and checks a seeds file; "-" is standard input (named "stdin" in
// messages, and bounded like a file: 256 MiB). A missing or unreadable file, or one that
// looks binary (contains a NUL byte), is an InvalidArgumentError naming it;
// with `strict`, so is the first bad line.
absl::StatusOr<SeedsReport> ReadSeedsFile(const std::string& path, bool strict);

}  // namespace crawler

#endif  // CRAWLER_SEEDS_H_
