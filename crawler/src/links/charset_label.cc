// ResolveCharsetLabel: a short override table from the WHATWG Encoding
// Standard (labels whose browser meaning differs from ICU's), then ICU's own
// alias table for everything else.
#include "links/charset_label.h"

#include <unicode/ucnv.h>

#include <string>
#include <string_view>

#include "links/ascii.h"

namespace crawler::links_internal {
namespace {

struct Override {
  std::string_view label;
  std::string_view name;
};

// Lower-case labels. Browsers decode latin1/ascii declarations as
// windows-1252 (the declared charsets are subsets, and pages that say latin1
// use the 0x80-0x9F characters); GB2312/EUC-KR as their supersets; UTF-16
// without a BOM as little-endian.
constexpr Override kOverrides[] = {
    {"utf-8", kUtf8},
    {"utf8", kUtf8},
    {"unicode-1-1-utf-8", kUtf8},
    {"x-unicode20utf8", kUtf8},
    {"iso-8859-1", kWindows1252},
    {"iso8859-1", kWindows1252},
    {"iso_8859-1", kWindows1252},
    {"latin1", kWindows1252},
    {"l1", kWindows1252},
    {"us-ascii", kWindows1252},
    {"ascii", kWindows1252},
    {"ansi_x3.4-1968", kWindows1252},
    {"cp1252", kWindows1252},
    {"windows-1252", kWindows1252},
    {"x-cp1252", kWindows1252},
    {"x-user-defined", kWindows1252},
    {"iso-8859-9", "windows-1254"},
    {"latin5", "windows-1254"},
    {"tis-620", "windows-874"},
    {"iso-8859-11", "windows-874"},
    {"gb2312", "GBK"},
    {"x-gbk", "GBK"},
    {"gbk", "GBK"},
    {"euc-kr", "windows-949"},
    {"ks_c_5601-1987", "windows-949"},
    {"shift_jis", "Shift_JIS"},
    {"sjis", "Shift_JIS"},
    {"x-sjis", "Shift_JIS"},
    {"utf-16", "UTF-16LE"},
    {"utf-16le", "UTF-16LE"},
    {"utf-16be", "UTF-16BE"},
};

std::string Lowered(std::string_view label) {
  std::string lowered(label);
  for (char& c : lowered) c = AsciiLower(c);
  return lowered;
}

bool IsUtf16(std::string_view name) { return name.starts_with("UTF-16"); }

// ICU's preferred public name for a converter it knows; empty if it knows none.
std::string IcuName(const std::string& label) {
  UErrorCode error = U_ZERO_ERROR;
  UConverter* converter = ucnv_open(label.c_str(), &error);
  if (U_FAILURE(error) || converter == nullptr) return {};
  const char* internal = ucnv_getName(converter, &error);
  std::string name = label;
  if (U_SUCCESS(error)) {
    UErrorCode standard_error = U_ZERO_ERROR;
    const char* iana = ucnv_getStandardName(internal, "IANA", &standard_error);
    if (U_SUCCESS(standard_error) && iana != nullptr) name = iana;
  }
  ucnv_close(converter);
  return name;
}

}  // namespace

std::string ResolveCharsetLabel(std::string_view label, LabelOrigin origin) {
  const std::string lowered = Lowered(TrimHtmlSpace(label));
  if (lowered.empty() || lowered.size() > 64) return {};
  std::string name;
  for (const Override& entry : kOverrides) {
    if (entry.label == lowered) {
      name = entry.name;
      break;
    }
  }
  if (name.empty()) name = IcuName(lowered);
  if (origin == LabelOrigin::kMeta && (IsUtf16(name) || name.starts_with("UTF-32"))) {
    return std::string(kUtf8);
  }
  return name;
}

}  // namespace crawler::links_internal
