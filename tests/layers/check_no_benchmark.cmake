# Every layer that must compile without Google Benchmark's header has the stand-in
# (cmake/no_benchmark, an #error) on its include path: so a file of it that includes
# benchmark/benchmark.h, directly or through workload.hpp or runner.hpp, fails the build (the test
# layers.benchmark_header_refused shows that it does). Run by the test
# layers.writers_and_analysis_without_benchmark with -D layers=NAME=DIRS|NAME=DIRS... and
# -D stand_in=DIR.
string(REPLACE "|" ";" entries "${layers}")
set(missing "")
foreach(entry IN LISTS entries)
  string(FIND "${entry}" "=" at)
  string(SUBSTRING "${entry}" 0 ${at} name)
  math(EXPR from "${at} + 1")
  string(SUBSTRING "${entry}" ${from} -1 dirs)
  string(REPLACE "," ";" dirs "${dirs}")
  list(GET dirs 0 first)
  if(NOT first STREQUAL stand_in)
    list(APPEND missing "${name} (its first include folder is ${first})")
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "without the stand-in benchmark/benchmark.h ${stand_in} first: ${missing}")
endif()
message(STATUS "the stand-in comes first for: ${layers}")
