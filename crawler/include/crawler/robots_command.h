// crawler/robots_command.h: `crawl robots`, a robots.txt file checked against
// URLs from the command line, for users writing a robots.txt and for tests.
//
// Example (a shell):
//   $ crawl robots --file robots.txt --agent ExampleBot https://a.example/x https://a.example/y
//   allow	https://a.example/x
//   disallow	https://a.example/y
//   $ printf 'https://a.example/x\n' | crawl robots --file robots.txt --batch
//
// Threading: reentrant; it reads only its arguments, `in` and the file.
#ifndef CRAWLER_ROBOTS_COMMAND_H_
#define CRAWLER_ROBOTS_COMMAND_H_

#include <istream>
#include <ostream>

namespace crawler {

// `argv[0]` is the subcommand's name ("robots"); the options follow:
//   --file PATH   the robots.txt (required; its origin is taken to be each URL's)
//   --agent NAME  the product token or User-Agent (default "crawl")
//   --batch       read URLs from `in`, one per line, instead of the arguments
// Prints "allow<TAB>URL" or "disallow<TAB>URL" per URL on `out`, the URL as
// given. Exit codes: 0 every URL answered; 1 the file is unreadable or some
// URL does not parse (reported on `err`, the others are still answered);
// 2 usage error (message and usage on `err`).
int RunRobotsCommand(int argc, const char* const* argv, std::istream& in, std::ostream& out,
                     std::ostream& err);

}  // namespace crawler

#endif  // CRAWLER_ROBOTS_COMMAND_H_
