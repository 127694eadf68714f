# crawl_warnings(target): the project's warning set; -Werror with CRAWL_WERROR (CI).
function(crawl_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(CRAWL_UNITY_BUILD)
    # A batch includes the .cc files, so GCC takes a class defined in one for
    # a header's and warns when it holds a type from its anonymous namespace.
    target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
  endif()
  if(CRAWL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
