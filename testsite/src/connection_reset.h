// ResetConnection: makes the server's side of one accepted TCP connection end
// with an RST instead of a FIN, from inside a cpp-httplib handler, which never
// sees its socket. The connection is found by its two endpoints among the
// process's sockets; the descriptor is then swapped (dup2) for a fresh,
// unconnected socket, so the old connection's last reference closes at once
// with SO_LINGER 0 (RST), while cpp-httplib's later shutdown() and close() of
// that number act harmlessly on the fresh socket.
//
//   ResetConnection(request.local_addr, request.local_port,
//                   request.remote_addr, request.remote_port);
//
// Threading: safe to call concurrently; it touches only the one descriptor.
#ifndef TESTSITE_SRC_CONNECTION_RESET_H_
#define TESTSITE_SRC_CONNECTION_RESET_H_

#include <string>

namespace testsite {

// False when no such connection is open in this process (IPv4 only).
bool ResetConnection(const std::string& local_addr, int local_port, const std::string& remote_addr,
                     int remote_port);

}  // namespace testsite

#endif  // TESTSITE_SRC_CONNECTION_RESET_H_
