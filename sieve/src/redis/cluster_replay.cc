// A survivor finishes a dead client's push trip on a Redis Cluster, from
// the journal record the pop script claimed for it (lua/pop.lua and
// JOURNAL; docs/redis.md, "What a crash costs").
#include <hiredis/hiredis.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../log_emit.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "queue_element.h"
#include "round_trips.h"

namespace sieve::internal {
namespace {

// A journal older than this may have outlived its trip's filter records
// (kTripRecordLife, in another node's clock): replayed as all new. The
// margin covers the nodes' clocks differing.
constexpr std::chrono::milliseconds kRecordTrustedFor = kTripRecordLife - std::chrono::minutes(10);

std::string_view ElementText(const redisReply* r) {
  return r->type == REDIS_REPLY_STRING ? std::string_view(r->str, r->len) : std::string_view();
}

bool ElementNumber(const redisReply* r, long long* out) {
  const std::string_view text = ElementText(r);
  return absl::SimpleAtoi(absl::string_view(text.data(), text.size()), out);
}

}  // namespace

void ReplayClaimedJournal(State& s, const redisReply* claimed) {
  // {client, time now, trip id, time written, element, host, ...}
  if (claimed->type != REDIS_REPLY_ARRAY || claimed->elements < 4 || claimed->elements % 2 != 0) {
    return;
  }
  const std::string owner(ElementText(claimed->element[0]));
  const std::string trip(ElementText(claimed->element[2]));
  long long now = 0;
  long long written = 0;
  if (!ElementNumber(claimed->element[1], &now) || !ElementNumber(claimed->element[3], &written)) {
    return Fail(s, absl::InternalError("pop script: a claimed journal without its times"));
  }
  std::vector<std::string_view> urls;
  std::vector<std::string_view> elements;
  std::vector<std::string_view> hosts;
  for (size_t i = 4; i < claimed->elements; i += 2) {
    elements.push_back(ElementText(claimed->element[i]));
    hosts.push_back(ElementText(claimed->element[i + 1]));
    urls.push_back(UrlOfQueueElement(elements.back()));
  }
  const bool trusted = now - written < kRecordTrustedFor.count();
  std::string flags;  // no URL: the record only needs deleting
  if (!urls.empty()) {
    std::optional<std::string> answer =
        ClusterFilterStep(s, owner, trip, trusted ? "replay" : "all", urls);
    if (!answer.has_value()) return;  // failed
    if (answer->empty()) return;      // its client finished the trip itself
    flags = *std::move(answer);
  }
  if (!ClusterEnqueueStep(s, owner, trip, flags, elements, hosts)) return;
  Emit(s.options.log_sink, LogLevel::kInfo,
       absl::StrCat("redis sieve '", s.options.name, "': finished push trip ", trip, " of client ",
                    owner, " (gone ", (now - written) / 1000,
                    " s): ", std::count(flags.begin(), flags.end(), '1'), " of ", urls.size(),
                    " URLs new", trusted ? "" : " (journal too old to trust: all taken as new)"));
}

}  // namespace sieve::internal
