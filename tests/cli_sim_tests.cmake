# `tilescope sim` and `tilescope compare` as a user runs them. Invoked by CTest with
# -DTILESCOPE=<binary> -DWORK=<scratch dir> -DDATA=<data dir>.
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)
file(MAKE_DIRECTORY ${WORK})

expect_cli(0 "predicted time" ARGS sim gemm --m 512 --n 512 --k 256)
expect_cli(0 "\"hbm_read_bytes\"" ARGS sim gemm --m 512 --n 512 --k 256 --json)
expect_cli(0 "M ops/s" ARGS sim gemm --m 512 --n 512 --k 256 --stats --order row --persistent off --stages 2)
expect_cli(0 "predicted time" ARGS sim gemm --m 512 --n 512 --k 256 --machine ${DATA}/machines/h200.json)
expect_cli(0 "predicted time" ARGS sim gemm --m 512 --n 512 --k 256 --timeline ${WORK}/timeline.json)
file(READ ${WORK}/timeline.json timeline)
string(FIND "${timeline}" "\"traceEvents\"" at)
if(at EQUAL -1)
  message(FATAL_ERROR "--timeline wrote no Chrome trace: ${timeline}")
endif()

expect_cli(2 "unknown kernel" ARGS sim attention)
expect_cli(2 "whole tiles" ARGS sim gemm --m 1000 --n 512 --k 256)
expect_cli(2 "unknown order" ARGS sim gemm --order diagonal)
expect_cli(2 "on or off" ARGS sim gemm --persistent maybe)
expect_cli(2 "stages" ARGS sim gemm --stages 7)

# Machine files with a missing and a negative field.
file(READ ${DATA}/machines/h100-sxm.json machine)
string(JSON missing REMOVE "${machine}" parameters sm_count)
file(WRITE ${WORK}/missing.json "${missing}")
expect_cli(2 "sm_count" ARGS sim gemm --m 512 --n 512 --k 256 --machine ${WORK}/missing.json)
string(JSON negative SET "${machine}" parameters hbm_bandwidth value -3)
file(WRITE ${WORK}/negative.json "${negative}")
expect_cli(2 "hbm_bandwidth" ARGS sim gemm --m 512 --n 512 --k 256 --machine ${WORK}/negative.json)
expect_cli(2 "cannot read" ARGS compare --measured ${WORK}/nothing-here.json)
