#include "scripts.h"

#include <string>

#include "lua_sources.h"

namespace sieve::internal {

namespace {

// The prelude's locals (prelude.lua) come first; FILTER and TAKE PAGE run
// alone (FILTER runs in a filter shard's slot, where the prelude's keys are
// not; TAKE PAGE needs none of them).
std::string WithPrelude(const char* script) { return std::string(lua::kPrelude) + script; }

}  // namespace

std::string PushScript() { return WithPrelude(lua::kPush); }
std::string PopScript() { return WithPrelude(lua::kPop); }
std::string ReleaseScript() { return WithPrelude(lua::kRelease); }
std::string RenewScript() { return WithPrelude(lua::kRenew); }
std::string TakePageScript() { return lua::kTakePage; }
std::string JournalScript() { return WithPrelude(lua::kJournal); }
std::string FilterScript() { return lua::kFilter; }
std::string EnqueueScript() { return WithPrelude(lua::kEnqueue); }
std::string EnqueuePartScript() { return WithPrelude(lua::kEnqueuePart); }

}  // namespace sieve::internal
