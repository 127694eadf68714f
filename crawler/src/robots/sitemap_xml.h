// SitemapXml: a streaming sitemap reader on expat. Bytes go in as they arrive
// (Feed), the <loc> values come out in a Sitemap; the document is never held
// whole.
//
// What counts (sitemaps.org 0.9): the root element is <urlset> or
// <sitemapindex>, in whatever namespace it declares (the sitemaps.org one,
// Google's old 0.84, or none); a <loc> counts only as <urlset><url><loc> or
// <sitemapindex><sitemap><loc>, each element in the ROOT's namespace. So
// <image:loc>, <video:content_loc>, a <loc> elsewhere in the tree and a <loc>
// inside a comment are not URLs. Text is expat's: CDATA unwrapped, entities
// and character references decoded; surrounding whitespace is trimmed.
//
// Refused: entity declarations (<!ENTITY ...> in a DOCTYPE): a sitemap has no
// use for them, and refusing them closes the entity-expansion bombs
// ("billion laughs") whatever expat's own guard allows. External entities are
// never loaded (expat does not without a handler).
//
//   SitemapXml reader(limits.max_urls, &map);
//   while (more) if (!reader.Feed(chunk, /*last=*/false)) break;
//   reader.Feed({}, /*last=*/true);
//   absl::Status status = reader.Finish();
//
// Threading: one reader per document, used by one thread.
#ifndef CRAWLER_SRC_ROBOTS_SITEMAP_XML_H_
#define CRAWLER_SRC_ROBOTS_SITEMAP_XML_H_

#include <expat.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "crawler/sitemap.h"

namespace crawler::robots_internal {

class SitemapXml {
 public:
  // `out` must outlive the reader; its urls or sitemaps receive the <loc>
  // values (at most `max_urls`; one more sets out->truncated and stops).
  SitemapXml(size_t max_urls, Sitemap* out);
  ~SitemapXml();
  SitemapXml(const SitemapXml&) = delete;
  SitemapXml& operator=(const SitemapXml&) = delete;

  // Parses the next bytes; `last` says the document ends with them. False
  // once reading stopped (an XML error, not a sitemap, the URL cap): feeding
  // more is then useless.
  bool Feed(std::string_view bytes, bool last);

  // OK when the root was <urlset> or <sitemapindex>. An XML error AFTER the
  // root keeps what was read before it and sets out->truncated (a cut or
  // damaged file). InvalidArgument when there is no sitemap root: an HTML
  // page, plain text, garbage, an XML error before the root, or an empty body.
  absl::Status Finish();

  // The longest <loc> text kept (bytes); a longer one is skipped. Far above
  // any URL the crawl would queue (--max-url-length is at most 1 MiB).
  static constexpr size_t kMaxLocBytes = size_t{1} << 20;
  // The longest <priority> text read as a number; longer is the default.
  static constexpr size_t kMaxPriorityBytes = 32;
  // sitemaps.org's default <priority>.
  static constexpr double kDefaultPriority = 0.5;

 private:
  static void OnStart(void* self, const XML_Char* name, const XML_Char** attributes);
  static void OnEnd(void* self, const XML_Char* name);
  static void OnText(void* self, const XML_Char* text, int length);
  static void OnEntityDecl(void* self, const XML_Char* name, int is_parameter,
                           const XML_Char* value, int value_length, const XML_Char* base,
                           const XML_Char* system_id, const XML_Char* public_id,
                           const XML_Char* notation);
  void Start(std::string_view name);
  void End();
  void EndLoc();
  void EndPriority();
  void Stop(std::string reason);

  XML_Parser parser_;
  Sitemap* const out_;
  const size_t max_urls_;
  int depth_ = 0;                // elements open now
  bool have_root_ = false;       // the root was urlset or sitemapindex
  std::string root_name_;        // the root's local name, for the error message
  std::string namespace_;        // the root's namespace ("" = none)
  int entry_depth_ = 0;          // 2 while inside <url>/<sitemap> at depth 2, else 0
  bool in_loc_ = false;          // inside a counted <loc>
  bool in_priority_ = false;     // inside a <url>'s <priority>
  std::string priority_;         // its text so far (a few bytes are kept)
  bool entry_has_url_ = false;   // this <url>'s <loc> is already in out_->urls
  double entry_priority_ = 0.5;  // this <url>'s <priority>, once read
  bool loc_too_long_ = false;
  std::string loc_;         // the current <loc>'s text so far
  std::string stopped_;     // why reading stopped early; empty while it goes on
  bool xml_error_ = false;  // expat reported a well-formedness error
  std::string error_;       // expat's message with line and column
};

}  // namespace crawler::robots_internal

#endif  // CRAWLER_SRC_ROBOTS_SITEMAP_XML_H_
