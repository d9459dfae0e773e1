// The GEMM's device entry point (gemm_api.hpp); the launch itself is gemm_launch.cuh. validate()
// and describe() live in gemm_config.cpp.
#include "kernels/gemm/gemm_launch.cuh"

namespace ts::kernels {

void launch_gemm(const void* a, const void* b, void* c, const GemmShape& s, const GemmConfig& cfg, void* stream,
                 BlockClock* block_clocks) {
  launch_gemm_device(a, b, c, s, cfg, static_cast<cudaStream_t>(stream), block_clocks);
}

int gemm_launch_blocks(const GemmShape& s, const GemmConfig& cfg) { return gemm_device_blocks(s, cfg); }

}  // namespace ts::kernels
