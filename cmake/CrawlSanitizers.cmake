# Sanitizer builds, applied to everything in the tree (CI builds both).
if(CRAWL_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  add_compile_definitions(CRAWL_SANITIZED=1)
elseif(CRAWL_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
  # Debian's Abseil is not TSan-instrumented: scripts/lint forbids absl::Mutex.
  add_compile_definitions(CRAWL_SANITIZED=1)
elseif(NOT CRAWL_SANITIZE STREQUAL "")
  message(FATAL_ERROR "CRAWL_SANITIZE must be '', 'address' or 'thread', not '${CRAWL_SANITIZE}'")
endif()
