// The host-lease heartbeat: a client renews its host leases with each round
// trip, but a crawler whose buffer is full of one slow host's URLs may make
// none for longer than host_lease_time; then another process would take the
// host while this one still fetches it. The heartbeat makes an empty round
// trip (acks and idle hosts only) whenever none was made for a third of the
// host lease time.
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
