# Runs PROGRAM with ARGS and --trace TRACE, then fails unless it exited with status 0 and TRACE
# is JSON with a "traceEvents" array holding EXPECTED_SPANS complete ("X") events, one of them
# named EXPECTED_CALL, and at least one counter ("C") event.
file(REMOVE ${TRACE})
execute_process(COMMAND ${PROGRAM} ${ARGS} --trace ${TRACE} RESULT_VARIABLE status
                OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "expected exit status 0, got ${status}; stderr: ${err}")
endif()
file(READ ${TRACE} text)
string(JSON events ERROR_VARIABLE json_error LENGTH "${text}" traceEvents)
if(json_error)
  message(FATAL_ERROR "${TRACE}: not a trace: ${json_error}")
endif()
string(REGEX MATCHALL "\"ph\":\"X\"" spans "${text}")
list(LENGTH spans span_count)
if(NOT span_count EQUAL EXPECTED_SPANS)
  message(FATAL_ERROR "expected ${EXPECTED_SPANS} spans, got ${span_count} (of ${events} events)")
endif()
string(FIND "${text}" "\"name\":\"${EXPECTED_CALL}\",\"ph\":\"X\"" call_at)
string(FIND "${text}" "\"ph\":\"C\"" counter_at)
if(call_at LESS 0 OR counter_at LESS 0)
  message(FATAL_ERROR "expected a span named '${EXPECTED_CALL}' and a link counter")
endif()
