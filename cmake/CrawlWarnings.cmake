# crawl_warnings(target): the project's warning set; -Werror with CRAWL_WERROR (CI).
function(crawl_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(CRAWL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
