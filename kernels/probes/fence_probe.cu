// What a shared-memory proxy fence (fence.proxy.async.shared::cta, tiles' fence_async_shared) costs
// the warp that runs it: the time from a warp's first store to the end of the fence, against the same
// stores without the fence and against the stores followed by a load of what the last one wrote.
// Nsight Compute puts 6 % of the attention backward's stall samples on its fences (long scoreboard,
// data/measured/h200/bwd-source-lines.txt) and the simulator charges them nothing.
//
// One block per SM, 4, 8 or 12 warps (1-3 per sub-partition), every warp doing the same at once:
// S st.shared.b64 per lane (each lane its own 8 bytes of a 256-byte row, a row per store: no bank
// conflict), then (mode) nothing, the fence, or an ld.shared of its last store's address. Median
// over SMs and warps of the median over 32 repetitions, in SM cycles. Then the same for one
// warpgroup while a second issues wgmma m64n256k16 with both operands in shared memory back to back,
// as the backward's consumers store while the tensor cores read their operands from the same port.
//
// nvcc -std=c++20 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -I. -o /tmp/fence kernels/probes/fence_probe.cu && /tmp/fence
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "tiles/tiles.hpp"

#include "kernels/device_clock.cuh"
#include "kernels/probes/check_cuda.cuh"

using namespace ts;

namespace {

constexpr int kReps = 32, kMaxWarps = 12, kMaxStores = 16;
enum Mode { kStoresOnly, kFence, kLoadBack };

using Rows = uint64_t[kMaxWarps][kMaxStores][32];

// The timed loop of one warp: its median over the repetitions, written by lane 0. `sync` lines the
// measuring warps up before each repetition.
template <int Stores, Mode M, class Sync>
__device__ void timed_stores(Rows& rows, unsigned* out, int warp, Sync sync) {
  const int lane = threadIdx.x % 32;
  unsigned spans[kReps];
  uint64_t sink = 0;
  for (int r = 0; r < kReps; ++r) {
    sync();
    const uint64_t t0 = clock_cycles();
#pragma unroll
    for (int s = 0; s < Stores; ++s) {
      const uint32_t at = static_cast<uint32_t>(__cvta_generic_to_shared(&rows[warp][s][lane]));
      asm volatile("st.shared.b64 [%0], %1;" ::"r"(at), "l"(uint64_t(r * 131 + s + lane)) : "memory");
    }
    if constexpr (M == kFence) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if constexpr (M == kLoadBack) {
      const uint32_t at = static_cast<uint32_t>(__cvta_generic_to_shared(&rows[warp][Stores > 0 ? Stores - 1 : 0][lane]));
      uint64_t v;
      asm volatile("ld.shared.b64 %0, [%1];" : "=l"(v) : "r"(at) : "memory");
      sink += v;
    }
    const uint64_t t1 = clock_cycles();
    spans[r] = static_cast<unsigned>(t1 - t0 + (sink & 0));  // (the load's value used, so it is waited for)
    if (M == kLoadBack && sink == 0x123456789ull) out[0] = 1;
  }
  if (lane == 0) {
    for (int i = 1; i < kReps; ++i)  // insertion sort: the median of the repetitions
      for (int j = i; j > 0 && spans[j - 1] > spans[j]; --j) {
        const unsigned t = spans[j];
        spans[j] = spans[j - 1], spans[j - 1] = t;
      }
    out[1 + blockIdx.x * kMaxWarps + warp] = spans[kReps / 2];
  }
}

template <int Stores, Mode M>
__global__ void __launch_bounds__(32 * kMaxWarps, 1) fence_kernel(unsigned* out) {
  __shared__ __align__(256) Rows rows;
  timed_stores<Stores, M>(rows, out, threadIdx.x / 32, [] { __syncthreads(); });
}

struct MmaSmem {
  st<bf16, 64, 64> a;
  st<bf16, 64, 256> b;
  Rows rows;
};

// Warpgroup 0 times its stores as above; warpgroup 1 keeps the tensor cores reading shared memory
// meanwhile: 192 groups of 4 wgmma m64n256k16 (about 98,000 cycles, one group in flight behind the
// next), a fixed count, since a warpgroup's wgmma must be issued by all four of its warps alike; the
// probe says in how many blocks that covered the timed loop.
template <int Stores, Mode M>
__global__ void __launch_bounds__(256, 1) fence_under_mma_kernel(unsigned* out, float* sink, unsigned* window) {
  extern __shared__ __align__(1024) unsigned char raw[];
  auto& s = *reinterpret_cast<MmaSmem*>(raw + (1024 - reinterpret_cast<uintptr_t>(raw) % 1024) % 1024);
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) s.a.data[i] = __float2bfloat16_rn((i % 7) * 0.01f);
  for (int i = threadIdx.x; i < 64 * 256; i += blockDim.x) s.b.data[i] = __float2bfloat16_rn((i % 5) * 0.01f);
  fence_async_shared();
  __syncthreads();
  if (threadIdx.x >= 128) {
    const device::descriptors<st<bf16, 64, 64>, false> da(s.a);
    const device::descriptors<st<bf16, 64, 256>, true> db(s.b);
    rt_fl<16, 256> acc;
    auto& regs = device::accumulator_regs(acc);
    for (int i = 0; i < 128; ++i) regs[i] = 0.f;
    const uint64_t begin = clock_cycles();
    for (int group = 0; group < 192; ++group) {
      warpgroup::mma_fence(acc);
#pragma unroll
      for (int k = 0; k < 4; ++k) device::wgmma_ss<bf16, 256, 0, 1>(regs, da[k], db[k], 1u);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      warpgroup::mma_async_wait<1>(acc);
    }
    warpgroup::mma_async_wait<0>(acc);
    if (threadIdx.x == 128) window[blockIdx.x * 4] = unsigned(begin), window[blockIdx.x * 4 + 1] = unsigned(clock_cycles());
    float sum = 0;
    for (int i = 0; i < 128; ++i) sum += regs[i];
    if (sum == 1234.5f) sink[0] = sum;
  } else {
    for (const uint64_t t = clock_cycles(); clock_cycles() - t < 3000;) {}  // let the tensor cores get going
    const uint64_t begin = clock_cycles();
    timed_stores<Stores, M>(s.rows, out, threadIdx.x / 32, [] { asm volatile("bar.sync 1, 128;" ::: "memory"); });
    if (threadIdx.x == 0) window[blockIdx.x * 4 + 2] = unsigned(begin), window[blockIdx.x * 4 + 3] = unsigned(clock_cycles());
  }
}

template <int Stores, Mode M>
unsigned run(int warps, int sms, unsigned* out, float* sink, unsigned* window, bool under_mma) {
  CHECK_CUDA(cudaMemset(out, 0, sizeof(unsigned) * (1 + sms * kMaxWarps)));
  if (under_mma) {
    const int smem = sizeof(MmaSmem) + 1024;
    CHECK_CUDA(cudaFuncSetAttribute(fence_under_mma_kernel<Stores, M>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    fence_under_mma_kernel<Stores, M><<<sms, 256, smem>>>(out, sink, window);
  } else {
    fence_kernel<Stores, M><<<sms, 32 * warps>>>(out);
  }
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<unsigned> h(1 + sms * kMaxWarps);
  CHECK_CUDA(cudaMemcpy(h.data(), out, sizeof(unsigned) * h.size(), cudaMemcpyDeviceToHost));
  std::vector<unsigned> v;
  for (int b = 0; b < sms; ++b)
    for (int w = 0; w < warps; ++w) v.push_back(h[1 + b * kMaxWarps + w]);
  std::sort(v.begin(), v.end());
  if (under_mma) {  // the blocks whose timed warps ran wholly while the tensor cores were reading
    std::vector<unsigned> w(4 * sms);
    CHECK_CUDA(cudaMemcpy(w.data(), window, sizeof(unsigned) * w.size(), cudaMemcpyDeviceToHost));
    int covered = 0;
    for (int b = 0; b < sms; ++b) covered += int(w[4 * b + 2] - w[4 * b]) > 0 && int(w[4 * b + 1] - w[4 * b + 3]) > 0;
    if (covered < sms) std::printf("  (the wgmma ran through the timed loop in %d of %d blocks only)\n", covered, sms);
  }
  return v[v.size() / 2];
}

template <int Stores>
void row(int warps, int sms, unsigned* out, float* sink, unsigned* window, bool under_mma = false) {
  run<Stores, kFence>(warps, sms, out, sink, window, under_mma);  // warm-up
  const unsigned plain = run<Stores, kStoresOnly>(warps, sms, out, sink, window, under_mma),
                 fenced = run<Stores, kFence>(warps, sms, out, sink, window, under_mma),
                 loaded = run<Stores, kLoadBack>(warps, sms, out, sink, window, under_mma);
  std::printf("%2d warps%s  %2d stores   stores only %5u   + fence %5u (%+5d)   + load of the last %5u (%+5d)\n", warps,
              under_mma ? " beside wgmma" : "", Stores, plain, fenced, int(fenced) - int(plain), loaded, int(loaded) - int(plain));
}

}  // namespace

int main() {
  int device = 0, sms = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  std::printf("%s, %d SMs; cycles from the first store to the end of the fence or load (median of SMs and warps)\n", prop.name, sms);
  unsigned* out = nullptr;
  float* sink = nullptr;
  unsigned* window = nullptr;  // per block: the wgmma warpgroup's first and last cycle, the timed warpgroup's
  CHECK_CUDA(cudaMalloc(&out, sizeof(unsigned) * (1 + sms * kMaxWarps)));
  CHECK_CUDA(cudaMalloc(&sink, sizeof(float)));
  CHECK_CUDA(cudaMalloc(&window, sizeof(unsigned) * 4 * sms));
  for (int warps : {4, 8, 12}) {
    row<0>(warps, sms, out, sink, window);
    row<1>(warps, sms, out, sink, window);
    row<4>(warps, sms, out, sink, window);
    row<16>(warps, sms, out, sink, window);
  }
  row<0>(4, sms, out, sink, window, true);
  row<1>(4, sms, out, sink, window, true);
  row<4>(4, sms, out, sink, window, true);
  row<16>(4, sms, out, sink, window, true);
  CHECK_CUDA(cudaFree(out));
  CHECK_CUDA(cudaFree(sink));
  CHECK_CUDA(cudaFree(window));
  return 0;
}
