// Device launcher of kernels/gemm/gemm.cuh: picks the template instance and builds tensor maps
// (both in gemm_dispatch.hpp, shared with the host runner), sizes the grid (one block per SM when
// persistent) and checks every CUDA call. validate() and describe() live in gemm_config.cpp.
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <stdexcept>
#include <string>

#include "kernels/gemm/gemm_api.hpp"
#include "kernels/gemm/gemm_dispatch.hpp"

namespace ts::kernels {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// With `clocks`, thread 0 (a consumer, among the last to finish) times its block: the one way to
// read the SM clock during a power-limited run, since a probe launched afterwards sees it recover.
template <class K>
__global__ void __launch_bounds__(sched::pipeline_threads<K>(), 1)
    pipeline_kernel(const __grid_constant__ typename K::globals g, BlockClock* clocks) {
  extern __shared__ __align__(1024) char smem[];
  const bool timed = clocks != nullptr && threadIdx.x == 0;
  unsigned long long t0 = 0, t1 = 0, c0 = 0;
  if (timed) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    c0 = clock64();
  }
  sched::run_pipeline<K>(g, smem);
  if (timed) {
    const unsigned long long c1 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    clocks[blockIdx.x] = {c1 - c0, t1 - t0};
  }
}

template <class K>
void launch(const void* a, const void* b, void* c, const GemmShape& s, const GemmConfig& cfg, cudaStream_t stream,
            BlockClock* clocks) {
  const typename K::globals g = make_globals<K>(a, b, c, s, cfg);
  constexpr size_t smem = sched::pipeline_smem_bytes<K>();
  check(cudaFuncSetAttribute(pipeline_kernel<K>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
        "cudaFuncSetAttribute(max dynamic shared memory)");
  int device = 0, sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute(SM count)");
  const int grid = gemm_grid_blocks(s, cfg, sms);
  const std::string range = "gemm " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " " + describe(cfg);
  nvtxRangePushA(range.c_str());
  pipeline_kernel<K><<<grid, sched::pipeline_threads<K>(), smem, stream>>>(g, clocks);
  const cudaError_t e = cudaGetLastError();
  nvtxRangePop();
  check(e, ("launch of " + range).c_str());
}

}  // namespace

void launch_gemm(const void* a, const void* b, void* c, const GemmShape& s, const GemmConfig& cfg, void* stream,
                 BlockClock* block_clocks) {
  if (const std::string why = validate(s, cfg); !why.empty()) throw std::invalid_argument(why);
  auto st = static_cast<cudaStream_t>(stream);
  with_gemm(cfg, [&]<class K>() { launch<K>(a, b, c, s, cfg, st, block_clocks); });
}

}  // namespace ts::kernels
