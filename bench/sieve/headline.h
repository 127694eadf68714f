// The headline at its real size: one Sieve taking N distinct URLs spread
// over a few priority lanes, with its queue spilling and a checkpoint taken
// every so often, then drained. Measured, not extrapolated: peak RSS, queue
// RAM and disk per URL at the peak, push and pop rates per phase, and every
// checkpoint's time and bytes (written anew, and linked from the spill).
//
//   build/bin/sieve-bench --headline --urls 1e9 --headline_lanes 16
//                         --checkpoint_every 1e8 --spill_dir /var/tmp
//
// Push: PushBatch of 4,096 generated URLs (url_generator.h), priority i mod
// lanes; pop: TryPopEntry + MarkDone, as a crawler's fetchers do. A
// checkpoint is Save into <spill_dir>/sieve-headline-checkpoint, replacing
// the one before, as `crawl` does; bytes written are the new files with one
// link, linked ones are spill files the checkpoint shares (docs/sieve.md,
// "Checkpoint layout").
//
// Threading: one thread; the Sieve's spill writer runs beside it.
#ifndef BENCH_SIEVE_HEADLINE_H_
#define BENCH_SIEVE_HEADLINE_H_

#include <cstdint>
#include <filesystem>

#include "sieve/sieve.h"

namespace sieve_bench {

struct HeadlineOptions {
  uint64_t urls = 0;
  int lanes = 16;
  uint64_t checkpoint_every = 0;  // URLs pushed (then popped) between checkpoints; 0: none
  std::filesystem::path checkpoint_dir;
};

// Runs the headline on a Sieve made with `sieve_options` and prints its
// tables; false (with a message on stderr) if the Sieve fails.
bool RunHeadline(const sieve::SieveOptions& sieve_options, const HeadlineOptions& options);

}  // namespace sieve_bench

#endif  // BENCH_SIEVE_HEADLINE_H_
