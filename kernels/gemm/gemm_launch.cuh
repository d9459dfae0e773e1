#pragma once
// The device launch of kernels/gemm/gemm.cuh: picks the template instance and builds tensor maps
// (both in gemm_dispatch.hpp, shared with the host runner), sizes the grid (one block per SM when
// persistent) and launches through kernels/pipeline_launch.cuh. Included by gemm_launch.cu and,
// compiled again with stamps on, by the instrumented build (kernels/stamps/recorded_launch.cu):
// internal linkage, so the two builds never stand in for each other.
#include <stdexcept>
#include <string>

#include "kernels/gemm/gemm_api.hpp"
#include "kernels/gemm/gemm_dispatch.hpp"
#include "kernels/pipeline_launch.cuh"

namespace ts::kernels {

static void launch_gemm_device(const void* a, const void* b, void* c, const GemmShape& s, const GemmConfig& cfg,
                               cudaStream_t stream, BlockClock* block_clocks) {
  if (const std::string why = validate(s, cfg); !why.empty()) throw std::invalid_argument(why);
  with_gemm(cfg, [&]<class K>() {
    const typename K::globals g = make_globals<K>(a, b, c, s, cfg);
    const std::string range = "gemm " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " " + describe(cfg);
    launch_pipeline<K>(g, gemm_grid_blocks(s, cfg, resident_blocks<K>()), stream, block_clocks, range);
  });
}

// Blocks launch_gemm_device launches for this shape and config on the current GPU.
static int gemm_device_blocks(const GemmShape& s, const GemmConfig& cfg) {
  int blocks = 0;
  with_gemm(cfg, [&]<class K>() { blocks = gemm_grid_blocks(s, cfg, resident_blocks<K>()); });
  return blocks;
}

}  // namespace ts::kernels
