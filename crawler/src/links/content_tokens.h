// ForEachContentToken: the page as the duplicate-content fingerprint reads it
// (crawler/page_fingerprint.h says what is kept and why): tag names,
// attribute names and words, each as a 64-bit hash, attribute values and
// comments left out, long words holding a digit folded into one placeholder.
// A lenient forward walk, not the HTML tokenizer: it never fails and reads
// every copy of a page the same way, which is all a fingerprint needs.
//
// Threading: a pure function.
#ifndef CRAWLER_SRC_LINKS_CONTENT_TOKENS_H_
#define CRAWLER_SRC_LINKS_CONTENT_TOKENS_H_

#include <cstdint>
#include <string_view>

#include "absl/functional/function_ref.h"

namespace crawler::links_internal {

// Calls `on_token` with the hash of each token of `html`, in order. Hashes of
// a start tag's name, an end tag's name, an attribute name and a word of the
// same letters differ ("<p", "</p", "p=" and "p" are four tokens).
void ForEachContentToken(std::string_view html, absl::FunctionRef<void(uint64_t)> on_token);

// Whether a word (letters, digits, bytes >= 0x80) reads as a random id: 8 or
// more bytes with a digit among them ("9f3a1c2b4d5e6f70", "1796000000").
bool LooksLikeId(std::string_view word);

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_CONTENT_TOKENS_H_
