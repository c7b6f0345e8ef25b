# harness_warnings(target): the project's warning set; -Werror with HARNESS_WERROR (CI turns it on).
function(harness_warnings target)
  if(MSVC)
    target_compile_options(${target} PRIVATE /W4 $<$<BOOL:${HARNESS_WERROR}>:/WX>)
  else()
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                                             $<$<BOOL:${HARNESS_WERROR}>:-Werror>)
  endif()
endfunction()
