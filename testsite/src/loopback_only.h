// Restricting a listening IPv4 socket bound to INADDR_ANY to loopback traffic,
// so one socket serves every 127.x.y.z address and nothing reachable from
// outside the machine (SimulatedWeb).
// Threading: pure functions on a socket the caller owns.
#ifndef TESTSITE_SRC_LOOPBACK_ONLY_H_
#define TESTSITE_SRC_LOOPBACK_ONLY_H_

#include "absl/status/status.h"

namespace testsite {

// Before bind(): SO_BINDTODEVICE "lo" (packets from other machines never reach
// the socket), then a classic BPF socket filter that drops every packet whose
// IPv4 destination is outside 127.0.0.0/8: a second guard for the machine's
// own external address, which travels over "lo" (Linux 6.18 already refuses
// it for the device binding alone; the filter drops it on any kernel).
// Unprivileged since Linux 5.7. An error names the option refused.
absl::Status RestrictToLoopback(int fd);

}  // namespace testsite

#endif  // TESTSITE_SRC_LOOPBACK_ONLY_H_
