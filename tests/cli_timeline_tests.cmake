# A user's own measured timeline through the CLI: compare --timeline-out writes both timelines as
# one Perfetto trace, render --timeline draws the GUI's view of it (whole and zoomed to one
# iteration), and a bad file is one line. The committed GEMM timeline stands in for the user's.
# Invoked by CTest: cmake -DTILESCOPE=<binary> -DLESSONS=<lessons/> -DDATA=<data/> -DOUT=<dir> [-DGUI=1] -P cli_timeline_tests.cmake
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)
file(MAKE_DIRECTORY ${OUT})
set(gemm ${DATA}/measured/h100/timelines/gemm-4096-s4.json)
file(WRITE ${OUT}/broken.json "{\"traceEvents\": [")
file(WRITE ${OUT}/simulated.json "{\"traceEvents\": [], \"otherData\": {\"source\": \"simulated\", \"clock_mhz\": 1755}}")

# One file with both: every measured and every simulated span, on processes that do not collide.
expect_cli(0 "(written to ${OUT}/both.json)" ARGS compare --timeline ${gemm} --timeline-out ${OUT}/both.json)
file(READ ${OUT}/both.json both)
string(JSON events LENGTH "${both}" traceEvents)
file(READ ${gemm} measured_text)
string(JSON measured_events LENGTH "${measured_text}" traceEvents)
if(NOT events GREATER measured_events)
  message(FATAL_ERROR "both.json has ${events} events, no more than the measured file's ${measured_events}")
endif()
foreach(name "measured: SM 128" "simulated: SM 0" "simulated: SM 3")
  string(FIND "${both}" "\"name\":\"${name}\"" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "both.json names no process '${name}'")
  endif()
endforeach()
string(JSON measured_clock GET "${both}" otherData measured clock_mhz)
string(JSON simulated_source GET "${both}" otherData simulated source)
if(NOT simulated_source STREQUAL "simulated" OR measured_clock LESS 1000)
  message(FATAL_ERROR "both.json's otherData lacks the two timelines' own: ${simulated_source}, ${measured_clock}")
endif()

expect_cli(2 "broken.json: not JSON" ARGS compare --timeline ${OUT}/broken.json)
expect_cli(2 "simulated.json: not a measured timeline" ARGS compare --timeline ${OUT}/simulated.json)

if(NOT GUI)
  return()
endif()
# The GUI's view, headless: the whole run and one iteration.
expect_cli(0 "timeline ${gemm}" ARGS render --timeline ${gemm} --out ${OUT}/view.png --frames 1 --lessons-dir ${LESSONS})
expect_cli(0 "wrote ${OUT}/iteration.png (1280x800)" ARGS render --timeline ${gemm} --one-iteration --out ${OUT}/iteration.png
           --frames 1 --lessons-dir ${LESSONS})
foreach(png view iteration)
  if(NOT EXISTS ${OUT}/${png}.png)
    message(FATAL_ERROR "render said it wrote ${OUT}/${png}.png but the file is not there")
  endif()
endforeach()
# Bad input: one line, before any window opens.
foreach(env "" "DISPLAY")
  expect_cli(2 "broken.json: not JSON" UNSET ${env} ARGS render --timeline ${OUT}/broken.json --out ${OUT}/x.png --lessons-dir ${LESSONS})
  expect_cli(2 "no-such.json: cannot open" UNSET ${env} ARGS render --timeline ${OUT}/no-such.json --out ${OUT}/x.png --lessons-dir ${LESSONS})
  expect_cli(2 "give one" UNSET ${env} ARGS render --timeline ${gemm} --lesson banks-swizzles --step 1 --out ${OUT}/x.png)
  expect_cli(2 "go with --timeline FILE" UNSET ${env} ARGS render --lesson banks-swizzles --step 1 --one-iteration --out ${OUT}/x.png)
endforeach()
# The app with a bad file says which and why, then goes on to open its window (here: none to open).
expect_cli(1 "broken.json: not JSON" MULTILINE UNSET DISPLAY WAYLAND_DISPLAY ARGS --timeline ${OUT}/broken.json --no-state
           --lessons-dir ${LESSONS})
string(FIND "${last_stderr}" "cannot open an OpenGL window" at)
if(at EQUAL -1)
  message(FATAL_ERROR "tilescope --timeline broken.json did not go on to open the app: ${last_stderr}")
endif()
