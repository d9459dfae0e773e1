// How one SM's tensor cores share themselves between warpgroups whose wgmma groups overlap in
// time: in order of issue (the first group finishes first) or interleaved (the groups finish
// together)? The answer decides how the simulator queues MMAs (sim/engine.cpp) and is what makes
// consumer warpgroups fall into step, softmax beside softmax, unless a kernel staggers them.
//
// One block per SM, every SM busy. Each of W warpgroups waits `delay` x its index cycles after a
// common start, issues `n` wgmma m64n128k16 (bf16, A and B in shared memory, 8 per 64 x 128 x 128
// product) in one group, and waits for it. Prints, per case, each warpgroup's start and end in
// cycles after the common start (median over SMs), and the same for a warpgroup alone.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tiles/tiles.hpp"

using namespace ts;

#include "kernels/device_clock.cuh"
#include "kernels/probes/check_cuda.cuh"

constexpr int kMaxGroups = 3, kN = 128;
struct Smem {
  st<bf16, 64, 128> a[kMaxGroups];
  st<bf16, 128, kN> b;
};

// out[(block * groups + wg) * 2 + {0, 1}]: start and end of warpgroup wg's group, cycles after the common start.
__global__ void __launch_bounds__(128 * kMaxGroups, 1) share_kernel(int groups, int n, int delay, long long* out, float* sink) {
  extern __shared__ __align__(1024) unsigned char raw[];
  auto& s = *reinterpret_cast<Smem*>(raw);
  for (int i = threadIdx.x; i < 64 * 128; i += blockDim.x)
    for (int g = 0; g < kMaxGroups; ++g) s.a[g].data[i] = __float2bfloat16_rn((i % 7) * 0.01f);
  for (int i = threadIdx.x; i < 128 * kN; i += blockDim.x) s.b.data[i] = __float2bfloat16_rn((i % 5) * 0.01f);
  fence_async_shared();
  const int wg = threadIdx.x / 128;
  rt_fl<16, kN> acc;
  auto& regs = device::accumulator_regs(acc);
  for (int i = 0; i < kN / 2; ++i) regs[i] = 0.f;
  __syncthreads();
  if (wg < groups) {
    warpgroup::mma_fence(acc);
    const uint64_t t0 = clock_cycles();
    while (clock_cycles() - t0 < uint64_t(delay) * wg) {
    }
    const uint64_t start = clock_cycles();
    for (int i = 0; i < n / 8; ++i) warpgroup::mma_AB(acc, s.a[wg], s.b, true);  // 8 instructions each
    warpgroup::mma_commit_group();
    warpgroup::mma_async_wait<0>(acc);
    const uint64_t end = clock_cycles();
    if (threadIdx.x % 128 == 0) {
      out[(blockIdx.x * groups + wg) * 2] = static_cast<long long>(start - t0);
      out[(blockIdx.x * groups + wg) * 2 + 1] = static_cast<long long>(end - t0);
    }
  }
  float sum = 0;
  for (int i = 0; i < kN / 2; ++i) sum += regs[i];
  if (sum == 1234.5f) sink[0] = sum;
}

int main() {
  int sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int smem = sizeof(Smem) + 1024;
  CHECK_CUDA(cudaFuncSetAttribute(share_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  long long* out = nullptr;
  float* sink = nullptr;
  CHECK_CUDA(cudaMalloc(&out, sizeof(long long) * sms * kMaxGroups * 2));
  CHECK_CUDA(cudaMalloc(&sink, sizeof(float)));
  std::printf("%-8s %-6s %-6s  per warpgroup: start..end cycles after the common start (median over %d SMs)\n", "groups",
              "n", "delay", sms);
  struct Case {
    int groups, n, delay;
  };
  for (const Case c : {Case{1, 8, 0}, Case{1, 64, 0}, Case{2, 8, 0}, Case{3, 8, 0}, Case{2, 64, 0}, Case{3, 64, 0},
                       Case{2, 8, 100}, Case{3, 8, 100}, Case{2, 64, 500}, Case{3, 64, 500}}) {
    std::vector<long long> host(size_t(sms) * c.groups * 2);
    for (int warm = 0; warm < 3; ++warm) {
      share_kernel<<<sms, 128 * kMaxGroups, smem>>>(c.groups, c.n, c.delay, out, sink);
      CHECK_CUDA(cudaGetLastError());
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(host.data(), out, host.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    std::printf("%-8d %-6d %-6d ", c.groups, c.n, c.delay);
    for (int g = 0; g < c.groups; ++g) {
      std::vector<long long> starts, ends;
      for (int b = 0; b < sms; ++b) starts.push_back(host[(b * c.groups + g) * 2]), ends.push_back(host[(b * c.groups + g) * 2 + 1]);
      std::nth_element(starts.begin(), starts.begin() + sms / 2, starts.end());
      std::nth_element(ends.begin(), ends.begin() + sms / 2, ends.end());
      std::printf("  wg%d %5lld..%-6lld", g, starts[sms / 2], ends[sms / 2]);
    }
    std::printf("\n");
  }
  CHECK_CUDA(cudaFree(out));
  CHECK_CUDA(cudaFree(sink));
  return 0;
}
