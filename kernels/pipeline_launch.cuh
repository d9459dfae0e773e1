#pragma once
// The device launch of a pipeline kernel (tiles/sched/pipeline.hpp), shared by the kernels'
// launchers: the __global__ wrapper, the shared-memory opt-in, an NVTX range, and checked errors.
// Include from a .cu file only. The kernel and its launch have internal linkage (an unnamed
// namespace): the instrumented build (kernels/stamps/) compiles the same instances with stamps
// on, and a linker that merged the two would launch either one for both.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <stdexcept>
#include <string>

#include "kernels/gemm/gemm_api.hpp"  // BlockClock
#include "tiles/sched/pipeline.hpp"

namespace ts::kernels {
namespace {

inline void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// With `clocks`, thread 0 (a consumer, among the last to finish) times its block: the one way to
// read the SM clock during a power-limited run, since a probe launched afterwards sees it recover.
template <class K>
__global__ void __launch_bounds__(sched::pipeline_threads<K>(), 1)
    pipeline_kernel(const __grid_constant__ typename K::globals g, BlockClock* clocks) {
  extern __shared__ __align__(1024) char smem[];
  stamp::begin_block();
  const bool timed = clocks != nullptr && threadIdx.x == 0;
  unsigned long long t0 = 0, t1 = 0, c0 = 0;
  if (timed) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    c0 = clock64();
  }
  sched::run_pipeline<K>(g, smem);
  stamp::end_block();
  if (timed) {
    const unsigned long long c1 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    clocks[blockIdx.x] = {c1 - c0, t1 - t0};
  }
}

inline int sm_count() {
  int device = 0, sms = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute(SM count)");
  return sms;
}

// The launch of `grid` blocks of K, clusters of K::cluster_size along x when it has them.
template <class K>
cudaLaunchConfig_t pipeline_config(int grid, cudaStream_t stream, cudaLaunchAttribute (&attr)[1]) {
  // The dynamic shared memory to ask for, or why the block cannot have it (with any static shared
  // memory the kernel declares: ours declare none, the instrumented build's included).
  struct Fit {
    size_t dynamic;
    std::string too_big;
  };
  static const Fit fit = [] {  // asked once per kernel: launches stay cheap
    cudaFuncAttributes fa{};
    check_cuda(cudaFuncGetAttributes(&fa, pipeline_kernel<K>), "cudaFuncGetAttributes");
    int device = 0, optin = 0;
    check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    check_cuda(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
               "cudaDeviceGetAttribute(shared memory per block)");
    const size_t static_bytes = fa.sharedSizeBytes;
    const size_t smem = sched::pipeline_smem_bytes<K>();
    if (smem + static_bytes <= static_cast<size_t>(optin)) return Fit{smem, std::string()};
    return Fit{smem, "this configuration needs " + std::to_string(smem + static_bytes) + " bytes of shared memory per block (" +
                         std::to_string(smem) + " for its stages and tiles" +
                         (static_bytes ? ", " + std::to_string(static_bytes) + " of static shared memory" : std::string()) +
                         "), more than the " + std::to_string(optin) + " this GPU grants a block"};
  }();
  if (!fit.too_big.empty()) throw std::invalid_argument(fit.too_big);
  check_cuda(cudaFuncSetAttribute(pipeline_kernel<K>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(fit.dynamic)),
             "cudaFuncSetAttribute(max dynamic shared memory)");
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(sched::pipeline_threads<K>());
  config.dynamicSmemBytes = fit.dynamic;
  config.stream = stream;
  if constexpr (sched::kernel_cluster_size<K>() > 1) {
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = sched::kernel_cluster_size<K>();
    attr[0].val.clusterDim.y = attr[0].val.clusterDim.z = 1;
    config.attrs = attr;
    config.numAttrs = 1;
  }
  return config;
}

// How many blocks of K can be resident at once: one per SM, or with clusters as many whole
// clusters as the driver can place (an H100's GPCs do not all pair up their SMs evenly).
template <class K>
int resident_blocks() {
  constexpr int ctas = sched::kernel_cluster_size<K>();
  if constexpr (ctas == 1) return sm_count();
  static const int blocks = [] {  // asked once: the query costs more than a launch
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t config = pipeline_config<K>(sm_count(), nullptr, attr);
    int clusters = 0;
    check_cuda(cudaOccupancyMaxActiveClusters(&clusters, pipeline_kernel<K>, &config), "cudaOccupancyMaxActiveClusters");
    if (clusters <= 0) throw std::runtime_error("no cluster of " + std::to_string(ctas) + " blocks fits on this GPU");
    return clusters * ctas;
  }();
  return blocks;
}

// pipeline_kernel<K><<<grid, ...>>>(g, clocks) on `stream`, inside an NVTX range named `range`.
template <class K>
void launch_pipeline(const typename K::globals& g, int grid, cudaStream_t stream, BlockClock* clocks, const std::string& range) {
  cudaLaunchAttribute attr[1];
  const cudaLaunchConfig_t config = pipeline_config<K>(grid, stream, attr);
  nvtxRangePushA(range.c_str());
  const cudaError_t launched = cudaLaunchKernelEx(&config, pipeline_kernel<K>, g, clocks);
  const cudaError_t e = launched != cudaSuccess ? launched : cudaGetLastError();
  nvtxRangePop();
  check_cuda(e, ("launch of " + range).c_str());
}

}  // namespace
}  // namespace ts::kernels
