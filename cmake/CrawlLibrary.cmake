# How the installable libraries (bloom, sieve, sieve::redis) are built.
#
# BUILD_SHARED_LIBS (CMake's own switch, OFF by default): shared libraries,
# named libsieve.so.<major>.<minor>.<patch> with the SONAME
# libsieve.so.<major>.<minor>. While the version is 0.x a minor release may
# break the ABI (the packages' ConfigVersion says SameMinorVersion), so the
# SONAME carries the minor number; from 1.0 on it is the major alone.
option(BUILD_SHARED_LIBS "Build bloom and sieve as shared libraries (versioned SONAME)" OFF)

function(crawl_library_version target)
  if(PROJECT_VERSION_MAJOR EQUAL 0)
    set(soversion ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  else()
    set(soversion ${PROJECT_VERSION_MAJOR})
  endif()
  set_target_properties(${target} PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${soversion})
endfunction()

# xxHash as a build-time dependency only: every source that includes
# <xxhash.h> defines XXH_INLINE_ALL first, which compiles its functions into
# the target (static, inlined), so the target exports no link dependency on
# libxxhash and an embedder needs neither the library nor its dev package
# (scripts/check-embed links a consumer without it). Same algorithm, same
# hashes: the persisted bit positions do not change.
function(crawl_inline_xxhash target)
  target_include_directories(${target} PRIVATE ${xxHash_INCLUDE_DIR})
endfunction()
