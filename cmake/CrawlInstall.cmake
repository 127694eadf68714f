# Installs bloom and sieve as CMake packages so another project can say
#   find_package(sieve CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE sieve::sieve)
# Their dependencies are found again through find_dependency.
include(CMakePackageConfigHelpers)
set(CRAWL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake)

foreach(lib bloom sieve)
  if(NOT TARGET ${lib})
    continue()
  endif()
  install(TARGETS ${lib} EXPORT ${lib}Targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${lib}/include/${lib}
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT ${lib}Targets NAMESPACE ${lib}::
    DESTINATION ${CRAWL_CMAKE_DIR}/${lib})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/${lib}Config.cmake.in
    ${CMAKE_CURRENT_BINARY_DIR}/${lib}Config.cmake
    INSTALL_DESTINATION ${CRAWL_CMAKE_DIR}/${lib})
  write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/${lib}ConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${lib}Config.cmake
    ${CMAKE_CURRENT_BINARY_DIR}/${lib}ConfigVersion.cmake
    DESTINATION ${CRAWL_CMAKE_DIR}/${lib})
endforeach()

# pkg-config files beside the CMake packages: lib/pkgconfig/{bloom,sieve}.pc
# (`pkg-config --cflags --libs sieve`; add --static for the static libraries).
file(RELATIVE_PATH CRAWL_PC_UP /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
foreach(lib bloom sieve)
  if(TARGET ${lib})
    configure_file(${PROJECT_SOURCE_DIR}/cmake/${lib}.pc.in
      ${CMAKE_CURRENT_BINARY_DIR}/${lib}.pc @ONLY)
    install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${lib}.pc
      DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
  endif()
endforeach()

# sieve's optional component `redis`: its own export set, so that
# sieveTargets.cmake does not name hiredis.
if(TARGET sieve_redis)
  install(TARGETS sieve_redis EXPORT sieveRedisTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT sieveRedisTargets NAMESPACE sieve::
    DESTINATION ${CRAWL_CMAKE_DIR}/sieve)
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/Findhiredis.cmake DESTINATION ${CRAWL_CMAKE_DIR}/sieve)
endif()
