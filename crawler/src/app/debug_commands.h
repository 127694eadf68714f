// `crawl url` and `crawl links`: the crawler's link handling, one step at a
// time, for users debugging a crawl and for tests.
#ifndef CRAWLER_APP_DEBUG_COMMANDS_H_
#define CRAWLER_APP_DEBUG_COMMANDS_H_

#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace crawler {

// `crawl url BASE HREF` / `crawl url --batch`. args: the words after "url".
// Exit codes: 0 printed a URL (or ran the batch), 1 the link would not be
// enqueued (reason on `err`), 2 usage.
int UrlCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
               std::ostream& err);

// `crawl links [--base URL] [--ignore-nofollow] [FILE]`; stdin when no FILE.
// Exit codes: 0 done, 1 FILE unreadable, 2 usage (or a base that does not parse).
int LinksCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                 std::ostream& err);

}  // namespace crawler

#endif  // CRAWLER_APP_DEBUG_COMMANDS_H_
