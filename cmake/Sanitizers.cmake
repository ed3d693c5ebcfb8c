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
