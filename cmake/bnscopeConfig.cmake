# find_package(bnscope) for a kernel plugin: bnscope::plugin, whose include directory holds
# bnscope/plugin.h. Installed to <prefix>/lib/cmake/bnscope/.
get_filename_component(_bnscope_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET bnscope::plugin)
  add_library(bnscope::plugin INTERFACE IMPORTED)
  set_target_properties(bnscope::plugin PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
                                                   "${_bnscope_prefix}/include")
endif()
unset(_bnscope_prefix)
