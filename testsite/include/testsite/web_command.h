// The `testsite --hosts N ...` mode: serves the simulated web of many loopback
// hosts (testsite/simulated_web.h) until SIGINT or SIGTERM.
//
//   testsite --hosts 1e6 --largest-host 1e8 --zipf 1.2 --links-per-page 100
//
// Prints "serving <hosts> hosts (<pages> pages) at http://127.1.0.0:PORT/ ..."
// on stdout once it accepts connections, then "first request at <unix time>"
// when the first request arrives, and a counts line on SIGUSR1 and at exit.
// Threading: call from main, once; it blocks SIGINT, SIGTERM and SIGUSR1.
#ifndef TESTSITE_WEB_COMMAND_H_
#define TESTSITE_WEB_COMMAND_H_

#include <string_view>
#include <vector>

namespace testsite {

// True when `args` ask for the web mode (a --hosts flag).
bool IsWebCommand(const std::vector<std::string_view>& args);
// Runs it; returns the exit code: 0 stopped by a signal, 1 cannot serve,
// 2 bad flags (the message names the flag).
int RunWebCommand(const std::vector<std::string_view>& args);

}  // namespace testsite

#endif  // TESTSITE_WEB_COMMAND_H_
