# `tilescope render` and the GUI entry, in GUI builds, under a display (Xvfb in scripts/run-tests).
# Invoked by CTest: cmake -DTILESCOPE=<binary> -DLESSONS=<lessons/> -DFIXTURES=<...> -DOUT=<dir> -P cli_render_tests.cmake
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)
file(MAKE_DIRECTORY ${OUT})

expect_cli(0 "frame time" ARGS render --lesson banks-swizzles --step 2 --out ${OUT}/banks-2.png --lessons-dir ${LESSONS})
if(NOT EXISTS ${OUT}/banks-2.png)
  message(FATAL_ERROR "render said it wrote ${OUT}/banks-2.png but the file is not there")
endif()
expect_cli(0 "(640x400)" ARGS render --lesson memory-roofline --step 1 --size 640x400 --frames 2
           --out ${OUT}/roofline-1.png --lessons-dir ${LESSONS})
# A folder with a broken lesson: the good one still renders.
expect_cli(0 "frame time" ARGS render --lesson good --step 1 --frames 1 --out ${OUT}/good.png
           --lessons-dir ${FIXTURES}/mixed)

# Bad input: exit 2, one line, before any window opens (so also without a display).
foreach(env "" "DISPLAY")
  expect_cli(2 "unknown lesson 'nope' (lessons: memory-roofline banks-swizzles" UNSET ${env}
             ARGS render --lesson nope --step 1 --out ${OUT}/x.png --lessons-dir ${LESSONS})
  expect_cli(2 "has steps 1 to 8, not 0" UNSET ${env}
             ARGS render --lesson banks-swizzles --step 0 --out ${OUT}/x.png --lessons-dir ${LESSONS})
  expect_cli(2 "has steps 1 to 8, not 99" UNSET ${env}
             ARGS render --lesson banks-swizzles --step 99 --out ${OUT}/x.png --lessons-dir ${LESSONS})
  expect_cli(2 "--size '12by3' is not WIDTHxHEIGHT" UNSET ${env}
             ARGS render --lesson banks-swizzles --step 1 --size 12by3 --out ${OUT}/x.png --lessons-dir ${LESSONS})
  expect_cli(2 "--size '0x100' is not WIDTHxHEIGHT" UNSET ${env}
             ARGS render --lesson banks-swizzles --step 1 --size 0x100 --out ${OUT}/x.png --lessons-dir ${LESSONS})
  expect_cli(2 "must end in .png" UNSET ${env}
             ARGS render --lesson banks-swizzles --step 1 --out ${OUT}/x.jpg --lessons-dir ${LESSONS})
  expect_cli(2 "does not exist" UNSET ${env}
             ARGS render --lesson banks-swizzles --step 1 --out ${OUT}/x.png --lessons-dir ${FIXTURES}/no-such-folder)
  expect_cli(2 "--lesson is required" UNSET ${env} ARGS render --step 1 --out ${OUT}/x.png)
endforeach()
expect_cli(2 "larger than this OpenGL driver allows"
           ARGS render --lesson banks-swizzles --step 1 --size 100000x100 --out ${OUT}/x.png --lessons-dir ${LESSONS})

# No display: a clear one-line error (exit 1: the input was fine, the machine lacks a display).
expect_cli(1 "cannot open an OpenGL window" UNSET DISPLAY WAYLAND_DISPLAY
           ARGS render --lesson banks-swizzles --step 1 --out ${OUT}/x.png --lessons-dir ${LESSONS})
expect_cli(1 "cannot open an OpenGL window" UNSET DISPLAY WAYLAND_DISPLAY ARGS --lessons-dir ${LESSONS})

# A projector's zoom: the same frame drawn larger; exercises drawn with their verdict.
expect_cli(0 "wrote ${OUT}/zoom.png (1920x1080)" ARGS render --lesson memory-roofline --step 1 --zoom 1.5 --size 1920x1080 --frames 1 --out ${OUT}/zoom.png --lessons-dir ${LESSONS})
expect_cli(2 "--zoom must be from 1 to 3" ARGS render --lesson memory-roofline --step 1 --zoom 5 --out ${OUT}/zoom.png --lessons-dir ${LESSONS})
expect_cli(0 "wrote ${OUT}/answered.png" ARGS render --lesson banks-swizzles --step 8 --answer 4 --teacher --frames 1 --out ${OUT}/answered.png --lessons-dir ${LESSONS})
