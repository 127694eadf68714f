// Test helper: where a test finds the source tree, ../shared, the built
// programs and the crawlsieve Redis module. CRAWL_SOURCE_DIR, CRAWL_SHARED_DIR,
// CRAWL_BIN_DIR and (when the module is built) CRAWL_REDIS_MODULE name these
// arrays; tests/CMakeLists.txt force-includes this header into every test file
// and generates the file that defines them (build/tests/test_paths.cc).
//
// Not string literals on the command line: a path compiled into every test
// file would differ between two clones of the repository, and ccache would
// compile every test again in a new clone folder (scripts/ccache.sh). Only the
// one generated file carries the paths.
//
//   const std::string config = std::string(CRAWL_SOURCE_DIR) + "/config/crawl.toml";
#ifndef CRAWL_TESTS_SUPPORT_TEST_PATHS_H_
#define CRAWL_TESTS_SUPPORT_TEST_PATHS_H_

namespace test_support {

extern const char kSourceDir[];
extern const char kSharedDir[];
extern const char kBinDir[];
extern const char kRedisModule[];  // empty when the module is not built

}  // namespace test_support

#endif  // CRAWL_TESTS_SUPPORT_TEST_PATHS_H_
