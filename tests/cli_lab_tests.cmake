# `tilescope lab`: the labs' solutions pass, their starters fail usefully, and planted failures of
# every kind give their report and exit status. Invoked by CTest:
#   cmake -DTILESCOPE=<binary> -DLABS=<labs/> -DWORK=<scratch folder> -P cli_lab_tests.cmake
# Each lab file is compiled once (the solution's check also fills the reference cache its starter
# uses): 2 compiles per lab, plus 6 planted files.
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(env ENV XDG_CACHE_HOME=${WORK}/cache)

expect_cli(0 "1. tma-copy: A tile through shared memory by TMA" ARGS lab list --labs-dir ${LABS})
expect_cli(2 "no lab 'no-such-lab'" ARGS lab check no-such-lab --labs-dir ${LABS})

# A student's work is never overwritten.
expect_cli(0 "wrote ${WORK}/student/tma-copy.cpp" ARGS lab start tma-copy --labs-dir ${LABS} --dir ${WORK}/student)
file(APPEND ${WORK}/student/tma-copy.cpp "// the student's edit\n")
expect_cli(2 "exists: your work is not overwritten" ARGS lab start tma-copy --labs-dir ${LABS} --dir ${WORK}/student)
file(READ ${WORK}/student/tma-copy.cpp kept)
if(NOT kept MATCHES "the student's edit")
  message(FATAL_ERROR "lab start replaced the student's file")
endif()

# Every lab: the solution passes (and meets the target), the starter compiles and fails with a
# message that says why. STARTER_<id> is the starter's expected status and text.
set(STARTER_tma-copy 1 "hint      NaN in the output")
set(STARTER_swizzle-banks 7 "MISSED")
set(STARTER_warp-mma 1 "hint      All zeros?")
set(STARTER_pipelined-gemm 7 "MISSED")
set(STARTER_warp-specialization 5 "deadlock during functional K=192 M=128 N=128: deadlock in block 0")
set(STARTER_fused-epilogue 1 "hint      Negative values in the output?")
set(STARTER_softmax-rows 1 "hint      Got back the input, or NaN?")
set(STARTER_online-softmax 1 "hint      Right with one block of keys")
file(GLOB lab_specs ${LABS}/*/lab.json)
foreach(spec ${lab_specs})
  get_filename_component(dir ${spec} DIRECTORY)
  get_filename_component(id ${dir} NAME)
  if(NOT DEFINED STARTER_${id})
    message(FATAL_ERROR "lab ${id} has no starter expectation in cli_lab_tests.cmake")
  endif()
  expect_cli(0 "result    PASS" ${env} ARGS lab check ${id} --labs-dir ${LABS} --file ${dir}/solution.cpp)
  if(last_stdout MATCHES "MISSED")
    message(FATAL_ERROR "lab ${id}: the solution misses its own target:\n${last_stdout}")
  endif()
  set(timed ON)
  if(last_stdout MATCHES "time      not simulated")  # an op trace mode cannot record yet (warp-mma)
    set(timed OFF)
  endif()
  list(GET STARTER_${id} 0 rc)
  list(GET STARTER_${id} 1 text)
  expect_cli(${rc} "${text}" ${env} ARGS lab check ${id} --labs-dir ${LABS} --file ${dir}/starter.cpp)
  # A starter that runs to the end is timed beside the solution (one that deadlocks is not timed).
  if(NOT last_stdout MATCHES "compile   ok" OR
     (timed AND last_stdout MATCHES "time      simulated" AND NOT last_stdout MATCHES "reference solution"))
    message(FATAL_ERROR "lab ${id}: the starter's report lacks the compile line or the reference's time:\n${last_stdout}")
  endif()
endforeach()

# Planted failures, each made from the tma-copy solution by one edit.
file(READ ${LABS}/tma-copy/solution.cpp solution)
function(plant name from to)
  string(FIND "${solution}" "${from}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "cli_lab_tests: the tma-copy solution no longer has '${from}' to plant ${name} in")
  endif()
  string(REPLACE "${from}" "${to}" text "${solution}")
  file(WRITE ${WORK}/planted/${name}.cpp "${text}")
endfunction()
plant(crash "    init(s.full, 1);\n"
      "    if (block_index() == 1) *reinterpret_cast<volatile int*>(static_cast<std::uintptr_t>(g.tiles_n) * 0 + 64) = 1;\n    init(s.full, 1);\n")
plant(deadlock "    expect_bytes(s.full, tile::bytes);\n" "")
plant(wrong "tma::store_async(g.out, s.t, {0, 0, tile_row, tile_col});" "tma::store_async(g.out, s.t, {0, 0, tile_col, tile_row});")
plant(compile "wait(s.full, 0);" "wait(s.full);")
# The warp's lanes all issue what one lane should: passes on a CPU warp, miscounts on the GPU.
plant(no-elect "    if (elect_one()) {\n      expect_bytes" "    {\n      expect_bytes")
plant(endless "    wait(s.full, 0);\n" "    wait(s.full, 0);\n    for (volatile unsigned spin = 0;; spin = spin + 1) {\n    }\n")  # (unsigned: no overflow for UBSan to stop)
set(check lab check tma-copy --labs-dir ${LABS} --no-reference --file ${WORK}/planted)
expect_cli(4 "the kernel crashed during functional M=128 N=128: SIG" ${env} ARGS ${check}/crash.cpp)
expect_cli(5 "1 of 1 arrivals missing" ${env} ARGS ${check}/deadlock.cpp)
expect_cli(1 "the first is y[0][64] (tile 0,1 of 64x64, at 0,0 in it)" ${env} ARGS ${check}/wrong.cpp)
expect_cli(8 "expect_bytes by the whole warp (block 0 warp 0): on the GPU each of its 32 lanes would do it" ${env}
           ARGS ${check}/no-elect.cpp)
expect_cli(3 "compile   FAILED" ${env} ARGS ${check}/compile.cpp)
if(NOT last_stdout MATCHES "compile.cpp:[0-9]+:[0-9]+: error:")
  message(FATAL_ERROR "the compile error does not name the student's file and line:\n${last_stdout}")
endif()
expect_cli(6 "stopped after the lab's time limit of 2 s during functional M=128 N=128" ${env}
           ARGS ${check}/endless.cpp --time-limit 2)

# --json: for grading.
expect_cli(1 "\"status\": \"wrong\"" ${env} ARGS ${check}/wrong.cpp --json)
string(JSON first_row GET "${last_stdout}" checks 0 first row)
string(JSON passed GET "${last_stdout}" passed)
if(NOT first_row EQUAL 0 OR NOT passed STREQUAL "OFF")
  message(FATAL_ERROR "lab check --json: unexpected result:\n${last_stdout}")
endif()

# --gpu where it cannot run (no GPU here, or a build without nvcc): one line on stderr says why, and
# the CPU check's report and exit status stand; --json says so in its "gpu" object.
if(NOT EXISTS /dev/nvidia0)
  expect_cli(1 "tilescope: --gpu: " ${env} ARGS ${check}/wrong.cpp --gpu)
  if(NOT last_stdout MATCHES "WRONG     M=128 N=128" OR NOT last_stderr MATCHES "the check ran on the CPU only")
    message(FATAL_ERROR "lab check --gpu without a GPU:\nstdout: ${last_stdout}\nstderr: ${last_stderr}")
  endif()
  expect_cli(1 "\"status\": \"wrong\"" ${env} ARGS ${check}/wrong.cpp --gpu --json)
  string(JSON gpu_ran GET "${last_stdout}" gpu ran)
  string(JSON gpu_why GET "${last_stdout}" gpu unavailable)
  if(NOT gpu_ran STREQUAL "OFF" OR gpu_why STREQUAL "")
    message(FATAL_ERROR "lab check --gpu --json without a GPU: unexpected gpu object:\n${last_stdout}")
  endif()
endif()

# A broken lab.json names its file and line; the other labs are still listed.
file(COPY ${LABS}/tma-copy DESTINATION ${WORK}/labs)
file(COPY ${LABS}/tma-copy/ DESTINATION ${WORK}/labs/broken)
file(READ ${WORK}/labs/broken/lab.json broken)
string(REPLACE "\"reference\": \"copy\"" "\"reference\": \"teleport\"" broken "${broken}")
file(WRITE ${WORK}/labs/broken/lab.json "${broken}")
expect_cli(1 "labs/broken/lab.json:10: unknown reference function 'teleport'" MULTILINE ARGS lab list --labs-dir ${WORK}/labs)
if(NOT last_stdout MATCHES "1. tma-copy")
  message(FATAL_ERROR "lab list dropped the good lab next to a broken one:\n${last_stdout}")
endif()
