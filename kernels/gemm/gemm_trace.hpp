#pragma once
// The GEMM's own source (gemm.cuh) in the host backend's trace mode: per-warp op streams of each
// grid it launches, in launch order, for the simulator. Blocks are built lazily, in launch order.
#include <memory>
#include <stdexcept>
#include <vector>

#include "kernels/gemm/gemm_api.hpp"
#include "kernels/traced_launch.hpp"

namespace ts::kernels {

// The launches of gemm_plan on `sms` SMs: "gemm" (all tiles, or the head of whole waves, over all
// of K), then, where tiles are split in K ranges, "gemm tail" (the split tiles past a head) and
// "split-K sum" (gemm_sum.cuh, the ranges summed into C). With all tiles split the split launch
// is "gemm". Throws std::invalid_argument when validate() refuses, or when the shape is not a
// whole number of tiles (the simulator times whole tiles: M % 128, N % block_n, K % 64).
#if TILESCOPE_HAVE_HOST_BACKEND
std::vector<TracedLaunch> gemm_grid_traces(const GemmShape& shape, const GemmConfig& cfg, int sms);
#else
// Without Boost.Context there is no trace mode: every caller gets this error instead of a grid.
inline std::vector<TracedLaunch> gemm_grid_traces(const GemmShape&, const GemmConfig&, int) {
  throw std::invalid_argument("this build has no host backend (Boost.Context was not found), so no trace mode to simulate");
}
#endif

}  // namespace ts::kernels
