# `tilescope lessons`, in any build. Invoked by CTest:
#   cmake -DTILESCOPE=<binary> -DLESSONS=<lessons/> -DFIXTURES=<tests/fixtures/lessons> -P cli_lessons_tests.cmake
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)

expect_cli(0 "1. The memory hierarchy and the roofline" ARGS lessons --dir ${LESSONS})
expect_cli(0 "Swizzled layouts and bank conflicts" ARGS lessons --lessons-dir ${LESSONS})
expect_cli(0 "(knobs: access=ldsm4)" ARGS lessons --dir ${LESSONS})
# TILESCOPE_LESSONS_DIR is the default folder when none is given.
expect_cli(1 "A good lesson" ENV TILESCOPE_LESSONS_DIR=${FIXTURES}/mixed ARGS lessons)

# Some files broken: the good lessons are listed, each failure is one file:line: reason, exit 1.
expect_cli(1 "1. A good lesson" MULTILINE ARGS lessons --dir ${FIXTURES}/mixed)
expect_cli(1 "${FIXTURES}/mixed/02-broken.md:8: the 16x16 subtile" MULTILINE ARGS lessons --dir ${FIXTURES}/mixed)
expect_cli(1 "${FIXTURES}/malformed/01-missing-id.md:4: front matter has no 'id:'" MULTILINE
           ARGS lessons --dir ${FIXTURES}/malformed)
expect_cli(1 "${FIXTURES}/malformed/02-unknown-scene.md:4: unknown scene 'hologram'" MULTILINE
           ARGS lessons --dir ${FIXTURES}/malformed)
expect_cli(1 "${FIXTURES}/malformed/03-bad-knob.md:13: knob 'swizzle' value '96B'" MULTILINE
           ARGS lessons --dir ${FIXTURES}/malformed)
string(REGEX MATCHALL "\n" lines "${last_stderr}")
list(LENGTH lines count)
if(NOT count EQUAL 3)
  message(FATAL_ERROR "expected 3 error lines for the malformed folder, got ${count}:\n${last_stderr}")
endif()

# Bad input: exit 2, one line.
expect_cli(2 "does not exist" ARGS lessons --dir ${FIXTURES}/no-such-folder)
expect_cli(2 "no lesson files" ARGS lessons --dir ${FIXTURES})

# Exercise results: every attempt of the files as JSON, per student and exercise a tally.
set(RESULTS ${FIXTURES}/../results)
expect_cli(0 "\"first_right_attempt\": 2" ARGS lessons --results --results-file ${RESULTS}/ada.jsonl)
expect_cli(0 "\"student\": \"ada\"" ENV TILESCOPE_RESULTS=${RESULTS}/ada.jsonl ARGS lessons --results)
# A line that is not an attempt: file:line on stderr, exit 1, the good attempts still exported.
expect_cli(1 "bob.jsonl:2: not an attempt" MULTILINE
           ARGS lessons --results --results-file ${RESULTS}/ada.jsonl --results-file ${RESULTS}/bob.jsonl)
string(FIND "${last_stdout}" "\"student\": \"bob\"" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the export lacks bob's good attempt:\n${last_stdout}")
endif()
expect_cli(2 "--results-file needs --results" ARGS lessons --results-file ${RESULTS}/ada.jsonl)

# The answer key: every exercise's question and key for a seed; the same seed, the same question.
expect_cli(0 "memory-roofline step 8, gemm-intensity, seed 7" ARGS lessons --key --seed 7 --dir ${LESSONS})
expect_cli(0 "key: " ARGS lessons --key --dir ${LESSONS})
expect_cli(2 "--seed needs --key" ARGS lessons --seed 3)
expect_cli(0 "student,solved,memory-roofline/8 gemm-intensity" ARGS lessons --results --csv --results-file ${RESULTS}/ada.jsonl --dir ${LESSONS})
expect_cli(2 "--csv needs --results" ARGS lessons --csv)

# --sim-timing times each step's simulations, the attention scenes' runs too (one lesson here: the
# whole folder replays a 16384^3 GEMM).
set(ONE_LESSON ${CMAKE_CURRENT_BINARY_DIR}/sim-timing-lessons)
file(REMOVE_RECURSE ${ONE_LESSON})
file(COPY ${LESSONS}/14-overlap-softmax.md ${LESSONS}/glossary.md DESTINATION ${ONE_LESSON})
expect_cli(0 "attention B1 Hq4 Hkv4 N1024 D64 fwd c3 overlap 1" ARGS lessons --dir ${ONE_LESSON} --sim-timing)
expect_cli(0 "distinct quick configurations" ARGS lessons --dir ${ONE_LESSON} --sim-timing)
file(REMOVE_RECURSE ${ONE_LESSON})
# A broken file is named as in the listing, and the run exits 1.
expect_cli(1 "${FIXTURES}/mixed/02-broken.md:8: the 16x16 subtile" MULTILINE ARGS lessons --dir ${FIXTURES}/mixed --sim-timing)
