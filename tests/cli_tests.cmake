# Runs the tilescope binary as a user would and checks exit codes and messages.
# Invoked by CTest: cmake -DTILESCOPE=<path> -P cli_tests.cmake
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)

set(stride8 "0,8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128,136,144,152,160,168,176,184,192,200,208,216,224,232,240,248")
set(zeros "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0")
set(ldsm_plain "0,128,256,384,512,640,768,896,1024,1152,1280,1408,1536,1664,1792,1920,16,144,272,400,528,656,784,912,1040,1168,1296,1424,1552,1680,1808,1936")

expect_cli(0 "wavefronts 2 conflicts 1" ARGS banks --op ld32 --lanes ${stride8})
expect_cli(0 "wavefronts 1 conflicts 0" ARGS banks --op ld32 --lanes ${zeros})
expect_cli(0 "wavefronts 32 conflicts 28" ARGS banks --op ldsm4 --lanes ${ldsm_plain})
expect_cli(0 "\"wavefronts\":32" ARGS banks --op ldsm4 --lanes ${ldsm_plain} --json)
expect_cli(2 "expected 32 lane offsets" ARGS banks --op ld32 --lanes 0,4,8)
expect_cli(2 "unknown op" ARGS banks --op ld256 --lanes ${zeros})
expect_cli(2 "not a non-negative" ARGS banks --op ld32 --lanes "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,abc")
expect_cli(2 "not aligned" ARGS banks --op ld64 --lanes "4,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0")
expect_cli(2 "--lanes" ARGS banks --op ld32)
# The banks scene's form, drawn as text: the same tile, access and phase as a lesson step.
expect_cli(0 "wavefronts 32, conflicts 28 (ideal 4)" ARGS banks --tile bf16:16x64 --swizzle none --access ldsm4 --at 0,0 --phase 0)
expect_cli(0 "[ 0]" ARGS banks --tile bf16:16x64 --access ldsm4)
expect_cli(0 "wavefronts 4, conflicts 0 (ideal 4)" ARGS banks --tile bf16:16x64 --swizzle 128B --access ldsm4 --at 0,0 --phase 1)
expect_cli(0 "\"conflicts\":0" ARGS banks --tile bf16:32x64 --swizzle 128B --access col128 --json)
expect_cli(2 "does not fit a 16x64 tile" ARGS banks --tile bf16:16x64 --access ldsm4 --at 8,0)
expect_cli(2 "is not DTYPE:ROWSxCOLS" ARGS banks --tile 16x64)
expect_cli(2 "knob 'swizzle' value '96B'" ARGS banks --tile bf16:16x64 --swizzle 96B)
expect_cli(2 "either --tile" ARGS banks --tile bf16:16x64 --op ld32 --lanes 0)
expect_cli(2 "nosuchverb" ARGS nosuchverb)
expect_cli(0 "banks" ARGS --help)
# calibrate: no CUDA in the build, no GPU, or (on a GPU) an unknown machine file: one line, exit 2,
# and never a measurement (so this test cannot rewrite data/machines on a GPU machine).
expect_cli(2 "calibrate" ARGS calibrate --machine-id no-such-machine)
expect_cli(0 "--machine-id" ARGS calibrate --help)
expect_cli(2 "unknown sweep" ARGS bench gemm --only everything)
# bench on a machine that cannot run our kernels (CI: no GPU; or a build without CUDA): one line
# that says what is missing, exit 2; never the CUDA runtime's word about the driver.
expect_cli(2 "needs" ARGS bench gemm --m 256 --n 256 --k 64)
expect_cli(2 "needs" ARGS bench attention --n 256 --d 64 --timeline-measured never-written.json)
expect_cli(2 "--record-blocks takes FIRST:STRIDE:COUNT" ARGS bench gemm --timeline-measured t.json --record-blocks 3)
expect_cli(2 "go with --timeline-measured" ARGS bench gemm --record-blocks 0:1:1)
expect_cli(2 "go with --timeline-measured" ARGS bench gemm --record-warps leaders)
expect_cli(2 "--record-warps takes all, leaders, or warp numbers" ARGS bench gemm --timeline-measured t.json --record-warps 0,x)
expect_cli(2 "--record-warps takes all, leaders, or warp numbers" ARGS bench gemm --timeline-measured t.json --record-warps 32)
expect_cli(2 "not both" ARGS bench gemm --quick --m 512)
