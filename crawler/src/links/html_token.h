// The narrow call between the scanner's tokenizer (html_tokenizer.h) and
// what consumes its tokens, as Gumbo's tokenizer.c hands tokens to
// parser.c: start tags, end tags and text go to a TokenSink, which answers
// how the tokenizer goes on and whether it is in foreign content. The tree
// model (tree_model.h) is the sink ScanRawLinks uses.
//
// Example:
//   struct CountTags {
//     int tags = 0;
//     bool OnText(std::string_view) { return true; }
//     Next OnStartTag(const StartTag&) { ++tags; return Next::kData; }
//     bool OnEndTag(const EndTag&) { return true; }
//     bool InForeignContent() const { return false; }
//   };
//
// Threading: plain values; a token's views live as long as the page (or,
// for names, until the next token).
#ifndef CRAWLER_SRC_LINKS_HTML_TOKEN_H_
#define CRAWLER_SRC_LINKS_HTML_TOKEN_H_

#include <gumbo.h>

#include <array>
#include <concepts>
#include <optional>
#include <string_view>

#include "links/link_collector.h"

namespace crawler::links_internal {

struct StartTag {
  GumboTag tag = GUMBO_TAG_UNKNOWN;
  std::string_view name;  // lowercased
  bool self_closing = false;
  // The link attributes (first occurrence wins, as Gumbo drops duplicates),
  // read only for tags LinkCollector::ReadsAttributes names.
  std::array<std::optional<std::string_view>, kLinkAttrCount> attrs;
};

struct EndTag {
  GumboTag tag = GUMBO_TAG_UNKNOWN;
  std::string_view name;  // lowercased
  bool bare = false;      // "</" name ">", nothing between name and '>'
};

// How the tokenizer goes on after a start tag: the state the tree builder
// switches it to, or kFallBack when the sink does not follow the page.
enum class Next { kData, kRcdata, kRawtext, kScript, kPlaintext, kFallBack };

// A false from OnText or OnEndTag stops the scan (the sink did not follow
// the page). InForeignContent: whether the current node is foreign (SVG),
// where "<![CDATA[" opens a CDATA section and <a xlink:href> is an href.
template <typename S>
concept TokenSink = requires(S sink, const S& const_sink, std::string_view text,
                             const StartTag& start, const EndTag& end) {
  { sink.OnText(text) } -> std::same_as<bool>;
  { sink.OnStartTag(start) } -> std::same_as<Next>;
  { sink.OnEndTag(end) } -> std::same_as<bool>;
  { const_sink.InForeignContent() } -> std::same_as<bool>;
};

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_HTML_TOKEN_H_
