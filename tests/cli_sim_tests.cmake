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
# Clusters of 2 (B by multicast), simulated from the same source.
expect_cli(0 "persistent cluster 2" ARGS sim gemm --m 512 --n 512 --k 256 --cluster 2)
expect_cli(2 "cluster must be 1 or 2" ARGS sim gemm --m 512 --n 512 --k 256 --cluster 3)
# Split-K: the GEMM and the sum of its K ranges, two launches; the TFLOPS are the GEMM's 2 M N K.
expect_cli(0 "split-k 4" ARGS sim gemm --m 256 --n 256 --k 2048 --split-k 4)
expect_cli(0 "\"flops\": 268435456.0" ARGS sim gemm --m 256 --n 256 --k 2048 --split-k 4 --json)
expect_cli(2 "split_k must be 1..64" ARGS sim gemm --m 256 --n 256 --k 2048 --split-k 65)

# Attention from its own sources: forward, backward (three launches), tails, GQA, the knobs.
expect_cli(0 "forward on" ARGS sim attention --b 1 --h 2 --n 512 --d 64)
expect_cli(0 "causal backward" ARGS sim attention --b 1 --h 2 --n 300 --d 64 --causal --bwd)
# Each of the backward's launches on a line of its own, and one of them alone.
expect_cli(0 "launch backward dq " ARGS sim attention --b 1 --h 2 --n 300 --d 64 --bwd)
expect_cli(0 "\"name\": \"backward prep\"" ARGS sim attention --b 1 --h 2 --n 300 --d 64 --bwd --json)
expect_cli(0 "backward on" ARGS sim attention --b 1 --h 2 --n 300 --d 64 --bwd --launch "backward dq")
expect_cli(2 "has no launch named 'main'" ARGS sim attention --b 1 --h 2 --n 300 --d 64 --bwd --launch main)
expect_cli(0 "\"sfu\"" ARGS sim attention --b 1 --h 4 --hkv 2 --n 256 --d 128 --json)
expect_cli(0 "sub-partition 3" ARGS sim attention --b 1 --h 2 --n 256 --d 64 --consumers 2 --overlap 1 --stats)
expect_cli(2 "head dimension must be 64 or 128" ARGS sim attention --n 512 --d 80)
expect_cli(2 "multiple of key/value heads" ARGS sim attention --h 3 --hkv 2 --n 512)
expect_cli(2 "knobs of the attention forward" ARGS sim attention --n 512 --bwd --consumers 3)
expect_cli(2 "knobs of the attention forward" ARGS sim attention --n 512 --bwd --persistent on)
expect_cli(2 "on or off" ARGS sim attention --n 512 --persistent maybe)
# 64 heads x 6 query blocks: persistent (one block per SM), with a causal mask too (its schedule);
# a block per tile when asked.
expect_cli(0 "132 blocks, 1 per SM" ARGS sim attention --b 4 --h 16 --n 1024 --d 64)
expect_cli(0 "384 blocks" ARGS sim attention --b 4 --h 16 --n 1024 --d 64 --persistent off)
expect_cli(0 "132 blocks, 1 per SM" ARGS sim attention --b 4 --h 16 --n 1024 --d 64 --causal)
expect_cli(0 "384 blocks" ARGS sim attention --b 4 --h 16 --n 1024 --d 64 --causal --persistent off)
file(WRITE ${WORK}/attention.json [=[{"kernel": "attention", "device": "test", "date": "today", "rows": [
  {"group": "t", "pass": "fwd", "b": 1, "h_q": 2, "h_kv": 2, "n": 512, "d": 64, "causal": false, "tflops": 100, "sm_clock_mhz": 1700},
  {"group": "t", "pass": "bwd", "b": 1, "h_q": 2, "h_kv": 2, "n": 512, "d": 64, "causal": true, "tflops": 50, "sm_clock_mhz": 1700}]}]=])
expect_cli(0 "MAPE" ARGS compare --measured ${WORK}/attention.json)
if(last_stdout MATCHES "\\(!\\)")
  message(FATAL_ERROR "compare flagged a row below the peak at its clock:\n${last_stdout}")
endif()
# A row faster than the tensor cores' peak at its recorded clock (at 500 MHz: 989.4 x 500 / 1830 =
# 270 TFLOPS) is flagged: the clock reading, not only the model, is off.
file(WRITE ${WORK}/attention-fast.json [=[{"kernel": "attention", "device": "test", "date": "today", "rows": [
  {"group": "t", "pass": "fwd", "b": 1, "h_q": 2, "h_kv": 2, "n": 512, "d": 64, "causal": false, "tflops": 300, "sm_clock_mhz": 500}]}]=])
expect_cli(0 "1 row measured faster than the tensor cores' peak at the SM clock recorded" ARGS compare --measured ${WORK}/attention-fast.json)
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

# Long simulations (deliverable 6 of issue 14). A run that would take hours is refused up front,
# naming its op count, its time and the flag that insists; shapes past the kernels' 32-bit tile and
# block indices are one clear line; a normal size needs no --force and a fast run draws no progress.
expect_cli(2 "add --force" ARGS sim gemm --m 1048576 --n 1048576 --k 64)
string(REGEX MATCH "would replay (about|more than) [0-9.]+ (million|billion|trillion) ops: (about|more than) [0-9.]+ (s|min|h|days)"
       said "${last_stderr}")
if(NOT said)
  message(FATAL_ERROR "the refusal names no op count and time: ${last_stderr}")
endif()
# A block per tile: every block's ops are counted, an estimate in days. Persistent (the default
# without a mask), the 132 long blocks are cut short: a lower bound, refused all the same.
expect_cli(2 "days at the simulator's" ARGS sim attention --b 64 --h 64 --n 1048576 --d 128 --persistent off)
expect_cli(2 "would replay more than" ARGS sim attention --b 64 --h 64 --n 1048576 --d 128)
expect_cli(2 "32-bit index" ARGS sim gemm --m 100000000 --n 100000000 --k 64)
expect_cli(2 "32-bit index" ARGS sim attention --b 1048576 --h 2047 --n 4096 --d 64)
expect_cli(2 "32-bit index" ARGS sim attention --b 1048576 --h 2047 --n 4096 --d 64 --bwd)
expect_cli(2 "there is no folder" ARGS sim gemm --m 512 --n 512 --k 256 --timeline ${WORK}/no-such-folder/t.json)
expect_cli(0 "predicted time" ARGS sim gemm --m 2048 --n 2048 --k 2048)
# (Under the sanitizers this run takes seconds and rightly shows its progress: a time budget, left
# to the normal build.)
if(NOT last_stderr STREQUAL "" AND NOT SANITIZED)
  message(FATAL_ERROR "a fast run wrote to stderr: ${last_stderr}")
endif()

# Ctrl-C: SIGINT after 5 s of a run that takes longer (the progress line is drawn from 2 s on):
# exit status 130, one line naming the blocks done, no --timeline file. (At 3 s a CI run on two busy
# cores once had no progress line yet: the run had not reached its first report.)
find_program(TIMEOUT timeout)
# Under the sanitizers a run starts slower, so the Ctrl-C waits longer for the progress line.
set(ctrl_c 5)
if(SANITIZED)
  set(ctrl_c 10)
endif()
if(TIMEOUT)
  file(REMOVE ${WORK}/stopped.json)
  execute_process(COMMAND ${TIMEOUT} --preserve-status -s INT ${ctrl_c} ${TILESCOPE} sim gemm --m 16384 --n 16384 --k 16384
                          --timeline ${WORK}/stopped.json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 130)
    message(FATAL_ERROR "Ctrl-C: exit ${rc}, expected 130\nstdout: ${out}\nstderr: ${err}")
  endif()
  if(NOT err MATCHES "\rsim: [0-9]+ of [0-9]+ blocks, [0-9]+ % of ~[0-9.]+ (million|billion) ops, [0-9.]+ s so far, ~[0-9.]+ (s|min|h) left")
    message(FATAL_ERROR "Ctrl-C: no progress line before it: ${err}")
  endif()
  if(NOT err MATCHES "\ntilescope: simulation stopped by Ctrl-C after [0-9]+ of [0-9]+ blocks\n$")
    message(FATAL_ERROR "Ctrl-C: not one line on a line of its own after the progress line: ${err}")
  endif()
  if(EXISTS ${WORK}/stopped.json)
    message(FATAL_ERROR "Ctrl-C: a stopped run wrote its --timeline")
  endif()
  # --force runs what would be refused (until the Ctrl-C). A Ctrl-C one second in came before the
  # handler was installed on a loaded 2-core machine (exit 130 with no word), so it waits as long as
  # the one above.
  execute_process(COMMAND ${TIMEOUT} --preserve-status -s INT ${ctrl_c} ${TILESCOPE} sim gemm --m 1048576 --n 1048576 --k 64 --force
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 130 OR NOT err MATCHES "stopped by Ctrl-C after")
    message(FATAL_ERROR "--force: exit ${rc}, expected 130 from the Ctrl-C that stops it\nstderr: ${err}")
  endif()
  # compare: its rows (each several seconds) run on several threads, all stopped.
  file(WRITE ${WORK}/attention-long.json [=[{"kernel": "attention", "rows": [
    {"pass": "bwd", "b": 1, "h_q": 16, "h_kv": 16, "n": 16384, "d": 64, "causal": false, "tflops": 300},
    {"pass": "bwd", "b": 1, "h_q": 16, "h_kv": 16, "n": 16384, "d": 128, "causal": false, "tflops": 400},
    {"pass": "fwd", "b": 1, "h_q": 16, "h_kv": 16, "n": 16384, "d": 128, "causal": false, "tflops": 600}]}]=])
  execute_process(COMMAND ${TIMEOUT} --preserve-status -s INT ${ctrl_c} ${TILESCOPE} compare --measured ${WORK}/attention-long.json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 130 OR NOT err MATCHES "\rcompare: [0-9] of 3 rows simulated, [0-9]+ % of"
     OR NOT err MATCHES "\ntilescope: simulation stopped by Ctrl-C after [0-9] of 3 rows\n$" OR NOT out STREQUAL "")
    message(FATAL_ERROR "compare, Ctrl-C: exit ${rc}, expected 130, a progress line and one line after it, no table\nstdout: ${out}\nstderr: ${err}")
  endif()
endif()

# compare --counters: Nsight Compute's counters of one launch beside the simulation of the same
# configuration, from the text of ncu --print-units base (one launch of three picked by --kernel)
# and from the CSV of ncu --csv --page raw.
set(NCU ${CMAKE_CURRENT_LIST_DIR}/fixtures/ncu)
expect_cli(0 "shared load bank conflicts" ARGS compare --counters ${NCU}/attention-bwd-b1h2n512d64.txt --kernel "attention_bwd<"
           attention --h 2 --n 512 --d 64 --bwd)
foreach(line "launch 'backward' on" "F2FP" "smsp__inst_executed_pipe_xu.sum" "shared store instructions (st.shared)" "stmatrix instructions"
             "at 1750 MHz")
  string(FIND "${last_stdout}" "${line}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "compare --counters (text) lacks '${line}':\n${last_stdout}")
  endif()
endforeach()
expect_cli(0 "lts__t_sector_hit_rate.pct" ARGS compare --counters ${NCU}/gemm-512x512x256.csv gemm --m 512 --n 512 --k 256)
foreach(line "DRAM bytes read" "shared store wavefronts" "at 1800 MHz" "not in the file")
  string(FIND "${last_stdout}" "${line}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "compare --counters (CSV) lacks '${line}':\n${last_stdout}")
  endif()
endforeach()
expect_cli(0 "at 1500 MHz (--clock)" ARGS compare --counters ${NCU}/gemm-512x512x256.csv --clock 1500 gemm --m 512 --n 512 --k 256)
# Nsight Compute times the kernel's own run: the launch latency of a timed lone launch, which `sim`
# adds, is not in the simulated cycles beside its counters (a machine without it simulates the same).
file(READ ${DATA}/machines/h100-sxm.json machine_json)
string(JSON machine_json SET "${machine_json}" parameters launch_latency_timed value 0)
file(WRITE ${WORK}/no-launch-latency.json "${machine_json}")
string(REGEX MATCH "\nSM cycles [^\n]*" with_latency "${last_stdout}")
expect_cli(0 "at 1500 MHz (--clock)" ARGS compare --counters ${NCU}/gemm-512x512x256.csv --clock 1500 --machine ${WORK}/no-launch-latency.json
           gemm --m 512 --n 512 --k 256)
string(REGEX MATCH "\nSM cycles [^\n]*" without_latency "${last_stdout}")
if(with_latency STREQUAL "" OR NOT with_latency STREQUAL without_latency)
  message(FATAL_ERROR "compare --counters: the simulated SM cycles depend on the launch latency:\n${with_latency}\n${without_latency}")
endif()
expect_cli(0 "cycles" ARGS sim gemm --m 512 --n 512 --k 256 --clock 1500 --json)
set(sim_with "${last_stdout}")
expect_cli(0 "cycles" ARGS sim gemm --m 512 --n 512 --k 256 --clock 1500 --json --machine ${WORK}/no-launch-latency.json)
if(sim_with STREQUAL last_stdout)
  message(FATAL_ERROR "sim --json: the launch latency changed nothing, so the check above proves nothing")
endif()
expect_cli(2 "two different comparisons" ARGS compare --counters ${NCU}/gemm-512x512x256.csv --measured ${WORK}/attention.json gemm)
expect_cli(2 "pick one with --kernel" ARGS compare --counters ${NCU}/attention-bwd-b1h2n512d64.txt attention --h 2 --n 512 --d 64 --bwd)
expect_cli(2 "is not attention_fwd's" ARGS compare --counters ${NCU}/attention-bwd-b1h2n512d64.txt --kernel bwd_dq attention --n 512)
expect_cli(2 "needs the configuration" ARGS compare --counters ${NCU}/gemm-512x512x256.csv)
expect_cli(2 "go with --counters" ARGS compare gemm --m 512)
expect_cli(2 "no kernel launch" ARGS compare --counters ${DATA}/machines/h100-sxm.json gemm)
expect_cli(2 "add --force" ARGS compare --counters ${NCU}/gemm-512x512x256.csv gemm --m 1048576 --n 1048576 --k 64)
