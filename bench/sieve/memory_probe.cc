#include "memory_probe.h"

#include <malloc.h>

#include <fstream>
#include <string>

namespace sieve_bench {

int64_t HeapInUseBytes() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);
}

namespace {

// A "<field>: <n> kB" line of /proc/self/status, in bytes; -1 if absent.
int64_t StatusKilobytes(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::string prefix = field + ":";
  while (std::getline(status, line)) {
    if (line.rfind(prefix, 0) == 0) return std::stoll(line.substr(prefix.size())) * 1024;
  }
  return -1;
}

}  // namespace

int64_t ResidentBytes() { return StatusKilobytes("VmRSS"); }

int64_t PeakResidentBytes() { return StatusKilobytes("VmHWM"); }

}  // namespace sieve_bench
