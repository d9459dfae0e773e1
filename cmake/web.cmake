# The browser build (scripts/build-web, web/README.md): the same sources compiled by Debian's
# Emscripten to WebAssembly. Included by the top-level CMakeLists.txt in place of the desktop's
# GUI dependency search when CMAKE_TOOLCHAIN_FILE is Emscripten's.
#
# What changes and why:
# - the host backend's fibers are Emscripten's (tiles/backend/host/fiber_emscripten.hpp), which
#   need Asyncify, and its forced unwinding and the deadlock reports need C++ exceptions;
# - Dear ImGui and md4c are compiled from Debian's source packages, which scripts/build-web
#   unpacks with `apt-get source` into TILESCOPE_WEB_SOURCES (an ignored folder, never committed);
# - GLFW is Emscripten's own port, OpenGL is WebGL 2 (ImGui's OpenGL3 backend as GLES 3);
# - header-only dependencies (CLI11, nlohmann-json, stb, Catch2) are Debian's headers, reached
#   through TILESCOPE_EXTRA_INCLUDE as on the GPU machine.

set(TILESCOPE_WEB_SOURCES "" CACHE PATH "Folder holding Debian's imgui/ and md4c/ sources (scripts/build-web)")

enable_language(C)  # md4c and stb are C
add_compile_options(-fexceptions)
# ASYNCIFY_STACK_SIZE: the wasm call stack a suspended context saves (the frame loop's own, when a
# simulation slice pauses); fibers give their own buffers. Memory grows: a slow run's trace
# buffers and fiber stacks take a few hundred MB.
add_link_options(-fexceptions -sASYNCIFY -sASYNCIFY_STACK_SIZE=65536 -sALLOW_MEMORY_GROWTH=1
                 -sMAXIMUM_MEMORY=4GB -sTOTAL_STACK=4MB)
# Asyncify instruments every function that may be on the stack at a fiber switch, and counts every
# indirect call and exception invoke as one that may: most of the simulator. web/asyncify-remove.txt
# names the simulator's per-op work, which never is (ASYNCIFY_REMOVE; the file says why each).
# Emscripten reads one name a line, no comments: the lines that are not comments go to a file in
# the build folder named by their hash, so that an edit reconfigures and relinks.
set(web_asyncify_remove_src ${PROJECT_SOURCE_DIR}/web/asyncify-remove.txt)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${web_asyncify_remove_src})
file(STRINGS ${web_asyncify_remove_src} web_asyncify_remove REGEX "^[^#]")
list(JOIN web_asyncify_remove "\n" web_asyncify_remove)
string(MD5 web_asyncify_hash "${web_asyncify_remove}")
string(SUBSTRING ${web_asyncify_hash} 0 8 web_asyncify_hash)
set(web_asyncify_file ${CMAKE_BINARY_DIR}/asyncify-remove-${web_asyncify_hash}.txt)
file(WRITE ${web_asyncify_file} "${web_asyncify_remove}\n")
add_link_options(-sASYNCIFY_REMOVE=@${web_asyncify_file})
# web/invoke-raw.js: exceptions' invoke_* calls into the wasm's exports without Asyncify's wrappers
# of them (the file says why that is safe); copied under its hash too, so that an edit relinks.
set(web_invoke_src ${PROJECT_SOURCE_DIR}/web/invoke-raw.js)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${web_invoke_src})
file(MD5 ${web_invoke_src} web_invoke_hash)
string(SUBSTRING ${web_invoke_hash} 0 8 web_invoke_hash)
configure_file(${web_invoke_src} ${CMAKE_BINARY_DIR}/invoke-raw-${web_invoke_hash}.js COPYONLY)
add_link_options("SHELL:--post-js ${CMAKE_BINARY_DIR}/invoke-raw-${web_invoke_hash}.js")

if(NOT TILESCOPE_GUI)
  list(APPEND skipped "GUI page (TILESCOPE_GUI=OFF)")
  return()
endif()
set(web_imgui ${TILESCOPE_WEB_SOURCES}/imgui)
set(web_md4c ${TILESCOPE_WEB_SOURCES}/md4c/src)
if(NOT EXISTS ${web_imgui}/imgui.cpp OR NOT EXISTS ${web_md4c}/md4c.c OR NOT TILESCOPE_EXTRA_INCLUDE)
  list(APPEND skipped "GUI page (run scripts/build-web: it fetches Debian's imgui and md4c sources)")
  return()
endif()

add_library(tilescope_web_imgui STATIC ${web_imgui}/imgui.cpp ${web_imgui}/imgui_draw.cpp
                                       ${web_imgui}/imgui_tables.cpp ${web_imgui}/imgui_widgets.cpp)
target_include_directories(tilescope_web_imgui SYSTEM PUBLIC ${web_imgui})
add_library(tilescope_web_md4c STATIC ${web_md4c}/md4c.c)
# stb's implementations (libstb on the desktop): one C file over Debian's headers.
add_library(tilescope_web_stb STATIC ${PROJECT_SOURCE_DIR}/web/stb_impl.c)
target_include_directories(tilescope_web_stb SYSTEM PRIVATE ${TILESCOPE_EXTRA_INCLUDE}/stb)

# The names viz/CMakeLists.txt links on the desktop, standing for the browser's libraries.
add_library(glfw INTERFACE)
target_link_options(glfw INTERFACE -sUSE_GLFW=3)
add_library(OpenGL::GL INTERFACE IMPORTED)
set_target_properties(OpenGL::GL PROPERTIES INTERFACE_LINK_OPTIONS "-sMIN_WEBGL_VERSION=2;-sMAX_WEBGL_VERSION=2"
                      INTERFACE_COMPILE_DEFINITIONS IMGUI_IMPL_OPENGL_ES3)
set(IMGUI_INCLUDE_DIR ${web_imgui})
set(IMGUI_LIBRARY tilescope_web_imgui)
set(IMGUI_BACKEND_DIR ${web_imgui}/backends)
set(STB_INCLUDE_DIR ${TILESCOPE_EXTRA_INCLUDE}/stb)
set(STB_LIBRARY tilescope_web_stb CACHE STRING "stb's implementations (the browser build's own)" FORCE)
set(MD4C_INCLUDE_DIR ${web_md4c})
set(MD4C_LIBRARY tilescope_web_md4c)
set(TILESCOPE_HAVE_GUI ON)
