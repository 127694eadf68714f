// SHA-1 digests as WARC writes them: "sha1:" + RFC 4648 base32 (32 letters),
// the form Heritrix, wget and warcio use for WARC-Block/Payload-Digest.
// Thread-safe (one digest context per thread).
#ifndef CRAWLER_SRC_WARC_DIGEST_H_
#define CRAWLER_SRC_WARC_DIGEST_H_

#include <initializer_list>
#include <string>

#include "absl/strings/string_view.h"

namespace crawler::warc_internal {

// sha1 of the concatenation of `pieces`, e.g. {http_headers, body} for a block
// digest without copying the two into one string.
std::string WarcSha1(std::initializer_list<absl::string_view> pieces);

// RFC 4648 base32, upper case, with '=' padding (none for 20-byte input).
std::string Base32(absl::string_view bytes);

}  // namespace crawler::warc_internal

#endif  // CRAWLER_SRC_WARC_DIGEST_H_
