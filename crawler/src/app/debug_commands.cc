#include "app/debug_commands.h"

#include <fstream>
#include <iterator>
#include <sstream>

#include "crawler/cli.h"
#include "crawler/links.h"
#include "crawler/url.h"

namespace crawler {
namespace {

constexpr char kUrlUsage[] =
    "usage: crawl url BASE HREF\n"
    "       crawl url --batch     (reads BASE<TAB>HREF lines on stdin)\n";
constexpr char kLinksUsage[] =
    "usage: crawl links [--base URL] [--ignore-nofollow] [--parser scanner|gumbo] [FILE]\n";

// What the crawler would enqueue for `href` found on page `base`.
absl::StatusOr<std::string> Resolve(const std::string& base, const std::string& href) {
  absl::StatusOr<Url> base_url = Url::Parse(base);
  if (!base_url.ok()) {
    return absl::InvalidArgumentError("base: " + std::string(base_url.status().message()));
  }
  return ResolveLink(*base_url, href);
}

int UrlBatch(std::istream& in, std::ostream& out) {
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      out << "! no tab: expected BASE<TAB>HREF\n";
      continue;
    }
    absl::StatusOr<std::string> url = Resolve(line.substr(0, tab), line.substr(tab + 1));
    if (url.ok()) {
      out << *url << "\n";
    } else {
      out << "! " << url.status().message() << "\n";
    }
  }
  out.flush();
  return kExitOk;
}

}  // namespace

int UrlCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
               std::ostream& err) {
  if (args.size() == 1 && args[0] == "--batch") return UrlBatch(in, out);
  if (args.size() != 2) {
    err << kUrlUsage;
    return kExitUsageError;
  }
  absl::StatusOr<std::string> url = Resolve(args[0], args[1]);
  if (!url.ok()) {
    err << url.status().message() << "\n";
    return kExitRuntimeError;
  }
  out << *url << "\n";
  return kExitOk;
}

int LinksCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                 std::ostream& err) {
  std::string base;
  std::string file;
  LinkOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--base" && i + 1 < args.size()) {
      base = args[++i];
    } else if (arg.rfind("--base=", 0) == 0) {
      base = arg.substr(7);
    } else if (arg == "--ignore-nofollow") {
      options.honor_nofollow = false;
    } else if (arg == "--parser" && i + 1 < args.size() &&
               ParseLinkParser(args[i + 1], &options.parser)) {
      ++i;
    } else if (arg.rfind("--parser=", 0) == 0 && ParseLinkParser(arg.substr(9), &options.parser)) {
    } else if ((arg.empty() || arg[0] != '-' || arg == "-") && file.empty()) {
      file = arg;
    } else {
      err << kLinksUsage;
      return kExitUsageError;
    }
  }
  std::string html;
  if (file.empty() || file == "-") {
    html.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } else {
    std::ifstream f(file, std::ios::binary);
    if (!f) {
      err << "crawl links: cannot read " << file << "\n";
      return kExitRuntimeError;
    }
    html.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  absl::StatusOr<size_t> unresolved = PrintLinks(html, base, out, options);
  if (!unresolved.ok()) {
    err << "crawl links: --base: " << unresolved.status().message() << "\n";
    return kExitUsageError;
  }
  out.flush();
  if (*unresolved > 0 && base.empty()) {
    // Printing nothing without a word looked like a page without links.
    err << "crawl links: " << *unresolved
        << " links not printed: relative ones resolve only against --base URL (the page's "
           "URL); the others are not http(s)\n";
  }
  return kExitOk;
}

}  // namespace crawler
