# The lecture-hall pictures: presentation mode and a 200 % UI drawn by `tilescope render`, in GUI
# builds under a display (Xvfb in scripts/run-tests); and the window's flags refused when bad.
# Invoked by CTest: cmake -DTILESCOPE=<binary> -DLESSONS=<lessons/> -DOUT=<dir> -P cli_lecture_tests.cmake
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)
file(MAKE_DIRECTORY ${OUT})

expect_cli(0 "frame time" ARGS render --lesson banks-swizzles --step 2 --frames 1 --out ${OUT}/normal.png --lessons-dir ${LESSONS})
expect_cli(0 "frame time" ARGS render --lesson banks-swizzles --step 2 --frames 1 --present --out ${OUT}/present.png
           --lessons-dir ${LESSONS})
# Presentation draws another frame: no lesson panel, the scene and the text wider.
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/normal.png ${OUT}/present.png RESULT_VARIABLE same)
if(same EQUAL 0)
  message(FATAL_ERROR "render --present drew the same picture as without it")
endif()
# 200 % at twice the size: the layout of 1280x800, every pixel drawn (the fonts rebuilt, not stretched).
expect_cli(0 "(2560x1600)" ARGS render --lesson banks-swizzles --step 2 --frames 1 --size 2560x1600 --zoom 2
           --out ${OUT}/zoom2.png --lessons-dir ${LESSONS})
expect_cli(2 "--zoom must be from 1 to 3" ARGS render --lesson banks-swizzles --step 2 --zoom 4 --out ${OUT}/x.png
           --lessons-dir ${LESSONS})
expect_cli(2 "--zoom must be from 1 to 3" ARGS --zoom 0.5 --lessons-dir ${LESSONS})
