// ChangeSet: how the generated site changes from one epoch to the next, so a
// recrawl's every count can be checked exactly. A pure function of
// (pages, seed, fractions): epoch 0 is the site as it always was; each later
// epoch edits, removes and adds pages relative to the one before.
//
//   testsite::ChangeSet changes(options);          // SiteOptions
//   EpochChanges e1 = changes.Between(1);          // what epoch 1 changed
//   site->SetEpoch(1);                             // serve epoch 1
//   EXPECT_EQ(recrawl["changed"], e1.edited.size());
//
// The rules, per epoch e >= 1, for each page i of the base site (1 <= i <
// pages) still there at e - 1, one seeded draw u in [0, 1) of (seed, e, i):
//   u < removed_fraction                          -> removed: 404 from e on;
//   removed_fraction <= u < that + changed_fraction -> edited: a new body
//                                                    (its revision goes up).
// Then floor(added_fraction * pages) new pages appear, numbered on from the
// last one (/p/<pages + ...>.html), each linked from the root, so the root is
// edited in every epoch that adds pages. Added pages are never edited or
// removed later, and the root is never removed. Removed pages stay linked
// from their (unedited) parents, as broken links on the web do.
//
// Threading: immutable; every method is safe to call concurrently.
#ifndef TESTSITE_CHANGE_SET_H_
#define TESTSITE_CHANGE_SET_H_

#include <cstdint>
#include <vector>

#include "testsite/site_options.h"

namespace testsite {

// What one epoch changed relative to the one before, page numbers ascending.
struct EpochChanges {
  std::vector<uint64_t> edited;   // there in both, body changed (the root when pages were added)
  std::vector<uint64_t> removed;  // there before, 404 now
  std::vector<uint64_t> added;    // new in this epoch
};

class ChangeSet {
 public:
  explicit ChangeSet(const SiteOptions& options);

  // Page numbers in use at `epoch` (some may be removed): 0 .. Span(epoch)-1.
  uint64_t Span(int epoch) const;
  // Whether page `page` answers 200 at `epoch`.
  bool Exists(uint64_t page, int epoch) const;
  // How many times the page's body changed up to `epoch` (0: as at epoch 0,
  // or as when it appeared). Also its ETag's second part.
  int Revision(uint64_t page, int epoch) const;
  // The last epoch <= `epoch` in which the page appeared or changed; 0 for a
  // base page never edited. Its Last-Modified is a day per epoch after
  // 2020-01-01.
  int LastChange(uint64_t page, int epoch) const;
  // Pages added at or before `epoch`, ascending.
  std::vector<uint64_t> AddedUpTo(int epoch) const;
  // What `epoch` (>= 1) changed relative to epoch - 1.
  EpochChanges Between(int epoch) const;

 private:
  enum class Draw { kKept, kEdited, kRemoved };
  Draw DrawOf(uint64_t page, int epoch) const;  // base pages 1 .. pages-1
  uint64_t AddedPerEpoch() const { return added_per_epoch_; }

  uint64_t pages_;
  uint64_t seed_;
  double changed_fraction_;
  double removed_fraction_;
  uint64_t added_per_epoch_;
};

}  // namespace testsite

#endif  // TESTSITE_CHANGE_SET_H_
