# Builds one target and checks the outcome: with EXPECT empty the build must succeed; otherwise it
# must fail and its output must match the regular expression EXPECT.
# Usage: cmake -DBINARY_DIR=... -DTARGET=... [-DCONFIG=...] [-DEXPECT=regex] -P check_compile_fail.cmake
set(config_args)
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BINARY_DIR} --target ${TARGET} ${config_args}
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT EXPECT)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${TARGET} should compile but failed:\n${output}")
  endif()
  message(STATUS "${TARGET} compiled, as it should")
  return()
endif()
if(result EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled but should have been rejected with '${EXPECT}'")
endif()
if(NOT output MATCHES "${EXPECT}")
  message(FATAL_ERROR "${TARGET} failed, but not with '${EXPECT}':\n${output}")
endif()
message(STATUS "${TARGET} was rejected with '${EXPECT}', as it should")
