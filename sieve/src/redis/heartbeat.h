// The lease heartbeat, for host leases and URL leases.
// - Hosts: a client renews its host leases with each round trip, but a
//   crawler whose buffer is full of one slow host's URLs may make none for
//   longer than host_lease_time; then another process would take the host
//   while this one still fetches it. The heartbeat makes an empty round trip
//   (acks and idle hosts only) whenever none was made for a third of the
//   host lease time (with host_key only).
// - URLs: a URL's lease (lease_time) would run out under a fetch that takes
//   longer, and another process would fetch it too. With renew_url_leases,
//   the heartbeat extends the leases of every URL this client holds each
//   third of lease_time, so a URL stays leased while its process lives; a
//   dead process's leases still expire after lease_time.
//
// Threading: RunHeartbeat runs on its own thread (State::heartbeat) until
// State::stopping; it takes State::mutex for each round trip.
#ifndef SIEVE_SRC_REDIS_HEARTBEAT_H_
#define SIEVE_SRC_REDIS_HEARTBEAT_H_

#include "redis_state.h"

namespace sieve::internal {

void RunHeartbeat(RedisSieve::State& s);

}  // namespace sieve::internal

#endif  // SIEVE_SRC_REDIS_HEARTBEAT_H_
