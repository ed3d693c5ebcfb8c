# nvcc compiles a __device__-only function reached from host code into a call of exit(1), with no
# diagnostic when the caller is a template: the program then ends silently at the first launch
# that takes that path. The cuda backend's library must therefore reference no exit at all.
execute_process(COMMAND ${NM} -u -A ${LIBRARY} OUTPUT_VARIABLE undefined RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIBRARY}")
endif()
string(REGEX MATCHALL "[^\n]*[ \t]U exit\n" hits "${undefined}")
if(hits)
  message(FATAL_ERROR "host code of ${LIBRARY} calls a __device__-only function (nvcc made it exit(1)):\n${hits}")
endif()
message(STATUS "no exit() in ${LIBRARY}")
