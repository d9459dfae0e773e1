#pragma once
// The GEMM's own source (gemm.cuh) in the host backend's trace mode: per-warp op streams of a
// whole grid, for the simulator. Blocks are built lazily, in launch order.
#include <memory>

#include "kernels/gemm/gemm_api.hpp"
#include "sim/trace.hpp"

namespace ts::kernels {

// Throws std::invalid_argument when validate() refuses, or when the shape is not a whole number
// of tiles (the simulator times whole tiles: M % 128, N % block_n, K % 64).
std::unique_ptr<sim::GridTrace> gemm_grid_trace(const GemmShape& shape, const GemmConfig& cfg, int sms);

}  // namespace ts::kernels
