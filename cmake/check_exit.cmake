# Runs a command and checks its exit code and what it printed (stdout and stderr together).
# Usage: cmake -DEXPECT_CODE=2 -DEXPECT=regex -DCOMMAND="prog;arg1;arg2" -P check_exit.cmake
# A test that only asks for "some non-zero exit" (WILL_FAIL) passes for a crash too; this one
# passes only for the exit code and the message it names.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE result OUTPUT_VARIABLE output
                ERROR_VARIABLE output)
if(NOT result STREQUAL "${EXPECT_CODE}")
  message(FATAL_ERROR "exit code ${result}, expected ${EXPECT_CODE}:\n${output}")
endif()
if(NOT output MATCHES "${EXPECT}")
  message(FATAL_ERROR "the output does not match '${EXPECT}':\n${output}")
endif()
message(STATUS "exit code ${result} and '${EXPECT}', as expected")
