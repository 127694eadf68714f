// The `crawl` program. Everything lives in the app room (crawler/crawl.h) so the
// end-to-end tests drive the same code in process.
#include <malloc.h>

#include "crawler/crawl.h"

int main(int argc, char** argv) {
  // Page bodies and Gumbo's arena blocks are big, short-lived buffers. glibc
  // raises its mmap threshold after freeing one (up to 32 MB), after which
  // they come from the heap, fragment it and stay resident: python-docs
  // crawls peaked at 67 MB instead of 48 MB. A fixed threshold keeps buffers
  // over 128 KiB in their own mappings, returned to the system when freed.
  mallopt(M_MMAP_THRESHOLD, 128 << 10);
  mallopt(M_TRIM_THRESHOLD, 128 << 10);
  return crawler::CrawlProgramMain(argc, argv);
}
