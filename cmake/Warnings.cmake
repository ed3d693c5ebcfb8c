# Warnings apply to our own targets only; third-party headers come in as SYSTEM includes.
function(bnscope_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow=local -Wno-missing-field-initializers>)
endfunction()
