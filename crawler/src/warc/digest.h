// SHA-1 digests as WARC writes them: "sha1:" + RFC 4648 base32 (32 letters),
// the form Heritrix, wget and warcio use for WARC-Block/Payload-Digest.
// Thread-safe (one digest context per thread).
#ifndef CRAWLER_SRC_WARC_DIGEST_H_
#define CRAWLER_SRC_WARC_DIGEST_H_

#include <array>
#include <initializer_list>
#include <string>

#include "absl/strings/string_view.h"

namespace crawler::warc_internal {

// A raw SHA-1: what the revisit table keys on (20 bytes, no text to allocate).
using Sha1Bytes = std::array<unsigned char, 20>;

// sha1 of the concatenation of `pieces`, e.g. {http_headers, body} for a block
// digest without copying the two into one string.
Sha1Bytes Sha1Of(std::initializer_list<absl::string_view> pieces);

// "sha1:" + Base32(digest).
std::string WarcDigestText(const Sha1Bytes& digest);

// WarcDigestText(Sha1Of(pieces)).
std::string WarcSha1(std::initializer_list<absl::string_view> pieces);

// RFC 4648 base32, upper case, with '=' padding (none for 20-byte input).
std::string Base32(absl::string_view bytes);

}  // namespace crawler::warc_internal

#endif  // CRAWLER_SRC_WARC_DIGEST_H_
