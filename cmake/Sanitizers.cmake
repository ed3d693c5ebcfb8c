option(BNSCOPE_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
if(BNSCOPE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  # Tests shorten their longest sweeps and skip memory high-water checks in this build; one
  # definition because GCC (__SANITIZE_ADDRESS__) and clang (__has_feature) announce ASan apart.
  add_compile_definitions(BNSCOPE_SANITIZED=1)
endif()
# GCC's -Wmaybe-uninitialized misfires on sanitizer-instrumented code (inside std::regex here);
# the release build keeps the warning.
if(BNSCOPE_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-maybe-uninitialized>)
endif()
# The Qt views, the app and their tests compile at -O0 in the sanitizer build: 0.4-0.5x the
# compile time of -O1 for their sources, the slowest of the build after the vector kernels, while
# the time of the tests is spent elsewhere. Called at the top of those directories. (The engine
# and the test code stay at -O1: at -O0 everywhere the sanitizer tests ran three times as long.)
function(bnscope_quick_build_when_sanitized)
  if(BNSCOPE_SANITIZE)
    add_compile_options(-O0)
  endif()
endfunction()
