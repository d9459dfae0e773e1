// HBM's rate for the GEMM's operand streams when they miss the L2 (the memory group of `tilescope
// calibrate`). The simulator charges a missed box the copy's rate (hbm_bandwidth_measured) when its
// rows are one run of bytes or continue the rows of the box its SM read just before, and
// hbm_bandwidth_scattered when it starts short rows of its own (sim/engine_memory.cpp): a GEMM's A
// boxes are 128 bytes of each of 64 rows 32 KB apart, a B slice is four such boxes side by side.
// Under the col-major block order, whose misses are mostly A, the H100 moved 2.2-2.7 TB/s, under
// row-major (mostly B) 2.9-3.0 (data/measured/h100/gemm-dram-orders/). The first H100 run refuted the
// "continue" half (data/measured/h100/hbm-box-streams.txt): all three figures stay extras.
//
// One block per 128 rows of a dim x dim bf16 matrix (16384^2, row pitch 32 KB, as A and B of the
// 16384^3 GEMM; 4096^2 with --quick), one thread each, streaming its own share once through 8 KB TMA
// boxes (64 x 64 bf16, 128-byte swizzle), 24 in flight (the GEMM's 4 stages of 6 boxes), the L2
// flushed before each run:
//   A rows: block s walks rows 128 s .. 128 s + 127 along the columns, two boxes (one above the
//           other) a k-step (hbm_bandwidth_scattered);
//   B cols: block s walks 256 columns down half the rows, four boxes side by side a k-step;
//   linear: block s reads its own consecutive boxes of consecutive addresses (the matrix seen 64
//           columns wide).
// The rule's check, not fitted: B cols = 4 / (1/S + 3/L) with S the A rows' rate and L the linear
// boxes' (data/measured/h100/hbm-pattern-prediction.txt).
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/calibrate/calibrate_common.cuh"
#include "tiles/tiles.hpp"

namespace ts::kernels::calibrate::detail {

namespace {

using HbmBox = st<bf16, 64, 64>;
static_assert(HbmBox::bytes == 8192, "8 KB boxes");
constexpr int kHbmDepth = 24;

struct HbmRing {
  HbmBox box[kHbmDepth];
  barrier full[kHbmDepth];
};

enum HbmPattern { a_rows, b_cols, linear };

// Box i of block s, as tile coordinates of its map: {row tile, column tile}. `dim`: the matrix side.
__device__ inline void hbm_box_of(HbmPattern p, int dim, int boxes_per_block, int s, int i, int& row, int& col) {
  const int strips = dim / 256;  // B's 256-column strips; blocks beyond them take the lower half of the rows
  if (p == a_rows) row = 2 * s + i % 2, col = i / 2;
  else if (p == b_cols) row = (s / strips) * (dim / 128) + i / 4, col = 4 * (s % strips) + i % 4;
  else row = s * boxes_per_block + i, col = 0;
}

__global__ void hbm_stream_kernel(const __grid_constant__ tma::map<HbmBox> square, const __grid_constant__ tma::map<HbmBox> narrow,
                                  HbmPattern pattern, int dim, int boxes_per_block) {
  extern __shared__ __align__(1024) unsigned char raw[];
  auto& s = *reinterpret_cast<HbmRing*>(raw);
  if (threadIdx.x != 0) return;
  for (int i = 0; i < kHbmDepth; ++i) ts::init(s.full[i], 1);
  fence_barrier_init();
  const tma::map<HbmBox>& map = pattern == linear ? narrow : square;
  for (int i = 0; i < boxes_per_block + kHbmDepth; ++i) {
    const int slot = i % kHbmDepth, use = i / kHbmDepth;
    if (use > 0) ts::wait(s.full[slot], (use - 1) & 1);
    if (i >= boxes_per_block) continue;
    int row = 0, col = 0;
    hbm_box_of(pattern, dim, boxes_per_block, blockIdx.x, i, row, col);
    ts::expect_bytes(s.full[slot], HbmBox::bytes);
    tma::load_async(s.box[slot], map, {0, 0, row, col}, s.full[slot]);
  }
}

}  // namespace

void hbm_patterns(Context& ctx) {
  const int dim = ctx.sz.quick ? 4096 : 16384;
  const int blocks = dim / 128, boxes_per_block = dim / 32;  // each block 2 dim^2 / blocks bytes: all of it once
  DeviceArray<bf16> data(size_t(dim) * dim);
  fill_random_bf16<<<1024, 256>>>(data.p, data.n, 17);
  TS_CHECK_LAUNCH("fill_random_bf16");
  const tma::map<HbmBox> square = tma::make_map<HbmBox>(gl<bf16>::make(data.p, 1, 1, dim, dim));
  const tma::map<HbmBox> narrow = tma::make_map<HbmBox>(gl<bf16>::make(data.p, 1, 1, static_cast<int64_t>(data.n / 64), 64));
  const int smem = sizeof(HbmRing) + 1024;
  TS_CHECK(cudaFuncSetAttribute(hbm_stream_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  Events ev;
  const double bytes = 2.0 * dim * dim;
  double rate[3] = {};
  for (const HbmPattern p : {a_rows, b_cols, linear}) {
    std::vector<double> tbs;
    for (int r = 0; r < ctx.sz.reps; ++r) {
      flush_l2(ctx);
      tbs.push_back(bytes / (ev.ms([&] {
                      hbm_stream_kernel<<<blocks, 32, smem>>>(square, narrow, p, dim, boxes_per_block);
                      TS_CHECK_LAUNCH("hbm_stream_kernel");
                    }) * 1e-3) / 1e12);
    }
    rate[p] = median(tbs);
  }
  const std::string how = std::to_string(blocks) + " blocks of one thread, each reading its share of a " + std::to_string(dim) + "^2 bf16 matrix (row pitch " +
                          std::to_string(dim * 2 / 1024) + " KB) once through 8 KB TMA boxes (64 x 64 bf16, 128-byte swizzle), " +
                          std::to_string(kHbmDepth) + " in flight, the L2 flushed before each run; bytes / CUDA-event time, median of " +
                          std::to_string(ctx.sz.reps) + " runs: ";
  ctx.extra("hbm_bandwidth_scattered", round_to(rate[a_rows], 3), "TB/s",
            how + "each block walks its 128 rows along the columns, two boxes one above the other a k-step (a GEMM's A)");
  ctx.extra("hbm_bandwidth_b_slices", round_to(rate[b_cols], 3), "TB/s",
            how + "each block walks 256 columns down half the rows, four boxes side by side a k-step (a GEMM's B); the simulator's rule predicts 4 / (1/scattered + 3/linear boxes)");
  ctx.extra("hbm_bandwidth_linear_boxes", round_to(rate[linear], 3), "TB/s", how + "each block's boxes one after another in memory");
}

}  // namespace ts::kernels::calibrate::detail
