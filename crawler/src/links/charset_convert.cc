// DecodeHtml: the body as UTF-8, converted with ICU only when the bytes are
// not already UTF-8 (or ASCII in an ASCII-compatible charset, which covers
// most pages declared windows-1252 or ISO-8859-x).
#include <unicode/ucnv.h>

#include <climits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "crawler/charset.h"
#include "links/charset_label.h"
#include "links/utf8.h"

namespace crawler {
namespace {

// Closes the converter on every path out.
struct ConverterCloser {
  void operator()(UConverter* converter) const { ucnv_close(converter); }
};
using ConverterPtr = std::unique_ptr<UConverter, ConverterCloser>;

ConverterPtr OpenConverter(const std::string& name) {
  UErrorCode error = U_ZERO_ERROR;
  ConverterPtr converter(ucnv_open(name.c_str(), &error));
  if (U_FAILURE(error)) converter.reset();
  return converter;
}

// Whether ASCII bytes mean ASCII characters in this charset: true for the
// single- and multi-byte table charsets except EBCDIC (checked by decoding
// the printable range); false for stateful ones (ISO-2022, HZ, UTF-7) whose
// escapes are themselves ASCII.
bool IsAsciiCompatible(UConverter* converter) {
  switch (ucnv_getType(converter)) {
    case UCNV_SBCS:
    case UCNV_DBCS:
    case UCNV_MBCS:
    case UCNV_LATIN_1:
    case UCNV_US_ASCII:
      break;
    default:
      return false;
  }
  std::string printable = "\t\n\r";
  for (char c = ' '; c < 0x7F; ++c) printable += c;
  std::string decoded(printable.size() * 3, '\0');
  UErrorCode error = U_ZERO_ERROR;
  const int32_t length =
      ucnv_toAlgorithmic(UCNV_UTF8, converter, decoded.data(), static_cast<int32_t>(decoded.size()),
                         printable.data(), static_cast<int32_t>(printable.size()), &error);
  ucnv_reset(converter);
  return U_SUCCESS(error) && std::string_view(decoded.data(), length) == printable;
}

// ICU conversion to UTF-8; unmappable and malformed bytes become U+FFFD.
// Every source byte yields at most 3 UTF-8 bytes (a BMP character or
// U+FFFD), 4-byte characters come from >= 2 source bytes: 3n is enough, and
// the retry covers any converter for which it is not.
std::string ConvertToUtf8(UConverter* converter, std::string_view bytes) {
  // ICU counts in int32_t; 3n must fit (far above any max_html_bytes).
  bytes = bytes.substr(0, INT32_MAX / 4);
  std::string out(bytes.size() * 3 + 16, '\0');
  for (int attempt = 0; attempt < 2; ++attempt) {
    UErrorCode error = U_ZERO_ERROR;
    const int32_t length =
        ucnv_toAlgorithmic(UCNV_UTF8, converter, out.data(), static_cast<int32_t>(out.size()),
                           bytes.data(), static_cast<int32_t>(bytes.size()), &error);
    ucnv_reset(converter);
    if (error == U_BUFFER_OVERFLOW_ERROR) {
      out.assign(static_cast<size_t>(length) + 1, '\0');
      continue;
    }
    if (U_FAILURE(error)) return {};
    out.resize(static_cast<size_t>(length));
    return out;
  }
  return {};
}

}  // namespace

Utf8Html::Utf8Html(Utf8Html&& other) noexcept { *this = std::move(other); }

Utf8Html& Utf8Html::operator=(Utf8Html&& other) noexcept {
  const bool owned = other.utf8.data() == other.storage.data();
  charset = std::move(other.charset);
  storage = std::move(other.storage);
  utf8 = owned ? std::string_view(storage) : other.utf8;
  other.utf8 = {};
  return *this;
}

Utf8Html DecodeHtml(std::string_view body, std::string_view content_type) {
  SniffedCharset sniffed = SniffHtmlCharset(body, content_type);
  body.remove_prefix(sniffed.bom.size());
  Utf8Html html;
  html.charset = std::move(sniffed.name);
  html.utf8 = body;
  if (html.charset == links_internal::kUtf8) return html;  // Gumbo replaces invalid bytes itself
  ConverterPtr converter = OpenConverter(html.charset);
  if (converter == nullptr) return html;  // cannot happen for a sniffed name; parse as is
  if (links_internal::IsAscii(body) && IsAsciiCompatible(converter.get())) return html;
  html.storage = ConvertToUtf8(converter.get(), body);
  html.utf8 = html.storage;
  return html;
}

}  // namespace crawler
