#pragma once
// The GEMM on the CPU: the same kernel source (gemm.cuh) built with the host backend of tiles/.
// Functional mode, small shapes: what CI checks without a GPU.
#include "kernels/gemm/gemm_api.hpp"
#include "tiles/types/dtypes.hpp"

namespace ts::kernels {

// Host pointers: a (M x K row-major), b (K x N, or N x K when !cfg.b_row_major), both bf16 or both
// fp8e4m3 by cfg.in, c (M x N, bf16 or fp32 by cfg.out). `sms` stands in for the GPU's SM count (132 on an H100 SXM): a
// persistent grid has min(tiles, sms) blocks. Throws std::invalid_argument when validate() refuses,
// std::runtime_error on a deadlock or a map the GPU would refuse.
void run_gemm_host(const void* a, const void* b, void* c, const GemmShape& shape, const GemmConfig& cfg, int sms = 132);

}  // namespace ts::kernels
