# The Conformance view (a backend's conformance run: its table model and panel), added to
# bnscope_views from views/CMakeLists.txt.
file(GLOB BNSCOPE_CONFORMANCE_VIEW_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp
     ${CMAKE_CURRENT_LIST_DIR}/*.h)
target_sources(bnscope_views PRIVATE ${BNSCOPE_CONFORMANCE_VIEW_SOURCES})
