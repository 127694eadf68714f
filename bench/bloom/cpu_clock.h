// The calling thread's CPU time. The benchmark times with it rather than the
// wall clock because the machine it runs on is shared: time spent preempted is
// not the filter's. Memory stalls are on-CPU time, so they are counted; on an
// idle machine the two clocks agree.
#ifndef BENCH_BLOOM_CPU_CLOCK_H_
#define BENCH_BLOOM_CPU_CLOCK_H_

#include <time.h>

namespace bloom_bench {

inline double ThreadCpuNanos() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

}  // namespace bloom_bench

#endif  // BENCH_BLOOM_CPU_CLOCK_H_
