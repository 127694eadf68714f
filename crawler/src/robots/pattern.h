// Canonical octets for robots.txt matching (RFC 9309 2.2.2 and 2.2.3), shared
// by rule patterns and request targets so both sides compare the same way.
//
// Canonical form: unreserved (ALPHA DIGIT - . _ ~) and reserved (RFC 3986
// gen-delims and sub-delims) characters stand as themselves; a %XX escape of
// an unreserved character is decoded (RFC 9309: "%7E" is "~"); %2A and %24
// are decoded to a literal '*' and '$' (RFC 9309 figure 6); every other escape
// keeps upper-case hex; every other octet (non-ASCII, controls, space, '"',
// '<', '^', a '%' that starts no escape ...) is percent-encoded as UTF-8
// octets. Compiled patterns mark the wildcard '*' and the end anchor '$' with
// the bytes kWildcard and kEndAnchor, which canonical text never contains.
#ifndef CRAWLER_SRC_ROBOTS_PATTERN_H_
#define CRAWLER_SRC_ROBOTS_PATTERN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace crawler::robots_internal {

inline constexpr char kWildcard = '\x01';
inline constexpr char kEndAnchor = '\x02';

// The canonical form of a request target (path + "?query"). Returns `target`
// itself when it is already canonical (the common case, no allocation);
// otherwise writes into `*scratch` and returns a view of it.
std::string_view CanonicalTarget(std::string_view target, std::string* scratch);

// A rule value compiled for PatternMatches, or nullopt when it is no valid
// path-pattern (empty, or starting with neither '/' nor '*').
std::optional<std::string> CompilePattern(std::string_view value);

// True if the compiled `pattern` matches a prefix of the canonical `target`
// (all of it when the pattern ends with kEndAnchor). Greedy leftmost matching
// of the literal pieces between wildcards is exact for patterns whose only
// operator is '*': O(|pattern| * |target|) at worst, one memcmp in the usual
// wildcard-free case.
bool PatternMatches(std::string_view pattern, std::string_view target);

}  // namespace crawler::robots_internal

#endif  // CRAWLER_SRC_ROBOTS_PATTERN_H_
