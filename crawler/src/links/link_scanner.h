// ScanRawLinks: the raw links of a page found by following the HTML
// tokenizer (its data, tag, attribute, RCDATA, RAWTEXT, script-data with
// escapes, comment, DOCTYPE, bogus-comment and PLAINTEXT states) and a small
// model of the tree builder (the stack of open elements, the tables' modes,
// <template> contents, the head and <noscript> in it), without building a
// tree. Its answer is the one FindRawLinks gives on Gumbo 0.10.1's tree of
// the same text, link for link in the same order, or none: whenever the page
// holds a construct where the tree could reorder, clone, drop or re-read
// link elements and the model does not follow it (misnested formatting
// elements and <a>, foster parenting in tables, <select>, <frameset>, SVG
// and MathML, quirks-mode-dependent <table>, overflowing numeric character
// references, attribute values of interest that are not valid UTF-8), it
// returns nullopt and the caller parses with Gumbo. The differential test
// (tests/crawler/links/scanner_test.cc), the fuzz target crawler_links_diff
// and links-scan-bench hold it to that.
//
// Its parts, each a rule of that contract stated once: the tokenizer
// (html_tokenizer.h) emits tokens to the tree model (tree_model.h, a
// TokenSink, html_token.h), which reads Gumbo's tag categories from one
// table (tag_sets.h) and hands the link elements to the LinkCollector
// (link_collector.h) that FindRawLinks uses too.
//
// Example:
//   std::deque<std::string> storage;
//   std::optional<RawPage> raw = ScanRawLinks(utf8_html, 1000, storage);
//   if (!raw) raw = FindRawLinks(gumbo_tree, 1000);  // the fallback
//
// Threading: a pure function; hrefs point into `html` or into `storage`.
#ifndef CRAWLER_SRC_LINKS_LINK_SCANNER_H_
#define CRAWLER_SRC_LINKS_LINK_SCANNER_H_

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "links/raw_links.h"

namespace crawler::links_internal {

// html: UTF-8 text as handed to Gumbo. Decoded attribute values that differ
// from their source bytes are kept in `storage` (which must outlive the
// result). Bounded by the page: one stack entry per open element. On
// nullopt, `why` (if not null) says what the scan did not follow, e.g.
// "start tag <svg> in <div>".
std::optional<RawPage> ScanRawLinks(std::string_view html, size_t max_links,
                                    std::deque<std::string>& storage, std::string* why = nullptr);

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_LINK_SCANNER_H_
