// Emit: hands a message to a Sieve's LogSink, or to the default sink when the
// embedder set none (sieve/log.h).
#ifndef SIEVE_SRC_LOG_EMIT_H_
#define SIEVE_SRC_LOG_EMIT_H_

#include <string_view>

#include "sieve/log.h"

namespace sieve::internal {

inline void Emit(const LogSink& sink, LogLevel level, std::string_view message) {
  if (sink) {
    sink(level, message);
  } else {
    StderrLogSink(level, message);
  }
}

}  // namespace sieve::internal

#endif  // SIEVE_SRC_LOG_EMIT_H_
