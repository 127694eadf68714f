// The scanner's tokenizer on its own, through a sink that records what it is
// told: the narrow call between the tokenizer and the tree model
// (html_token.h). What it must say follows the HTML standard's tokenizer as
// Gumbo 0.10.1 implements it; the scanner as a whole is held to Gumbo's
// links by scanner_test.cc.
#include "links/html_tokenizer.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace crawler::links_internal {
namespace {

// Records each token; switches the tokenizer as the tree builder would for
// <script> and <title>, and is in foreign content inside <svg>.
class RecordingSink {
 public:
  // Text comes in runs wherever the tokenizer met markup; adjacent runs
  // are one token here.
  bool OnText(std::string_view text) {
    if (tokens.empty() || !tokens.back().starts_with("text ")) tokens.emplace_back("text ");
    tokens.back() += text;
    return true;
  }

  Next OnStartTag(const StartTag& t) {
    std::string token = "<" + std::string(t.name) + ">";
    if (t.attrs[kHref]) token += " href=" + std::string(*t.attrs[kHref]);
    tokens.push_back(token);
    if (t.tag == GUMBO_TAG_SVG) foreign = true;
    if (t.tag == GUMBO_TAG_SCRIPT) return Next::kScript;
    if (t.tag == GUMBO_TAG_TITLE) return Next::kRcdata;
    return t.tag == GUMBO_TAG_FRAMESET ? Next::kFallBack : Next::kData;
  }

  bool OnEndTag(const EndTag& t) {
    tokens.push_back("</" + std::string(t.name) + ">");
    if (t.tag == GUMBO_TAG_SVG) foreign = false;
    return true;
  }

  bool InForeignContent() const { return foreign; }

  std::vector<std::string> tokens;
  bool foreign = false;
};

static_assert(TokenSink<RecordingSink>);

std::vector<std::string> TokensOf(std::string_view html) {
  std::deque<std::string> storage;
  RecordingSink sink;
  HtmlTokenizer<RecordingSink> tokenizer(html, storage, sink);
  EXPECT_TRUE(tokenizer.Run()) << html;
  return sink.tokens;
}

using Tokens = std::vector<std::string>;

TEST(HtmlTokenizerTest, EmitsTagsAndTextNotCommentsOrDoctypes) {
  EXPECT_EQ(TokensOf("<!DOCTYPE html><P Class=x>Hi<!-- <a href=/no> --></p>"),
            (Tokens{"<p>", "text Hi", "</p>"}));
  EXPECT_EQ(TokensOf("a < b<?php x ?></>c"), (Tokens{"text a < bc"}));
}

TEST(HtmlTokenizerTest, SkipsRawTextToTheEndTagTheSinkDoesNotSee) {
  EXPECT_EQ(TokensOf("<script>if (a</b) x = \"</p>\";</script><title>&amp;<a></title >t"),
            (Tokens{"<script>", "<title>", "text t"}));
}

TEST(HtmlTokenizerTest, ReadsTheLinkAttributesOfLinkElementsOnly) {
  EXPECT_EQ(TokensOf("<a HREF=\"/x?a=1&amp;b=2\" href=/second><div href=/no>"),
            (Tokens{"<a> href=/x?a=1&b=2", "<div>"}));
}

TEST(HtmlTokenizerTest, OpensCdataSectionsOnlyInForeignContent) {
  EXPECT_EQ(TokensOf("<![CDATA[<a href=/no>]]>"), (Tokens{"text ]]>"}));
  EXPECT_EQ(TokensOf("<svg><![CDATA[<a href=/no>]]></svg>"), (Tokens{"<svg>", "</svg>"}));
}

TEST(HtmlTokenizerTest, StopsWhenTheSinkOrTheTokenizerGivesUp) {
  std::deque<std::string> storage;
  RecordingSink sink;
  HtmlTokenizer<RecordingSink> frameset("<frameset><a href=/x>", storage, sink);
  EXPECT_FALSE(frameset.Run());
  EXPECT_EQ(sink.tokens, (Tokens{"<frameset>"}));
  EXPECT_EQ(frameset.why(), "");  // the sink's reason, not the tokenizer's

  HtmlTokenizer<RecordingSink> overflow("<a href=\"&#99999999999;\">", storage, sink);
  EXPECT_FALSE(overflow.Run());
  EXPECT_EQ(overflow.why(), "attribute value not decodable with certainty");
}

}  // namespace
}  // namespace crawler::links_internal
