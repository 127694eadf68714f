#include "links/text_collapse.h"

#include "links/ascii.h"
#include "links/markup_walk.h"

namespace crawler::links_internal {
namespace {

constexpr size_t kShortestCollapsedRun = 8;

// True if `text` holds a character that is neither HTML whitespace nor NUL
// outside character references ("&...;" and "&#...;" may decode to
// whitespace, so they decide nothing).
bool HasPlainNonSpace(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '&') {
      size_t j = i + 1;
      while (j < text.size() && j - i <= 32 && text[j] != ';' && !IsHtmlSpace(text[j]) &&
             text[j] != '&' && text[j] != '<') {
        ++j;
      }
      if (j < text.size() && text[j] == ';') {
        i = j;  // a reference: skip it
        continue;
      }
      return true;  // a bare '&' is a character like any other
    }
    if (c != '\0' && !IsHtmlSpace(c)) return true;
  }
  return false;
}

void AppendText(std::string_view text, std::string& out) {
  // "]]>" may end a CDATA section the walk did not see open (markup_walk.h).
  if (text.size() >= kShortestCollapsedRun && HasPlainNonSpace(text) &&
      text.find("]]>") == std::string_view::npos) {
    out.push_back('x');
  } else {
    out.append(text);
  }
}

}  // namespace

std::string CollapseText(std::string_view html) {
  std::string out;
  out.reserve(html.size() / 2);
  size_t copied = 0;
  const size_t known = WalkMarkup(html, [&](const MarkupItem& item) {
    AppendText(html.substr(copied, item.begin - copied), out);
    out.append(html.substr(item.begin, item.end - item.begin));
    copied = item.end;
  });
  AppendText(html.substr(copied, known - copied), out);
  out.append(html.substr(known));  // past where the walk was sure: as it is
  return out;
}

}  // namespace crawler::links_internal
