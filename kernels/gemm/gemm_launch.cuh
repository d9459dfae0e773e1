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

static void launch_gemm_device(const void* a, const void* b, void* c, const GemmShape& s, const GemmConfig& cfg,
                               cudaStream_t stream, BlockClock* block_clocks) {
  if (const std::string why = validate(s, cfg); !why.empty()) throw std::invalid_argument(why);
  // Split tiles go to their K ranges' fp32 slices of a workspace, summed afterwards (gemm_plan).
  const GemmPlan plan = gemm_plan(s, cfg, sm_count());
  const size_t workspace_bytes = gemm_workspace_bytes(plan, cfg);
  void* workspace = nullptr;
  if (workspace_bytes > 0)
    check_cuda(cudaMallocFromPoolAsync(&workspace, workspace_bytes, workspace_pool(), stream), "gemm split-K: workspace");
  struct Release {  // the workspace goes back to the pool after the launches, or when one throws
    void* p;
    cudaStream_t stream;
    ~Release() { if (p) cudaFreeAsync(p, stream); }
  } release{workspace, stream};
  const std::string shape = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " " + describe(with_plan(cfg, plan));
  bool first = true;  // only the first launch records its blocks' clocks
  const auto resident = [&]<class K>() { return resident_blocks<K>(); };
  with_launches(a, b, c, workspace, s, cfg, plan, resident, [&]<class K>(const typename K::globals& g, int blocks, const char* name) {
    launch_pipeline<K>(g, blocks, stream, first ? block_clocks : nullptr, std::string(name) + " " + shape);
    first = false;
  });
}

// Blocks of launch_gemm_device's first launch for this shape and config on the current GPU.
static int gemm_device_blocks(const GemmShape& s, const GemmConfig& cfg) {
  int blocks = 0;
  with_gemm(with_plan(cfg, gemm_plan(s, cfg, sm_count())), [&]<class K>() { blocks = gemm_grid_blocks(s, cfg, resident_blocks<K>()); });
  return blocks;
}

}  // namespace ts::kernels
