// The `crawl` program. Everything lives in the app room (crawler/crawl.h) so the
// end-to-end tests drive the same code in process.
#include "crawler/crawl.h"

int main(int argc, char** argv) { return crawler::CrawlProgramMain(argc, argv); }
