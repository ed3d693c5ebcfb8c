# Warnings apply to our own targets only; third-party headers come in as SYSTEM includes.
function(bnscope_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-missing-field-initializers>
    # -Wshadow=local is GCC's spelling; clang rejects it. GCC 12 reports false -Wrestrict
    # positives inside std::string concatenation (GCC bug 105329).
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wshadow=local -Wno-restrict>)
endfunction()
