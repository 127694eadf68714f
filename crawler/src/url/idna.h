// IDNA for URL hosts: the WHATWG "domain to ASCII" (UTS #46 ToASCII,
// nontransitional, CheckBidi and CheckJoiners on, CheckHyphens,
// UseSTD3ASCIIRules and VerifyDnsLength off), done by ICU as in Chromium.
// Internal to the url room. Safe to call from any thread.
#ifndef CRAWLER_SRC_URL_IDNA_H_
#define CRAWLER_SRC_URL_IDNA_H_

#include <string>
#include <string_view>

namespace crawler::url_internal {

// Appends the ASCII form of `domain` (UTF-8, already percent-decoded) to
// `out` and returns true, or returns false (out unchanged) when UTS #46
// rejects it or the result is empty.
bool DomainToAscii(std::string_view domain, std::string& out);

}  // namespace crawler::url_internal

#endif  // CRAWLER_SRC_URL_IDNA_H_
