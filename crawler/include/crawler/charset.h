// Charset detection and conversion for HTML bodies: Gumbo parses only UTF-8,
// so a page in another encoding is converted first. A simplified form of the
// HTML standard's encoding sniffing algorithm (section 13.2.3.2):
//   1. a byte order mark (UTF-8, UTF-16LE/BE) wins;
//   2. the charset parameter of the Content-Type header;
//   3. <meta charset=...> or <meta http-equiv=content-type content=...;charset=...>
//      in the first 1024 bytes (the standard's prescan, comments skipped);
//   4. no declaration: UTF-8 if the bytes are valid UTF-8, else windows-1252.
// A label ICU does not know is ignored (next step). As in browsers, the
// labels iso-8859-1, latin1 and us-ascii mean windows-1252, and a <meta>
// claiming UTF-16 means UTF-8.
//
// Conversion never fails: bytes invalid in the source charset become U+FFFD.
// A UTF-8 body, or an ASCII-only body in an ASCII-compatible charset, is not
// copied: the result views the input.
//
// Example:
//   crawler::Utf8Html html = crawler::DecodeHtml(body, "text/html; charset=Shift_JIS");
//   Parse(html.utf8);  // valid as long as `html` and `body` live
//
// Threading: thread-compatible, no shared state; call from any thread.
#ifndef CRAWLER_CHARSET_H_
#define CRAWLER_CHARSET_H_

#include <string>
#include <string_view>

namespace crawler {

// The charset a body declares or implies, by the steps above.
struct SniffedCharset {
  std::string name;      // canonical name, "UTF-8", "windows-1252", "Shift_JIS"...
  std::string_view bom;  // the byte order mark at the start of the body, if any
};
SniffedCharset SniffHtmlCharset(std::string_view body, std::string_view content_type);

// The charset parameter of a Content-Type value ("text/html; charset=utf-8"
// -> "utf-8"), quotes removed; empty if absent.
std::string_view ContentTypeCharset(std::string_view content_type);

// Step 3 alone: the charset label declared by a <meta> in the first 1024
// bytes, as written; empty if none.
std::string_view PrescanMetaCharset(std::string_view body);

// The body as UTF-8. `utf8` views either the input body or `storage`.
// Moving a Utf8Html keeps `utf8` valid (it is re-pointed); copying is deleted.
struct Utf8Html {
  std::string charset;    // what the body was decoded from
  std::string_view utf8;  // without the BOM
  std::string storage;    // the converted text, when a conversion was needed

  Utf8Html() = default;
  Utf8Html(Utf8Html&& other) noexcept;
  Utf8Html& operator=(Utf8Html&& other) noexcept;
  Utf8Html(const Utf8Html&) = delete;
  Utf8Html& operator=(const Utf8Html&) = delete;
};
Utf8Html DecodeHtml(std::string_view body, std::string_view content_type);

}  // namespace crawler

#endif  // CRAWLER_CHARSET_H_
