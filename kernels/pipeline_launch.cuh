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

// pipeline_kernel<K><<<grid, ...>>>(g, clocks) on `stream`, inside an NVTX range named `range`.
template <class K>
void launch_pipeline(const typename K::globals& g, int grid, cudaStream_t stream, BlockClock* clocks, const std::string& range) {
  constexpr size_t smem = sched::pipeline_smem_bytes<K>();
  check_cuda(cudaFuncSetAttribute(pipeline_kernel<K>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
             "cudaFuncSetAttribute(max dynamic shared memory)");
  nvtxRangePushA(range.c_str());
  pipeline_kernel<K><<<grid, sched::pipeline_threads<K>(), smem, stream>>>(g, clocks);
  const cudaError_t e = cudaGetLastError();
  nvtxRangePop();
  check_cuda(e, ("launch of " + range).c_str());
}

}  // namespace
}  // namespace ts::kernels
