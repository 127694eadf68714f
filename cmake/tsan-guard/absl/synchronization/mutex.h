// Put first on the include path only in the TSan build (cmake/CrawlSanitizers.cmake).
//
// Debian's Abseil is not built with -fsanitize=thread, so absl::Mutex's lock and
// unlock are invisible to TSan, and every access it guards is reported as a data
// race (checked here: a counter under absl::MutexLock in 4 threads is flagged).
// Use std::mutex / std::shared_mutex / std::condition_variable instead; the
// ABSL_GUARDED_BY annotations from absl/base/thread_annotations.h still apply.
#error "absl::Mutex is not TSan-instrumented in Debian's Abseil: use std::mutex (see cmake/tsan-guard)"
