// What a shared-memory proxy fence (fence.proxy.async.shared::cta, tiles' fence_async_shared) costs
// the warp that runs it: the time from a warp's first store to the end of the fence, against the same
// stores without the fence and against the stores followed by a load of what the last one wrote.
// Nsight Compute puts 6 % of the attention backward's stall samples on its fences (long scoreboard,
// data/measured/h200/bwd-source-lines.txt) and the simulator charges them nothing.
//
// One block per SM, 4, 8 or 12 warps (1-3 per sub-partition), every warp doing the same at once:
// S st.shared.b64 per lane (each lane its own 8 bytes of a 256-byte row, a row per store: no bank
// conflict), then (mode) nothing, the fence, or an ld.shared of its last store's address. Median
// over SMs and warps of the median over 32 repetitions, in SM cycles.
//
// nvcc -std=c++20 -gencode=arch=compute_90a,code=sm_90a -I. -o /tmp/fence kernels/probes/fence_probe.cu && /tmp/fence
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "kernels/device_clock.cuh"
#include "kernels/probes/check_cuda.cuh"

namespace {

constexpr int kReps = 32, kMaxWarps = 12, kMaxStores = 16;
enum Mode { kStoresOnly, kFence, kLoadBack };

template <int Stores, Mode M>
__global__ void __launch_bounds__(32 * kMaxWarps, 1) fence_kernel(unsigned* out) {
  __shared__ __align__(256) uint64_t rows[kMaxWarps][kMaxStores][32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  unsigned spans[kReps];
  uint64_t sink = 0;
  for (int r = 0; r < kReps; ++r) {
    __syncthreads();
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
unsigned run(int warps, int sms, unsigned* out) {
  CHECK_CUDA(cudaMemset(out, 0, sizeof(unsigned) * (1 + sms * kMaxWarps)));
  fence_kernel<Stores, M><<<sms, 32 * warps>>>(out);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<unsigned> h(1 + sms * kMaxWarps);
  CHECK_CUDA(cudaMemcpy(h.data(), out, sizeof(unsigned) * h.size(), cudaMemcpyDeviceToHost));
  std::vector<unsigned> v;
  for (int b = 0; b < sms; ++b)
    for (int w = 0; w < warps; ++w) v.push_back(h[1 + b * kMaxWarps + w]);
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <int Stores>
void row(int warps, int sms, unsigned* out) {
  run<Stores, kFence>(warps, sms, out);  // warm-up
  const unsigned plain = run<Stores, kStoresOnly>(warps, sms, out), fenced = run<Stores, kFence>(warps, sms, out),
                 loaded = run<Stores, kLoadBack>(warps, sms, out);
  std::printf("%2d warps  %2d stores   stores only %5u   + fence %5u (%+5d)   + load of the last %5u (%+5d)\n", warps, Stores,
              plain, fenced, int(fenced) - int(plain), loaded, int(loaded) - int(plain));
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
  CHECK_CUDA(cudaMalloc(&out, sizeof(unsigned) * (1 + sms * kMaxWarps)));
  for (int warps : {4, 8, 12}) {
    row<0>(warps, sms, out);
    row<1>(warps, sms, out);
    row<4>(warps, sms, out);
    row<16>(warps, sms, out);
  }
  CHECK_CUDA(cudaFree(out));
  return 0;
}
