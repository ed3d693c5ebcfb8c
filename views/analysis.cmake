# The analysis views (diff, profile, the ImGui kernel timeline) and their tab wiring, added to
# bnscope_views from views/CMakeLists.txt.
find_package(Qt6 REQUIRED COMPONENTS OpenGLWidgets Charts Concurrent)
find_package(PkgConfig REQUIRED)
# Debian's libimgui-dev: the library plus stb, which its font atlas links against.
pkg_check_modules(BNSCOPE_IMGUI REQUIRED IMPORTED_TARGET imgui)

# The OpenGL 3 backend ships only as source. ImGui 1.84+ carries its own GL loader (imgl3w,
# imgui_impl_opengl3_loader.h, which dlopens libGL), so no IMGUI_IMPL_OPENGL_LOADER_* define is
# set: the old GL3W/GLEW/GLAD selectors no longer exist in 1.86.
set(BNSCOPE_IMGUI_BACKENDS_DIR /usr/share/doc/libimgui-dev/examples/backends
    CACHE PATH "Dear ImGui backend sources (libimgui-dev)")
if(NOT EXISTS ${BNSCOPE_IMGUI_BACKENDS_DIR}/imgui_impl_opengl3.cpp)
  message(FATAL_ERROR "imgui_impl_opengl3.cpp not found in ${BNSCOPE_IMGUI_BACKENDS_DIR}: "
                      "install libimgui-dev or set BNSCOPE_IMGUI_BACKENDS_DIR")
endif()
add_library(bnscope_imgui_gl3 STATIC ${BNSCOPE_IMGUI_BACKENDS_DIR}/imgui_impl_opengl3.cpp)
target_include_directories(bnscope_imgui_gl3 SYSTEM PUBLIC ${BNSCOPE_IMGUI_INCLUDE_DIRS}
                           ${BNSCOPE_IMGUI_INCLUDEDIR}/backends)
target_link_libraries(bnscope_imgui_gl3 PUBLIC PkgConfig::BNSCOPE_IMGUI ${CMAKE_DL_LIBS})
set_target_properties(bnscope_imgui_gl3 PROPERTIES POSITION_INDEPENDENT_CODE ON)
# Debian's ImGui 1.86 GL loader indexes one past its proc-name table (load_procs); it is not our
# code, so the sanitizer job leaves that one translation unit uninstrumented for UBSan.
if(BNSCOPE_SANITIZE)
  target_compile_options(bnscope_imgui_gl3 PRIVATE -fno-sanitize=undefined)
endif()

file(GLOB BNSCOPE_ANALYSIS_VIEW_SOURCES CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_SOURCE_DIR}/diff/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/diff/*.h
     ${CMAKE_CURRENT_SOURCE_DIR}/profile_tab/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/profile_tab/*.h
     ${CMAKE_CURRENT_SOURCE_DIR}/timeline/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/timeline/*.h)
target_sources(bnscope_views PRIVATE ${BNSCOPE_ANALYSIS_VIEW_SOURCES})
target_link_libraries(bnscope_views PUBLIC Qt6::OpenGLWidgets bnscope_imgui_gl3)
