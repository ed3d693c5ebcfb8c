# The Layers view of a capture folder (the sweep's table, its background runner and panel), added
# to bnscope_views from views/CMakeLists.txt.
file(GLOB BNSCOPE_LAYERS_VIEW_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp
     ${CMAKE_CURRENT_LIST_DIR}/*.h)
target_sources(bnscope_views PRIVATE ${BNSCOPE_LAYERS_VIEW_SOURCES})
