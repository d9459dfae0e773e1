# `tilescope render --lab`: a lab checked, then the GUI's Labs section drawn headless to a PNG (GUI
# builds, under a display: Xvfb in scripts/run-tests). Invoked by CTest:
#   cmake -DTILESCOPE=<binary> -DLABS=<labs/> -DLESSONS=<lessons/> -DWORK=<scratch folder> -P cli_lab_render_tests.cmake
# One lab compile (tma-copy's solution) and two frames.
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(env ENV XDG_CACHE_HOME=${WORK}/cache TILESCOPE_LABS_DIR=${LABS})

# Bad input: exit 2, one line, before any compile or window.
expect_cli(2 "no lab 'nope'" ${env} ARGS render --lab nope --out ${WORK}/x.png --lessons-dir ${LESSONS})
expect_cli(2 "--lab draws a lab" ${env} ARGS render --lab tma-copy --lesson memory-roofline --step 1 --out ${WORK}/x.png)
expect_cli(2 "--file goes with --lab" ${env} ARGS render --lesson memory-roofline --step 1 --file a.cpp --out ${WORK}/x.png)
expect_cli(2 "no-such.cpp: no such file" ${env}
           ARGS render --lab tma-copy --file ${WORK}/no-such.cpp --out ${WORK}/x.png --lessons-dir ${LESSONS})

expect_cli(0 "lab tma-copy (result    PASS" ${env} ARGS render --lab tma-copy --file ${LABS}/tma-copy/solution.cpp
           --out ${WORK}/lab.png --size 1280x800 --frames 1 --lessons-dir ${LESSONS})
expect_cli(0 "frame time" ${env} ARGS render --lesson memory-roofline --step 1 --out ${WORK}/lesson.png --size 1280x800
           --frames 1 --lessons-dir ${LESSONS})

# The PNG: its signature, 1280 x 800 in its header, and a picture (the lab view's text, timeline and
# report), not the lesson frame behind it: another file, and no small one.
foreach(png lab lesson)
  if(NOT EXISTS ${WORK}/${png}.png)
    message(FATAL_ERROR "render said it wrote ${WORK}/${png}.png but the file is not there")
  endif()
endforeach()
file(READ ${WORK}/lab.png head LIMIT 24 HEX)
string(SUBSTRING "${head}" 0 16 signature)
string(SUBSTRING "${head}" 32 16 size)
if(NOT signature STREQUAL "89504e470d0a1a0a" OR NOT size STREQUAL "0000050000000320")
  message(FATAL_ERROR "render --lab: ${WORK}/lab.png is not a 1280x800 PNG (header ${head})")
endif()
file(SIZE ${WORK}/lab.png bytes)
if(bytes LESS 100000)
  message(FATAL_ERROR "render --lab: ${WORK}/lab.png has only ${bytes} bytes: an empty frame?")
endif()
file(SHA256 ${WORK}/lab.png lab_hash)
file(SHA256 ${WORK}/lesson.png lesson_hash)
if(lab_hash STREQUAL lesson_hash)
  message(FATAL_ERROR "render --lab drew the same frame as the lesson without the lab")
endif()
