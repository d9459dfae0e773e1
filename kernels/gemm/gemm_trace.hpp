#pragma once
// The GEMM's own source (gemm.cuh) in the host backend's trace mode: per-warp op streams of a
// whole grid, for the simulator. Blocks are built lazily, in launch order.
#include <memory>
#include <stdexcept>

#include "kernels/gemm/gemm_api.hpp"
#include "sim/trace.hpp"

namespace ts::kernels {

// Throws std::invalid_argument when validate() refuses, or when the shape is not a whole number
// of tiles (the simulator times whole tiles: M % 128, N % block_n, K % 64).
// With split-K (cfg.split_k > 1 after with_k_splits) that is the first of two launches; the second,
// gemm_sum_trace, sums the K ranges into C.
#if TILESCOPE_HAVE_HOST_BACKEND
std::unique_ptr<sim::GridTrace> gemm_grid_trace(const GemmShape& shape, const GemmConfig& cfg, int sms);
std::unique_ptr<sim::GridTrace> gemm_sum_trace(const GemmShape& shape, const GemmConfig& cfg, int sms);
#else
// Without Boost.Context there is no trace mode: every caller gets this error instead of a grid.
inline std::unique_ptr<sim::GridTrace> gemm_grid_trace(const GemmShape&, const GemmConfig&, int) {
  throw std::invalid_argument("this build has no host backend (Boost.Context was not found), so no trace mode to simulate");
}
inline std::unique_ptr<sim::GridTrace> gemm_sum_trace(const GemmShape& s, const GemmConfig& c, int sms) { return gemm_grid_trace(s, c, sms); }
#endif

}  // namespace ts::kernels
