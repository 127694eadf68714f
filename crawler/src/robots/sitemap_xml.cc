// SitemapXml: expat's element events to the <loc> values of a sitemap.
#include "robots/sitemap_xml.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace crawler::robots_internal {
namespace {

// expat's namespace mode joins a namespace and a local name with this; no
// local name contains a space, so the last one splits them.
constexpr char kNamespaceSeparator = ' ';

struct XmlName {
  std::string_view space;  // "" for no namespace
  std::string_view local;
};

XmlName SplitXmlName(std::string_view name) {
  const size_t at = name.rfind(kNamespaceSeparator);
  if (at == std::string_view::npos) return {{}, name};
  return {name.substr(0, at), name.substr(at + 1)};
}

std::string TrimmedLoc(std::string_view text) {
  const absl::string_view trimmed =
      absl::StripAsciiWhitespace(absl::string_view(text.data(), text.size()));
  return std::string(trimmed.data(), trimmed.size());
}

}  // namespace

SitemapXml::SitemapXml(size_t max_urls, Sitemap* out)
    : parser_(XML_ParserCreateNS(nullptr, kNamespaceSeparator)), out_(out), max_urls_(max_urls) {
  XML_SetUserData(parser_, this);
  XML_SetElementHandler(parser_, &SitemapXml::OnStart, &SitemapXml::OnEnd);
  XML_SetCharacterDataHandler(parser_, &SitemapXml::OnText);
  XML_SetEntityDeclHandler(parser_, &SitemapXml::OnEntityDecl);
}

SitemapXml::~SitemapXml() { XML_ParserFree(parser_); }

bool SitemapXml::Feed(std::string_view bytes, bool last) {
  if (parser_ == nullptr) {
    xml_error_ = true;
    error_ = "expat could not allocate a parser";
    return false;
  }
  // XML_Parse takes an int length: large inputs go in slices.
  constexpr size_t kSlice = size_t{1} << 30;
  do {
    if (xml_error_ || !stopped_.empty()) return false;
    const std::string_view slice = bytes.substr(0, std::min(bytes.size(), kSlice));
    bytes.remove_prefix(slice.size());
    const bool final_slice = last && bytes.empty();
    if (XML_Parse(parser_, slice.data(), static_cast<int>(slice.size()), final_slice) ==
        XML_STATUS_OK) {
      continue;
    }
    const XML_Error code = XML_GetErrorCode(parser_);
    if (code == XML_ERROR_ABORTED) return false;  // Stop() said why
    xml_error_ = true;
    error_ = absl::StrCat(XML_ErrorString(code), " at line ", XML_GetCurrentLineNumber(parser_),
                          " column ", XML_GetCurrentColumnNumber(parser_));
    return false;
  } while (!bytes.empty());
  return xml_error_ == false && stopped_.empty();
}

absl::Status SitemapXml::Finish() {
  if (!have_root_) {
    if (!root_name_.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("sitemap: root element is '", root_name_, "', not urlset or sitemapindex"));
    }
    if (!stopped_.empty()) return absl::InvalidArgumentError(absl::StrCat("sitemap: ", stopped_));
    return absl::InvalidArgumentError(
        absl::StrCat("sitemap: not XML: ", xml_error_ ? error_ : "no root element"));
  }
  if (xml_error_) out_->truncated = true;  // read up to the damage
  return absl::OkStatus();
}

void SitemapXml::OnStart(void* self, const XML_Char* name, const XML_Char**) {
  static_cast<SitemapXml*>(self)->Start(name);
}

void SitemapXml::OnEnd(void* self, const XML_Char*) { static_cast<SitemapXml*>(self)->End(); }

void SitemapXml::OnText(void* self, const XML_Char* text, int length) {
  auto* reader = static_cast<SitemapXml*>(self);
  if (reader->depth_ != 3) return;  // a child element's text is not the value
  if (reader->in_priority_) {
    // A priority is a few bytes ("0.8"); a longer text is not one.
    if (reader->priority_.size() + static_cast<size_t>(length) <= kMaxPriorityBytes) {
      reader->priority_.append(text, static_cast<size_t>(length));
    } else {
      reader->priority_ = "x";  // unparsable: the default
    }
    return;
  }
  if (!reader->in_loc_ || reader->loc_too_long_) return;
  if (reader->loc_.size() + static_cast<size_t>(length) > kMaxLocBytes) {
    reader->loc_too_long_ = true;
    return;
  }
  reader->loc_.append(text, static_cast<size_t>(length));
}

void SitemapXml::OnEntityDecl(void* self, const XML_Char*, int, const XML_Char*, int,
                              const XML_Char*, const XML_Char*, const XML_Char*, const XML_Char*) {
  static_cast<SitemapXml*>(self)->Stop("entity declarations are refused (a sitemap needs none)");
}

void SitemapXml::Start(std::string_view name) {
  ++depth_;
  const XmlName xml_name = SplitXmlName(name);
  if (depth_ == 1) {
    root_name_ = std::string(xml_name.local);
    if (xml_name.local != "urlset" && xml_name.local != "sitemapindex") {
      Stop("not a sitemap");
      return;
    }
    have_root_ = true;
    namespace_ = std::string(xml_name.space);
    return;
  }
  if (xml_name.space != namespace_) return;  // <image:image>, <xhtml:link>, <video:...>
  const bool urlset = root_name_ == "urlset";
  if (depth_ == 2 && xml_name.local == (urlset ? "url" : "sitemap")) {
    entry_depth_ = 2;
    entry_has_url_ = false;
    entry_priority_ = kDefaultPriority;
  }
  if (depth_ != 3 || entry_depth_ != 2) return;
  if (xml_name.local == "loc") {
    in_loc_ = true;
    loc_too_long_ = false;
    loc_.clear();
  } else if (urlset && xml_name.local == "priority") {
    in_priority_ = true;
    priority_.clear();
  }
}

void SitemapXml::End() {
  if (depth_ == 3 && in_loc_) EndLoc();
  if (depth_ == 3 && in_priority_) EndPriority();
  if (depth_ == 2) entry_depth_ = 0;
  --depth_;
}

void SitemapXml::EndLoc() {
  in_loc_ = false;
  std::string loc = TrimmedLoc(loc_);
  const bool urlset = root_name_ == "urlset";
  std::vector<std::string>* into = urlset ? &out_->urls : &out_->sitemaps;
  if (loc.empty() || loc_too_long_) return;
  if (into->size() >= max_urls_) {
    out_->truncated = true;
    Stop("URL cap reached");
    return;
  }
  into->push_back(std::move(loc));
  if (!urlset) return;
  // The <priority> may come before or after the <loc>: whichever is read
  // second completes the entry.
  out_->priorities.push_back(entry_priority_);
  entry_has_url_ = true;
}

void SitemapXml::EndPriority() {
  in_priority_ = false;
  double value = 0;
  const std::string text = TrimmedLoc(priority_);
  if (!absl::SimpleAtod(text, &value) || !(value >= 0.0 && value <= 1.0)) {
    value = kDefaultPriority;
  }
  entry_priority_ = value;
  if (entry_has_url_) out_->priorities.back() = value;
}

void SitemapXml::Stop(std::string reason) {
  if (!stopped_.empty()) return;
  stopped_ = std::move(reason);
  XML_StopParser(parser_, XML_FALSE);
}

}  // namespace crawler::robots_internal
