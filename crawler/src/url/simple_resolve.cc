// ResolveSimpleLink: the WHATWG path state, written straight into the
// serialization, for the bytes that need neither percent-encoding nor any
// other state.
#include "url/simple_resolve.h"

#include <array>

namespace crawler::url_internal {
namespace {

// Letters, digits and "-._~/": nothing the path state encodes, and none of
// the bytes that start another state (':', '?', '#', '\\', '%', '@', ...).
constexpr std::array<bool, 256> kSimpleBytes = [] {
  std::array<bool, 256> table{};
  for (int c = 'a'; c <= 'z'; ++c) table[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) table[c] = true;
  for (int c = '0'; c <= '9'; ++c) table[c] = true;
  for (const char c : std::string_view("-._~/")) table[static_cast<unsigned char>(c)] = true;
  return table;
}();

bool IsSimple(std::string_view text) {
  for (const char c : text) {
    if (!kSimpleBytes[static_cast<unsigned char>(c)]) return false;
  }
  return true;
}

// The path state over `out` = origin + "/segment" per segment: each
// '/'-separated piece of `rest` appended, "." dropped, ".." removing the last
// segment; either as the last piece leaves an empty segment (a trailing '/').
void AppendPieces(std::string_view rest, size_t origin_size, std::string& out) {
  size_t at = 0;
  while (true) {
    size_t end = at;
    while (end < rest.size() && rest[end] != '/') ++end;
    const std::string_view piece = rest.substr(at, end - at);
    const bool last = end == rest.size();
    if (piece == "..") {
      if (out.size() > origin_size) out.resize(out.rfind('/'));
      if (last) out.push_back('/');
    } else if (piece == ".") {
      if (last) out.push_back('/');
    } else {
      out.push_back('/');
      out.append(piece);
    }
    if (last) return;
    at = end + 1;
  }
}

}  // namespace

std::optional<std::string> ResolveSimpleLink(const Url& base, std::string_view href) {
  href = href.substr(0, href.find('#'));
  if (!base.IsHttp() || base.has_opaque_path()) return std::nullopt;
  const std::string_view path = base.path();
  // "http://host:port", ending where the path starts.
  const std::string_view origin(base.href().data(), path.data() - base.href().data());
  if (origin.find('@') != std::string_view::npos) return std::nullopt;
  if (href.empty()) {  // "" and "#top": the page itself, query and all
    const std::string& page = base.href();
    return page.substr(0, page.size() - (base.has_fragment() ? base.fragment().size() + 1 : 0));
  }
  // The page's own origin written out ("http://127.0.0.1:8083/a"): a
  // serialized origin parses to itself, so the rest is an absolute path.
  if (href.starts_with(origin) && (href.size() == origin.size() || href[origin.size()] == '/')) {
    href.remove_prefix(origin.size());
    if (href.empty()) href = "/";
  }
  if (!IsSimple(href) || href.starts_with("//")) return std::nullopt;
  std::string out;
  out.reserve(origin.size() + path.size() + href.size() + 1);
  out.append(origin);
  if (href.front() == '/') {
    href.remove_prefix(1);
  } else {
    // The page's directory: its path without the last segment ("/a/b" of
    // "/a/b/c.html"; nothing of "/c.html"). An http path starts with '/'.
    out.append(path.substr(0, path.rfind('/')));
  }
  AppendPieces(href, origin.size(), out);
  return out;
}

}  // namespace crawler::url_internal
