# Finds hiredis (Debian's libhiredis-dev ships no CMake target) and defines
# the imported target hiredis::hiredis. Used by sieve's optional redis
# component (sieve::redis), never by sieve::sieve.
find_path(HIREDIS_INCLUDE_DIR hiredis/hiredis.h)
find_library(HIREDIS_LIBRARY NAMES hiredis)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(hiredis REQUIRED_VARS HIREDIS_LIBRARY HIREDIS_INCLUDE_DIR)
if(hiredis_FOUND AND NOT TARGET hiredis::hiredis)
  add_library(hiredis::hiredis UNKNOWN IMPORTED)
  set_target_properties(hiredis::hiredis PROPERTIES
    IMPORTED_LOCATION "${HIREDIS_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${HIREDIS_INCLUDE_DIR}")
endif()
mark_as_advanced(HIREDIS_INCLUDE_DIR HIREDIS_LIBRARY)
