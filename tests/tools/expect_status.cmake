# Runs PROGRAM with ARGS and fails unless it exits with EXPECTED_STATUS. Given EXPECTED_OUTPUT
# (a command whose non-zero status is a result, as railsim check's 1), stdout must match it.
# Otherwise the run is one of bad input: it writes "railsim: error: " to stderr, leaves stdout
# empty, and (when given) stderr matches EXPECTED_ERROR (ctest itself can only tell zero from
# non-zero). Given MAX_SECONDS, the run must also end within that many seconds.
string(TIMESTAMP started "%s%f")
execute_process(COMMAND ${PROGRAM} ${ARGS} RESULT_VARIABLE status ERROR_VARIABLE err
                OUTPUT_VARIABLE out)
string(TIMESTAMP ended "%s%f")
if(DEFINED MAX_SECONDS)
  math(EXPR elapsed_ms "(${ended} - ${started}) / 1000")
  math(EXPR limit_ms "${MAX_SECONDS} * 1000")
  if(elapsed_ms GREATER limit_ms)
    message(FATAL_ERROR "took ${elapsed_ms} ms, more than ${MAX_SECONDS} s")
  endif()
endif()
if(NOT status EQUAL EXPECTED_STATUS)
  message(FATAL_ERROR "expected exit status ${EXPECTED_STATUS}, got ${status}; stderr: ${err}")
endif()
if(DEFINED EXPECTED_OUTPUT)
  if(NOT out MATCHES "${EXPECTED_OUTPUT}")
    message(FATAL_ERROR "stdout does not match '${EXPECTED_OUTPUT}': ${out}")
  endif()
  return()
endif()
if(NOT err MATCHES "^railsim: error: ")
  message(FATAL_ERROR "expected 'railsim: error: ...' on stderr, got: ${err}")
endif()
if(DEFINED EXPECTED_ERROR AND NOT err MATCHES "${EXPECTED_ERROR}")
  message(FATAL_ERROR "stderr does not match '${EXPECTED_ERROR}': ${err}")
endif()
if(NOT out STREQUAL "")
  message(FATAL_ERROR "expected no output on stdout for bad input, got: ${out}")
endif()
