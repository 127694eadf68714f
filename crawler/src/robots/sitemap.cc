// ParseSitemap: gzip detection, bounded inflation and <loc> extraction.
#include "crawler/sitemap.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace crawler {
namespace {

// Abseil 20220623 has its own string_view type.
absl::string_view Absl(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}
std::string_view Std(absl::string_view text) { return std::string_view(text.data(), text.size()); }

bool IsGzip(std::string_view body) {
  return body.size() >= 2 && static_cast<unsigned char>(body[0]) == 0x1f &&
         static_cast<unsigned char>(body[1]) == 0x8b;
}

// Inflates gzip `data` (concatenated members too) up to `cap` bytes.
// `truncated` is set when the cap was reached or the stream ended early.
absl::StatusOr<std::string> Gunzip(std::string_view data, size_t cap, bool* truncated) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 16) != Z_OK) return absl::InternalError("inflateInit2 failed");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(std::min<size_t>(data.size(), UINT32_MAX));
  std::string out;
  char chunk[64 * 1024];
  int result = Z_OK;
  while (out.size() < cap) {
    stream.next_out = reinterpret_cast<Bytef*>(chunk);
    stream.avail_out = sizeof(chunk);
    result = inflate(&stream, Z_NO_FLUSH);
    out.append(chunk, sizeof(chunk) - stream.avail_out);
    if (result == Z_STREAM_END && stream.avail_in > 0 &&
        IsGzip({reinterpret_cast<const char*>(stream.next_in), stream.avail_in})) {
      inflateReset(&stream);  // another gzip member follows
      continue;
    }
    if (result != Z_OK) break;
    if (stream.avail_in == 0 && stream.avail_out != 0) break;  // input ended mid-stream
  }
  inflateEnd(&stream);
  if (out.size() >= cap) {
    out.resize(cap);
    *truncated = true;
  } else if (result != Z_STREAM_END) {
    if (out.empty()) return absl::InvalidArgumentError("sitemap: corrupt gzip data");
    *truncated = true;  // keep what inflated before the damage
  }
  return out;
}

// Decodes the predefined entities and numeric references of XML text; an
// unknown entity is kept as written.
std::string DecodeEntities(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const size_t semi = text[i] == '&' ? text.find(';', i) : std::string_view::npos;
    if (semi == std::string_view::npos || semi - i > 10) {
      out.push_back(text[i]);
      continue;
    }
    const std::string_view name = text.substr(i + 1, semi - i - 1);
    uint32_t code = 0;
    if (name == "amp")
      out.push_back('&');
    else if (name == "lt")
      out.push_back('<');
    else if (name == "gt")
      out.push_back('>');
    else if (name == "quot")
      out.push_back('"');
    else if (name == "apos")
      out.push_back('\'');
    else if (name.size() > 2 && (name[1] == 'x' || name[1] == 'X') && name[0] == '#' &&
             absl::SimpleHexAtoi(Absl(name.substr(2)), &code) && code > 0 && code < 0x80)
      out.push_back(static_cast<char>(code));
    else if (name.size() > 1 && name[0] == '#' && absl::SimpleAtoi(Absl(name.substr(1)), &code) &&
             code > 0 && code < 0x80)
      out.push_back(static_cast<char>(code));
    else {
      out.push_back(text[i]);  // not ours to decode: keep "&name;" as is
      continue;
    }
    i = semi;
  }
  return out;
}

// The text of a <loc> element: CDATA unwrapped, entities decoded, trimmed.
std::string LocText(std::string_view raw) {
  raw = Std(absl::StripAsciiWhitespace(Absl(raw)));
  constexpr std::string_view kOpen = "<![CDATA[";
  if (raw.substr(0, kOpen.size()) == kOpen && raw.size() >= kOpen.size() + 3 &&
      raw.substr(raw.size() - 3) == "]]>") {
    return std::string(
        absl::StripAsciiWhitespace(Absl(raw.substr(kOpen.size(), raw.size() - kOpen.size() - 3))));
  }
  return DecodeEntities(raw);
}

// The local name of the first element (after the prolog, comments and
// doctype): "urlset", "sitemapindex", "html"... or "" when there is none.
std::string RootElement(std::string_view xml) {
  size_t at = 0;
  while ((at = xml.find('<', at)) != std::string_view::npos) {
    if (at + 1 < xml.size() && (xml[at + 1] == '?' || xml[at + 1] == '!')) {
      ++at;
      continue;
    }
    const size_t end = xml.find_first_of(" \t\r\n>/", at + 1);
    std::string_view name = xml.substr(at + 1, end == std::string_view::npos ? 0 : end - at - 1);
    const size_t colon = name.find(':');
    if (colon != std::string_view::npos) name = name.substr(colon + 1);
    return std::string(name);
  }
  return "";
}

// Appends every <loc> (or <prefix:loc>) text to `out`, at most `max` entries.
bool ExtractLocs(std::string_view xml, size_t max, std::vector<std::string>* out) {
  size_t at = 0;
  while ((at = xml.find("loc>", at)) != std::string_view::npos) {
    const size_t open = xml.rfind('<', at);
    const bool is_open_tag = open != std::string_view::npos && open + 1 < xml.size() &&
                             xml[open + 1] != '/' && (open + 1 == at || xml[at - 1] == ':');
    at += 4;
    if (!is_open_tag) continue;
    const size_t close = xml.find("</", at);
    if (close == std::string_view::npos) break;  // the file was cut in the middle
    if (out->size() >= max) return true;
    std::string loc = LocText(xml.substr(at, close - at));
    if (!loc.empty()) out->push_back(std::move(loc));
    at = close;
  }
  return false;
}

}  // namespace

absl::StatusOr<Sitemap> ParseSitemap(std::string_view body, const SitemapLimits& limits) {
  Sitemap map;
  std::string inflated;
  std::string_view xml = body;
  if (IsGzip(body)) {
    map.gzipped = true;
    absl::StatusOr<std::string> plain = Gunzip(body, limits.max_decoded_bytes, &map.truncated);
    if (!plain.ok()) return plain.status();
    inflated = std::move(*plain);
    xml = inflated;
  } else if (xml.size() > limits.max_decoded_bytes) {
    xml = xml.substr(0, limits.max_decoded_bytes);
    map.truncated = true;
  }
  const std::string root = RootElement(xml);
  std::vector<std::string>* into = nullptr;
  if (root == "urlset") into = &map.urls;
  if (root == "sitemapindex") into = &map.sitemaps;
  if (into == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("sitemap: root element is '", root, "', not urlset or sitemapindex"));
  }
  if (ExtractLocs(xml, limits.max_urls, into)) map.truncated = true;
  return map;
}

}  // namespace crawler
