# Runs PROGRAM with ARGS and fails unless it exits with EXPECTED_STATUS and writes
# "railsim: error:" to stderr (ctest itself can only tell zero from non-zero).
execute_process(COMMAND ${PROGRAM} ${ARGS} RESULT_VARIABLE status ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT status EQUAL EXPECTED_STATUS)
  message(FATAL_ERROR "expected exit status ${EXPECTED_STATUS}, got ${status}; stderr: ${err}")
endif()
if(NOT err MATCHES "railsim: error: ")
  message(FATAL_ERROR "expected 'railsim: error: ...' on stderr, got: ${err}")
endif()
