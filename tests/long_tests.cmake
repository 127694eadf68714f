# Read by ctest after the discovered tests (TEST_INCLUDE_FILES, tests/CMakeLists.txt).
# ctest starts tests in decreasing COST, and without a previous run's timings
# (a fresh CI clone has none) every test costs 0, so the longest ones started
# last: under TSan the million-seed test (~67 s) began near the end and ran
# alone on one core for ~37 s. COST: seconds measured under TSan in CI. A name
# this build lacks (a renamed test, a build without the crawler) is ignored by ctest.
set(crawl_long_tests
  BadInput.AMillionSeedLinesWork 67
  StressTest.CheckpointsRunningBesideTheFetchersLoseAndRepeatNothing 18
  Politeness.TenHostsAtDelay200msPerHost1 18
  StressTest.EightThreadsAndRandomFaultsFetchEveryPageOnce 14
  RedisFrontierTest.ASigkilledProcessLosesNothingTheOthersFinishTheSite 7)
while(crawl_long_tests)
  list(POP_FRONT crawl_long_tests name cost)
  set_tests_properties(${name} PROPERTIES COST ${cost})
endwhile()
