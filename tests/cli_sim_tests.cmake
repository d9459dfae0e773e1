# `tilescope sim` and `tilescope compare` as a user runs them. Invoked by CTest with
# -DTILESCOPE=<binary> -DWORK=<scratch dir> -DDATA=<data dir>.
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)
file(MAKE_DIRECTORY ${WORK})

expect_cli(0 "predicted time" ARGS sim gemm --m 512 --n 512 --k 256)
expect_cli(0 "\"hbm_read_bytes\"" ARGS sim gemm --m 512 --n 512 --k 256 --json)
expect_cli(0 "\"clock_mhz\": 1380" ARGS sim gemm --m 512 --n 512 --k 256 --json)
expect_cli(0 "M ops/s" ARGS sim gemm --m 512 --n 512 --k 256 --stats --order row --persistent off --stages 2)
expect_cli(0 "predicted time" ARGS sim gemm --m 512 --n 512 --k 256 --machine ${DATA}/machines/h200.json)
expect_cli(0 "at 1980 MHz" ARGS sim gemm --m 512 --n 512 --k 256 --clock boost)
expect_cli(0 "at 1500 MHz" ARGS sim gemm --m 512 --n 512 --k 256 --clock 1500)
expect_cli(0 "predicted time" ARGS sim gemm --m 512 --n 512 --k 256 --timeline ${WORK}/timeline.json)
file(READ ${WORK}/timeline.json timeline)
string(FIND "${timeline}" "\"traceEvents\"" at)
if(at EQUAL -1)
  message(FATAL_ERROR "--timeline wrote no Chrome trace: ${timeline}")
endif()

expect_cli(2 "unknown kernel" ARGS sim fft)

# Attention from its own sources: forward, backward (three launches), tails, GQA, the knobs.
expect_cli(0 "forward on" ARGS sim attention --b 1 --h 2 --n 512 --d 64)
expect_cli(0 "causal backward" ARGS sim attention --b 1 --h 2 --n 300 --d 64 --causal --bwd)
expect_cli(0 "\"sfu\"" ARGS sim attention --b 1 --h 4 --hkv 2 --n 256 --d 128 --json)
expect_cli(0 "sub-partition 3" ARGS sim attention --b 1 --h 2 --n 256 --d 64 --consumers 2 --overlap 1 --stats)
expect_cli(2 "head dimension must be 64 or 128" ARGS sim attention --n 512 --d 80)
expect_cli(2 "multiple of key/value heads" ARGS sim attention --h 3 --hkv 2 --n 512)
expect_cli(2 "knobs of the attention forward" ARGS sim attention --n 512 --bwd --consumers 3)
file(WRITE ${WORK}/attention.json [=[{"kernel": "attention", "device": "test", "date": "today", "rows": [
  {"group": "t", "pass": "fwd", "b": 1, "h_q": 2, "h_kv": 2, "n": 512, "d": 64, "causal": false, "tflops": 100, "sm_clock_mhz": 1700},
  {"group": "t", "pass": "bwd", "b": 1, "h_q": 2, "h_kv": 2, "n": 512, "d": 64, "causal": true, "tflops": 50, "sm_clock_mhz": 1700}]}]=])
expect_cli(0 "MAPE" ARGS compare --measured ${WORK}/attention.json)
file(WRITE ${WORK}/attention-bad.json [=[{"kernel": "attention", "rows": [{"pass": "fwd", "b": 1}]}]=])
expect_cli(2 "attention-bad.json" ARGS compare --measured ${WORK}/attention-bad.json)
expect_cli(2 "whole tiles" ARGS sim gemm --m 1000 --n 512 --k 256)
expect_cli(2 "unknown order" ARGS sim gemm --order diagonal)
expect_cli(2 "on or off" ARGS sim gemm --persistent maybe)
expect_cli(2 "stages" ARGS sim gemm --stages 7)
expect_cli(2 "--clock takes" ARGS sim gemm --clock fast)
expect_cli(2 "--clock takes" ARGS sim gemm --clock 15)

# Machine files with a missing and a negative field.
file(READ ${DATA}/machines/h100-sxm.json machine)
string(JSON missing REMOVE "${machine}" parameters sm_count)
file(WRITE ${WORK}/missing.json "${missing}")
expect_cli(2 "sm_count" ARGS sim gemm --m 512 --n 512 --k 256 --machine ${WORK}/missing.json)
string(JSON negative SET "${machine}" parameters hbm_bandwidth value -3)
file(WRITE ${WORK}/negative.json "${negative}")
expect_cli(2 "hbm_bandwidth" ARGS sim gemm --m 512 --n 512 --k 256 --machine ${WORK}/negative.json)
expect_cli(2 "cannot read" ARGS compare --measured ${WORK}/nothing-here.json)
