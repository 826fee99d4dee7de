# Runs gpuroof-trace-builder on a good and a bad description and checks exit codes, the error
# format and that a failed build leaves no output. Invoked by ctest with -DTOOL= -DWORK_DIR=.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

file(WRITE "${WORK_DIR}/good.trace" "gpu 0 \"NVIDIA H200\"\nkernel start=0 end=1us\n")
execute_process(COMMAND "${TOOL}" "${WORK_DIR}/good.trace" "${WORK_DIR}/good.sqlite"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS "${WORK_DIR}/good.sqlite")
  message(FATAL_ERROR "good description: exit ${rc}, stderr: ${err}")
endif()

file(WRITE "${WORK_DIR}/bad.trace" "gpu 0 \"NVIDIA H200\"\n\nkernel start=0 end=1us bogus=1\n")
execute_process(COMMAND "${TOOL}" "${WORK_DIR}/bad.trace" "${WORK_DIR}/bad.sqlite"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "bad description: expected exit 2, got ${rc}, stderr: ${err}")
endif()
if(NOT err MATCHES "^gpuroof-trace-builder: error: [^\n]*bad\\.trace:3: unknown key 'bogus'")
  message(FATAL_ERROR "bad description: unexpected message: ${err}")
endif()
if(EXISTS "${WORK_DIR}/bad.sqlite" OR EXISTS "${WORK_DIR}/bad.sqlite.tmp")
  message(FATAL_ERROR "bad description left an output file behind")
endif()

execute_process(COMMAND "${TOOL}" "${WORK_DIR}/good.trace" RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "missing argument: expected exit 2, got ${rc}")
endif()
