# Read by ctest after the discovered tests (TEST_INCLUDE_FILES, tests/CMakeLists.txt).
# Every test but those below takes one slot of resource `cpu`
# (RESOURCE_GROUPS cpu:1), and
# scripts/test runs the sanitizer suites with as many `cpu` slots as the
# machine has cores and twice as many tests at once: tests that compute are
# never more than one per core, while the tests below, which spend their time
# waiting on the clock (delays, Retry-After pauses, timeouts, a killed
# process's lease running out), run beside them on the spare test slots. Each
# took at most 1.35x its plain build's time under ASan and under TSan in CI
# (most of its time is not its own CPU), and 1.5 s or more. Tests that start
# Redis servers are not among them whatever their ratio: the servers' CPU is
# not instrumented, so the ratio hides it (with them on the spare slots, a
# cluster test under ASan on a loaded machine saw a pop's reply come too late
# and drained 16 URLs short of its 20 s bound). Without a resource
# spec (the plain suite, a developer's ctest) the groups are ignored.
# A name this build lacks is ignored by ctest; a parameterized test's name
# ends in its "  # GetParam() = ..." as ctest lists it.
set(crawl_waiting_tests
  StressTest.CheckpointsRunningBesideTheFetchersLoseAndRepeatNothing
  Politeness.TenHostsAtDelay200msPerHost1
  StressTest.EightThreadsAndRandomFaultsFetchEveryPageOnce
  IdleWait.503WithRetryAfterIsAPauseNamedInTheLog
  AdaptiveDelay.ARateLimitedHostAnswersFew429s
  Reliability.PagesAnswering429Or503OnceAreFetchedAgain
  FirstContact.BlockedUrlsCostNoPolitenessSlot
  ServerPoliteness.FiftyNamesOnOneAddressShareItsLimits
  Politeness.FailingHostsAreDroppedOthersFinish
  FilterCheckpoint.KillNineAtAnyMomentResumesTheLastCommittedFilterExactly
  Resume.ExistingStateNeedsResumeOrFresh
  CheckpointTest.PayloadsSurviveMemorySpillDeferSaveAndRestoreInFifoOrder
  HostileTransport.ADripOfOneByteASecondIsCutByTheTimeout
  Politeness.CrawlDelayHoldsFromTheSecondPage)
# The discovered tests are listed in the <program>_TESTS variables that
# gtest_discover_tests' include files set just before this one; the groups
# of TESTs run as one test (crawl_test_group) get theirs in CMakeLists.txt.
cmake_policy(PUSH)  # ctest reads this file with no policies set
cmake_policy(SET CMP0057 NEW)  # if(IN_LIST)
get_cmake_property(crawl_variables VARIABLES)
foreach(variable ${crawl_variables})
  if(NOT variable MATCHES "_tests_TESTS$")
    continue()
  endif()
  foreach(name IN LISTS ${variable})
    if(NOT name IN_LIST crawl_waiting_tests)
      set_tests_properties(${name} PROPERTIES RESOURCE_GROUPS cpu:1)
    endif()
  endforeach()
endforeach()
cmake_policy(POP)
