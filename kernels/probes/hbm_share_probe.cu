// How the H100 shares HBM among SMs when every SM wants more than its share. Under the row-major
// GEMM order 24 SMs ran their tiles ~20 % faster than the other 108 (data/measured/h100/
// gemm-dram-orders/README.txt, fact 7), and gpc_probe found them to be two TPCs in each of the six
// GPCs with 16 SMs, none in the two with 18 (fact 8). If the GPU shares HBM fairly among groups of
// TPCs rather than among requests, a plain streaming read shows the same split with no GEMM around it.
//
// One CTA per SM (more than half an SM's shared memory), all resident at once. Each streams 16-byte
// loads for a fixed wall-clock window and counts its bytes, so that the rates are shares of one
// contended period. Two passes: each SM over its own 32 MB (HBM: the 4.2 GB read misses the L2),
// and every SM over one 4 MB buffer (L2 hits: the control, where the crossbar, not HBM, limits).
// Prints each pass's total, the 24 fastest SMs and the median rate of those 24 against the rest.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "kernels/device_clock.cuh"
#include "kernels/probes/check_cuda.cuh"

struct SmShare {
  uint32_t sm;
  uint64_t bytes, ns;
};

__device__ inline uint4 load_l2_only(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

constexpr int kUnroll = 8;  // loads in flight per thread: 1024 threads x 8 x 16 B = 128 KB per SM

// Reads [base, base + chunk) round and round for `window_ns`; `sink` keeps the loads alive.
__global__ void __launch_bounds__(1024) stream(const uint4* buf, size_t chunk, bool own_chunk, uint64_t window_ns,
                                               SmShare* out, unsigned* sink) {
  const uint4* base = buf + (own_chunk ? blockIdx.x * chunk : 0);
  const uint64_t start = global_ns();
  uint64_t now = start, rounds = 0;
  size_t at = 0;
  unsigned acc = 0;
  while (now - start < window_ns) {
    uint4 v[kUnroll];
    for (int u = 0; u < kUnroll; ++u) v[u] = load_l2_only(base + at + u * blockDim.x + threadIdx.x);
    for (int u = 0; u < kUnroll; ++u) acc ^= v[u].x ^ v[u].w;
    at += kUnroll * blockDim.x;
    if (at + kUnroll * blockDim.x > chunk) at = 0;
    ++rounds;
    now = global_ns();
  }
  if (acc == 0x9e3779b9u) sink[0] = acc;  // practically never true: the compiler cannot drop the loads
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = {sm_id(), rounds * kUnroll * blockDim.x * sizeof(uint4), global_ns() - start};
}

static void report(const char* what, const std::vector<SmShare>& shares) {
  std::vector<std::pair<double, unsigned>> rate;  // GB/s, SM
  double total = 0;
  for (const SmShare& s : shares) {
    rate.push_back({double(s.bytes) / double(s.ns), s.sm});
    total += rate.back().first;
  }
  std::sort(rate.rbegin(), rate.rend());
  if (rate.size() < 48) return (void)std::printf("%s: only %zu SMs, no split to report\n", what, rate.size());
  constexpr size_t top = 24;
  std::printf("%s: %zu SMs, %.0f GB/s together; per SM max %.1f, median %.1f, min %.1f GB/s\n", what, rate.size(), total,
              rate.front().first, rate[rate.size() / 2].first, rate.back().first);
  std::vector<unsigned> fastest;
  for (size_t i = 0; i < top; ++i) fastest.push_back(rate[i].second);
  std::sort(fastest.begin(), fastest.end());
  std::printf("  the %zu fastest SMs:", top);
  for (const unsigned s : fastest) std::printf(" %u", s);
  std::printf("\n  median of those %.1f GB/s, of the other %zu %.1f GB/s (ratio %.3f); the %zu-th %.1f, the %zu-th %.1f\n",
              rate[top / 2].first, rate.size() - top, rate[top + (rate.size() - top) / 2].first,
              rate[top / 2].first / rate[top + (rate.size() - top) / 2].first, top, rate[top - 1].first, top + 1, rate[top].first);
}

int main() {
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  std::printf("%s, %d SMs, one CTA of 1024 threads each, 16-byte ld.global.cg, %d in flight per thread\n", prop.name, sms, kUnroll);
  const int smem = int(prop.sharedMemPerMultiprocessor / 2 + 1024);
  CHECK_CUDA(cudaFuncSetAttribute(stream, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const size_t chunk = (32u << 20) / sizeof(uint4);  // per SM, in uint4
  uint4* buf = nullptr;
  SmShare* d_out = nullptr;
  unsigned* sink = nullptr;
  CHECK_CUDA(cudaMalloc(&buf, sms * chunk * sizeof(uint4)));
  CHECK_CUDA(cudaMemset(buf, 1, sms * chunk * sizeof(uint4)));
  CHECK_CUDA(cudaMalloc(&d_out, sms * sizeof(SmShare)));
  CHECK_CUDA(cudaMalloc(&sink, sizeof(unsigned)));
  std::vector<SmShare> shares(sms);
  const struct {
    const char* what;
    size_t chunk;
    bool own;
  } passes[] = {{"HBM, each SM its own 32 MB", chunk, true}, {"L2, every SM one 4 MB buffer", (4u << 20) / sizeof(uint4), false}};
  for (const auto& p : passes)
    for (int rep = 0; rep < 3; ++rep) {  // the first of each is a warm-up (clocks, L2 state); all printed
      stream<<<sms, 1024, smem>>>(buf, p.chunk, p.own, 4'000'000, d_out, sink);
      CHECK_CUDA(cudaGetLastError());
      CHECK_CUDA(cudaMemcpy(shares.data(), d_out, sms * sizeof(SmShare), cudaMemcpyDeviceToHost));
      std::vector<int> seen(sms, 0);
      for (const SmShare& s : shares)
        if (s.sm >= unsigned(sms) || seen[s.sm]++) {
          std::fprintf(stderr, "hbm_share_probe: SM %u out of range or holding two CTAs\n", s.sm);
          return 1;
        }
      std::printf("run %d, ", rep);
      report(p.what, shares);
    }
  CHECK_CUDA(cudaFree(buf));
  CHECK_CUDA(cudaFree(d_out));
  CHECK_CUDA(cudaFree(sink));
  return 0;
}
