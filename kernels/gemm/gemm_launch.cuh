#pragma once
// The device launch of kernels/gemm/gemm.cuh: picks the template instance and builds tensor maps
// (both in gemm_dispatch.hpp, shared with the host runner), sizes the grid (one block per SM when
// persistent) and launches through kernels/pipeline_launch.cuh. Included by gemm_launch.cu and,
// compiled again with stamps on, by the instrumented build (kernels/stamps/recorded_launch.cu):
// internal linkage, so the two builds never stand in for each other.
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "kernels/gemm/gemm_api.hpp"
#include "kernels/gemm/gemm_dispatch.hpp"
#include "kernels/pipeline_launch.cuh"

namespace ts::kernels {

// Split-K's workspace comes from a pool of our own that keeps what it has reserved (the default
// pool hands its memory back to the driver at each synchronization, to be mapped again by the next
// launch), without changing the default pool other code in the process uses. Stream-ordered, so
// launches on other streams get their own.
static cudaMemPool_t workspace_pool() {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  static std::mutex lock;
  static std::map<int, cudaMemPool_t> pools;
  const std::lock_guard<std::mutex> hold(lock);
  auto [it, fresh] = pools.try_emplace(device);
  if (fresh) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location = {cudaMemLocationTypeDevice, device};
    check_cuda(cudaMemPoolCreate(&it->second, &props), "gemm split-K: cudaMemPoolCreate");
    uint64_t keep = UINT64_MAX;
    check_cuda(cudaMemPoolSetAttribute(it->second, cudaMemPoolAttrReleaseThreshold, &keep), "gemm split-K: pool threshold");
  }
  return it->second;
}

static void launch_gemm_device(const void* a, const void* b, void* c, const GemmShape& s, const GemmConfig& asked,
                               cudaStream_t stream, BlockClock* block_clocks) {
  if (const std::string why = validate(s, asked); !why.empty()) throw std::invalid_argument(why);
  // Split-K: each K range's tiles go to their own fp32 slice of a workspace, summed afterwards.
  const GemmConfig cfg = with_k_splits(s, asked, sm_count());
  const int ranges = cfg.split_k;
  void* out = c;
  if (ranges > 1)
    check_cuda(cudaMallocFromPoolAsync(&out, size_t(s.m * s.n) * sizeof(float) * ranges, workspace_pool(), stream),
               "gemm split-K: workspace");
  struct Release {  // the workspace goes back to the pool after the launches, or when one throws
    void* p;
    cudaStream_t stream;
    ~Release() { if (p) cudaFreeAsync(p, stream); }
  } release{ranges > 1 ? out : nullptr, stream};
  with_gemm(cfg, [&]<class K>() {
    const typename K::globals g = make_globals<K>(a, b, out, s, cfg);
    const std::string range = "gemm " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " " + describe(cfg);
    launch_pipeline<K>(g, gemm_grid_blocks(s, cfg, resident_blocks<K>()), stream, block_clocks, range);
  });
  if (ranges > 1)
    with_sum(out, c, s, cfg, [&]<class S>(const typename S::globals& g, int blocks) {
      launch_pipeline<S>(g, blocks, stream, nullptr, "gemm split-K sum of " + std::to_string(ranges) + " ranges");
    });
}

// Blocks launch_gemm_device launches for this shape and config on the current GPU.
static int gemm_device_blocks(const GemmShape& s, const GemmConfig& cfg) {
  int blocks = 0;
  with_gemm(with_k_splits(s, cfg, sm_count()), [&]<class K>() { blocks = gemm_grid_blocks(s, cfg, resident_blocks<K>()); });
  return blocks;
}

}  // namespace ts::kernels
