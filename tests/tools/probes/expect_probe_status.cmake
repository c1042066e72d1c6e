# Runs PROGRAM with ARGS and fails unless it exits with EXPECTED_STATUS, leaves stdout empty and
# writes one line to stderr matching EXPECTED_ERROR ("railsim-probe-...: error: ..."); the
# probes' messages name the probe, which tests/tools/expect_status.cmake does not expect.
execute_process(COMMAND ${PROGRAM} ${ARGS} RESULT_VARIABLE status ERROR_VARIABLE err
                OUTPUT_VARIABLE out)
if(NOT status EQUAL EXPECTED_STATUS)
  message(FATAL_ERROR "expected exit status ${EXPECTED_STATUS}, got ${status}; stderr: ${err}")
endif()
if(NOT err MATCHES "${EXPECTED_ERROR}")
  message(FATAL_ERROR "stderr does not match '${EXPECTED_ERROR}': ${err}")
endif()
string(REGEX MATCHALL "\n" newlines "${err}")
list(LENGTH newlines lines)
if(NOT lines EQUAL 1)
  message(FATAL_ERROR "expected one line on stderr, got ${lines}: ${err}")
endif()
if(NOT out STREQUAL "")
  message(FATAL_ERROR "expected no output on stdout for bad input, got: ${out}")
endif()
