// DirLock: an exclusive flock(2) on a directory for a crawl's lifetime, so
// that two crawls never write one --out or --state (unlocked, two
// crawls on one pages.jsonl left NUL bytes, a torn line and duplicates).
//
//   absl::StatusOr<std::unique_ptr<DirLock>> lock = DirLock::Acquire("out");
//   if (!lock.ok()) return lock.status();  // "out is in use by another crawl (PID 4242)"
//   ... crawl ...                          // released when `lock` is destroyed
//
// The lock is on the directory itself (no lock file: --fresh's wipe and the
// "state directory is not empty" check see nothing new), creating it first
// if missing. The kernel drops it when the process ends, kill -9 included,
// so a stale lock cannot outlive its crawl. The holder's PID is read from
// /proc/locks (Linux); elsewhere the message says "another process".
//
// Threading: Acquire from any thread; the object is immutable.
#ifndef CRAWLER_APP_DIR_LOCK_H_
#define CRAWLER_APP_DIR_LOCK_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace crawler {

class DirLock {
 public:
  // InvalidArgument (exit 2) naming `dir` and the holder's PID when another
  // crawl holds it; Unavailable when `dir` cannot be created or opened.
  static absl::StatusOr<std::unique_ptr<DirLock>> Acquire(const std::string& dir);
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  explicit DirLock(int fd) : fd_(fd) {}
  const int fd_;
};

}  // namespace crawler

#endif  // CRAWLER_APP_DIR_LOCK_H_
