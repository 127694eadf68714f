// Deterministic HTML for the links bench: pages shaped like real ones (head
// with meta/link/script, navigation lists, paragraphs with inline markup and
// entities, a table, comments), and a tag-soup variant full of parse errors.
#ifndef BENCH_LINKS_SYNTHETIC_PAGES_H_
#define BENCH_LINKS_SYNTHETIC_PAGES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace links_bench {

// `count` pages of about `page_bytes` each, from a fixed seed.
std::vector<std::string> TypicalPages(int count, size_t page_bytes, uint64_t seed);

// Pages of unclosed and misnested tags, stray end tags, bad attributes: the
// kind of page on which Gumbo records an error every few bytes.
std::vector<std::string> TagSoupPages(int count, size_t page_bytes, uint64_t seed);

}  // namespace links_bench

#endif  // BENCH_LINKS_SYNTHETIC_PAGES_H_
