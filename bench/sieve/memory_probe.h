// How the Sieve benchmark measures memory.
//  - HeapInUseBytes: glibc's malloc statistics (mallinfo2: uordblks, bytes in
//    use in the arenas, + hblkhd, bytes in chunks malloc mmapped itself). The
//    hash sets and the queues live here; a delta across a phase is exactly
//    what that phase allocated and still holds.
//  - ResidentBytes: VmRSS from /proc/self/status. The Bloom filter is an
//    anonymous mmap of its own (bloom/src/bit_storage.cc), invisible to malloc,
//    and its pages become resident as bits are set; an RSS delta measures it.
//  - PeakResidentBytes: VmHWM, the process's peak RSS (the headline's).
//
// Threading: free functions reading process-wide counters.
#ifndef BENCH_SIEVE_MEMORY_PROBE_H_
#define BENCH_SIEVE_MEMORY_PROBE_H_

#include <cstdint>

namespace sieve_bench {

int64_t HeapInUseBytes();
int64_t ResidentBytes();
// VmHWM: the most VmRSS has been since the process started.
int64_t PeakResidentBytes();

}  // namespace sieve_bench

#endif  // BENCH_SIEVE_MEMORY_PROBE_H_
