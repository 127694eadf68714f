#include "testsite/change_set.h"

#include <cmath>

#include "seeded_random.h"

namespace testsite {
namespace {

// The random stream of the change draws (see SeededRandom; 2..4 are text).
constexpr uint64_t kChangeStream = 9;

}  // namespace

ChangeSet::ChangeSet(const SiteOptions& options)
    : pages_(options.pages),
      seed_(options.seed),
      changed_fraction_(options.changed_fraction),
      removed_fraction_(options.removed_fraction),
      added_per_epoch_(static_cast<uint64_t>(
          std::floor(options.added_fraction * static_cast<double>(options.pages)))) {}

ChangeSet::Draw ChangeSet::DrawOf(uint64_t page, int epoch) const {
  SeededRandom random(seed_ ^ (static_cast<uint64_t>(epoch) << 40), page, kChangeStream);
  const double u = static_cast<double>(random.Next() >> 11) * 0x1.0p-53;
  if (u < removed_fraction_) return Draw::kRemoved;
  if (u < removed_fraction_ + changed_fraction_) return Draw::kEdited;
  return Draw::kKept;
}

uint64_t ChangeSet::Span(int epoch) const {
  return pages_ + AddedPerEpoch() * static_cast<uint64_t>(epoch < 0 ? 0 : epoch);
}

bool ChangeSet::Exists(uint64_t page, int epoch) const {
  if (page >= Span(epoch)) return false;
  if (page == 0 || page >= pages_) return true;
  for (int e = 1; e <= epoch; ++e) {
    if (DrawOf(page, e) == Draw::kRemoved) return false;
  }
  return true;
}

int ChangeSet::LastChange(uint64_t page, int epoch) const {
  if (page >= pages_) return static_cast<int>((page - pages_) / AddedPerEpoch()) + 1;
  int last = 0;
  for (int e = 1; e <= epoch; ++e) {
    const Draw draw = page == 0 ? Draw::kKept : DrawOf(page, e);
    if (draw == Draw::kRemoved) break;
    if (draw == Draw::kEdited || (page == 0 && AddedPerEpoch() > 0)) last = e;
  }
  return last;
}

int ChangeSet::Revision(uint64_t page, int epoch) const {
  if (page >= pages_) return 0;
  int revision = 0;
  for (int e = 1; e <= epoch; ++e) {
    const Draw draw = page == 0 ? Draw::kKept : DrawOf(page, e);
    if (draw == Draw::kRemoved) break;
    if (draw == Draw::kEdited || (page == 0 && AddedPerEpoch() > 0)) ++revision;
  }
  return revision;
}

std::vector<uint64_t> ChangeSet::AddedUpTo(int epoch) const {
  std::vector<uint64_t> added;
  for (uint64_t page = pages_; page < Span(epoch); ++page) added.push_back(page);
  return added;
}

EpochChanges ChangeSet::Between(int epoch) const {
  EpochChanges changes;
  if (epoch < 1) return changes;
  if (AddedPerEpoch() > 0) changes.edited.push_back(0);
  for (uint64_t page = 1; page < pages_; ++page) {
    if (!Exists(page, epoch - 1)) continue;
    const Draw draw = DrawOf(page, epoch);
    if (draw == Draw::kRemoved) changes.removed.push_back(page);
    if (draw == Draw::kEdited) changes.edited.push_back(page);
  }
  for (uint64_t page = Span(epoch - 1); page < Span(epoch); ++page) changes.added.push_back(page);
  return changes;
}

}  // namespace testsite
