// How many wgmma instructions a warp may have waiting on its sub-partition's tensor core before
// the next one holds it at issue. The GEMM's measured timeline shows consumer warps held 370-680
// cycles per k-step between the end of their full-stage wait and their wgmma wait, with short
// waits after (data/measured/h100/timelines/compare-gemm-4096-s4.txt): the issue itself blocks.
// The simulator needs how deep that queue is, whether it counts instructions or work, and whether
// groups (commits) or other warpgroups change it (sim/engine.cpp, the mma op).
//
// One block per SM, every SM busy. Each of W warpgroups issues `Count` wgmma m64nNk16 (bf16, B in
// shared memory, A in shared memory or registers) into one accumulator, back to back, and reads
// the SM's clock after each: a read is issued only once the wgmma before it has been, so the
// reads say when each instruction left the warp. Then it waits for the group(s). Prints, per case,
// when each instruction was issued and when the wait ended (cycles after the first issue, median
// over SMs, warp 0 of each warpgroup), and the most instructions the warp had issued and the
// tensor core had not yet been through: the depth of the queue.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tiles/tiles.hpp"

using namespace ts;

#include "kernels/device_clock.cuh"
#include "kernels/probes/check_cuda.cuh"

constexpr int kMaxGroups = 2, kMaxCount = 24, kStamps = kMaxCount + 1;

template <int N>
struct Smem {
  st<bf16, 64, 64> a[kMaxGroups];
  st<bf16, 64, N> b;
};

// out[((block * groups + wg) * 4 + warp) * kStamps + i]: cycles from just before the first wgmma to
// just after instruction i (i < Count) and to the end of the wait (i = Count).
template <int N, int Count, bool CommitEach, bool RegisterA, bool StampEach>
__global__ void __launch_bounds__(128 * kMaxGroups, 1) queue_kernel(int groups, unsigned* out, float* sink) {
  extern __shared__ __align__(1024) unsigned char raw[];
  auto& s = *reinterpret_cast<Smem<N>*>(raw);
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x)
    for (int g = 0; g < kMaxGroups; ++g) s.a[g].data[i] = __float2bfloat16_rn((i % 7) * 0.01f);
  for (int i = threadIdx.x; i < 64 * N; i += blockDim.x) s.b.data[i] = __float2bfloat16_rn((i % 5) * 0.01f);
  fence_async_shared();
  const int wg = threadIdx.x / 128;
  rt_fl<16, N> acc;
  auto& regs = device::accumulator_regs(acc);
  for (int i = 0; i < N / 2; ++i) regs[i] = 0.f;
  const uint32_t a_regs[4] = {0x3c003c00u + threadIdx.x, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u};
  __syncthreads();
  if (wg < groups) {
    const device::descriptors<st<bf16, 64, 64>, false> da(s.a[wg]);
    const device::descriptors<st<bf16, 64, N>, true> db(s.b);
    unsigned stamps[kStamps];
    warpgroup::mma_fence(acc);
    const uint64_t t0 = clock_cycles();
#pragma unroll
    for (int i = 0; i < Count; ++i) {
      if constexpr (RegisterA) device::wgmma_rs<bf16, N, 1>(regs, a_regs, db[i % 4], 1u);
      else device::wgmma_ss<bf16, N, 0, 1>(regs, da[i % 4], db[i % 4], 1u);
      if constexpr (CommitEach) asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      if (StampEach || i == Count - 1) stamps[i] = static_cast<unsigned>(clock_cycles() - t0);
      else stamps[i] = 0;
    }
    if constexpr (!CommitEach) asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    warpgroup::mma_async_wait<0>(acc);
    stamps[Count] = static_cast<unsigned>(clock_cycles() - t0);
    if (threadIdx.x % 32 == 0) {
      const int warp = (threadIdx.x / 32) % 4;
#pragma unroll
      for (int i = 0; i <= Count; ++i) out[((blockIdx.x * groups + wg) * 4 + warp) * kStamps + (i == Count ? kMaxCount : i)] = stamps[i];
    }
  }
  float sum = 0;
  for (int i = 0; i < N / 2; ++i) sum += regs[i];
  if (sum == 1234.5f) sink[0] = sum;
}

template <int N, int Count, bool CommitEach, bool RegisterA, bool StampEach = true>
void run_case(const char* name, int groups, int sms, unsigned* out, float* sink) {
  auto kernel = queue_kernel<N, Count, CommitEach, RegisterA, StampEach>;
  const int smem = sizeof(Smem<N>) + 1024;
  CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  std::vector<unsigned> host(size_t(sms) * groups * 4 * kStamps);
  for (int warm = 0; warm < 3; ++warm) {
    kernel<<<sms, 128 * kMaxGroups, smem>>>(groups, out, sink);
    CHECK_CUDA(cudaGetLastError());
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemcpy(host.data(), out, host.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  const double alone = 64.0 * N * 16 * 2 / 4096;  // cycles of one instruction alone on the SM (4096 bf16 FLOP/cycle)
  for (int g = 0; g < groups; ++g) {
    auto median = [&](int i) {
      std::vector<unsigned> v;
      for (int b = 0; b < sms; ++b) v.push_back(host[((size_t(b) * groups + g) * 4) * kStamps + i]);
      std::nth_element(v.begin(), v.begin() + sms / 2, v.end());
      return v[sms / 2];
    };
    if constexpr (!StampEach) {
      std::printf("%-34s wg%d  %d issued %u cycles after the clock read before them (%.1f each), wait end %u\n", name, g, Count,
                  median(Count - 1), median(Count - 1) / double(Count), median(kMaxCount));
      continue;
    }
    // The tensor core works from the first issue on, each instruction taking `alone` x the
    // warpgroups sharing it: instruction j is through at first + alone * groups * (j + 1). The
    // most instructions of this warp not through just after one of its issues is the queue's depth.
    const unsigned first = median(0);
    int depth = 0;
    for (int i = 0; i < Count; ++i) {
      int through = 0;
      while (through < i && first + alone * groups * (through + 1) <= median(i)) ++through;
      depth = std::max(depth, i + 1 - through);
    }
    std::printf("%-34s wg%d  in flight %2d  wait end %6u  issued at:", name, g, depth, median(kMaxCount));
    for (int i = 0; i < Count; ++i) std::printf(" %u", median(i));
    std::printf("   (one instruction alone %.0f cycles)\n", alone);
  }
}

int main() {
  int sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  unsigned* out = nullptr;
  float* sink = nullptr;
  CHECK_CUDA(cudaMalloc(&out, sizeof(unsigned) * sms * kMaxGroups * 4 * kStamps));
  CHECK_CUDA(cudaMalloc(&sink, sizeof(float)));
  std::printf("median over %d SMs, warp 0 of each warpgroup; in flight: the most of its instructions issued and not yet through\n", sms);
  run_case<256, 16, false, false>("m64n256k16 x16, one group", 1, sms, out, sink);
  run_case<128, 16, false, false>("m64n128k16 x16, one group", 1, sms, out, sink);
  run_case<64, 24, false, false>("m64n64k16 x24, one group", 1, sms, out, sink);
  run_case<256, 16, true, false>("m64n256k16 x16, a group each", 1, sms, out, sink);
  run_case<256, 16, false, true>("m64n256k16 x16, A in registers", 1, sms, out, sink);
  run_case<128, 16, false, true>("m64n128k16 x16, A in registers", 1, sms, out, sink);
  // Without a clock read between them: when the last of 6 (fewer than the queue holds) left the
  // warp, so the spacing of issues that nothing but their descriptors separates.
  run_case<256, 6, false, false, false>("m64n256k16 x6, one clock read", 1, sms, out, sink);
  run_case<128, 6, false, false, false>("m64n128k16 x6, one clock read", 1, sms, out, sink);
  run_case<64, 6, false, false, false>("m64n64k16 x6, one clock read", 1, sms, out, sink);
  run_case<128, 6, false, true, false>("m64n128k16 x6 A in regs, one read", 1, sms, out, sink);
  run_case<256, 16, false, false>("m64n256k16 x16, two warpgroups", 2, sms, out, sink);
  run_case<128, 16, false, false>("m64n128k16 x16, two warpgroups", 2, sms, out, sink);
  CHECK_CUDA(cudaFree(out));
  CHECK_CUDA(cudaFree(sink));
  return 0;
}
