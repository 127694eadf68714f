// Character references in attribute values, decoded exactly as Gumbo 0.10.1
// decodes them (the HTML Standard's rules of its time): the full named table
// (named_char_refs.inc), the "historical" rule that a named reference
// without ';' followed by '=' or an alphanumeric stays as written, numeric
// references with the windows-1252 replacements for 0x80-0x9F, and U+FFFD
// for 0, surrogates and code points above 0x10FFFF.
//
// Threading: pure functions over immutable tables.
#ifndef CRAWLER_SRC_LINKS_CHAR_REFS_H_
#define CRAWLER_SRC_LINKS_CHAR_REFS_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace crawler::links_internal {

enum class CharRefResult {
  kDecoded,  // the reference was replaced by its characters
  kLiteral,  // not a reference: '&' was appended and only it consumed
  kUnsure,   // a numeric reference too big for Gumbo's int (it overflows)
};

// `text` holds an attribute value from its '&' at `*pos` (the value's end is
// the end of `text`, or `text[end]` is the value's terminator); `allowed` is
// the character that makes '&' literal (the quote, or '>' when unquoted).
// Appends the decoded characters (or '&') to `out` and advances `*pos` past
// what it consumed. Example: "&amp;x" -> "&", pos 5; "&ampx=" -> "&", pos 1.
CharRefResult AppendAttributeCharRef(std::string_view text, size_t* pos, char allowed,
                                     std::string* out);

// Appends code point `cp` as UTF-8.
void AppendUtf8(char32_t cp, std::string* out);

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_CHAR_REFS_H_
