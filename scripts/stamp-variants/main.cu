// Experiment only: time the plain default GEMM against stamp-code variants at n^3, alternated.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>
#include "tiles/backend/stamps.hpp"
namespace ts::kernels {
void run_plain(const void*, const void*, void*, int, const stamp::Plan*);
#define DECL(x) void x(const void*, const void*, void*, int, const stamp::Plan*);
VARIANT_DECLS
}
#define CK(e) do { cudaError_t r = (e); if (r != cudaSuccess) { printf("%s: %s\n", #e, cudaGetErrorString(r)); return 1; } } while (0)
__global__ void fill(uint16_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    uint32_t x = uint32_t(i) * 2654435761u ^ seed; x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15;
    float f = (x & 0xffff) / 65536.0f - 0.5f;
    uint32_t u; memcpy(&u, &f, 4); p[i] = uint16_t(u >> 16);
  }
}
using Fn = void (*)(const void*, const void*, void*, int, const ts::stamp::Plan*);
int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 8192, reps = argc > 2 ? atoi(argv[2]) : 20;
  const uint32_t blocks = argc > 3 ? atoi(argv[3]) : 132;
  const uint32_t mask = argc > 4 ? strtoul(argv[4], nullptr, 16) : ~0u;
  std::vector<std::pair<std::string, Fn>> fns = {{"plain", ts::kernels::run_plain}, VARIANT_LIST};
  void *a, *b, *c;
  CK(cudaMalloc(&a, size_t(n) * n * 2)); CK(cudaMalloc(&b, size_t(n) * n * 2)); CK(cudaMalloc(&c, size_t(n) * n * 2));
  fill<<<1024, 256>>>((uint16_t*)a, size_t(n) * n, 1); fill<<<1024, 256>>>((uint16_t*)b, size_t(n) * n, 2);
  ts::stamp::Plan plan;
  plan.capacity = 16384; plan.warps_per_block = 12; plan.first = 0; plan.stride = 1; plan.blocks = blocks; plan.warp_mask = mask;
  const size_t slots = size_t(blocks) * 12;
  CK(cudaMalloc(&plan.records, slots * plan.capacity * 16)); CK(cudaMalloc(&plan.headers, slots * 64));
  CK(cudaMemset(plan.headers, 0, slots * 64));
  std::vector<std::vector<float>> ms(fns.size());
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  std::vector<uint64_t> recs(fns.size()), drops(fns.size());
  std::vector<ts::stamp::WarpHeader> h(slots);
  for (int r = -3; r < reps; ++r)
    for (size_t i = 0; i < fns.size(); ++i) {
      if (r == reps - 1) CK(cudaMemset(plan.headers, 0, slots * 64));
      cudaEventRecord(e0);
      fns[i].second(a, b, c, n, &plan);
      cudaEventRecord(e1);
      CK(cudaEventSynchronize(e1));
      float t; cudaEventElapsedTime(&t, e0, e1);
      if (r >= 0) ms[i].push_back(t);
      if (r == reps - 1) {
        CK(cudaMemcpy(h.data(), plan.headers, slots * 64, cudaMemcpyDeviceToHost));
        for (auto& x : h) recs[i] += x.count, drops[i] += x.dropped;
      }
    }
  float base = 0;
  for (size_t i = 0; i < fns.size(); ++i) {
    std::sort(ms[i].begin(), ms[i].end());
    const float med = ms[i][ms[i].size() / 2];
    if (i == 0) base = med;
    printf("n %d blocks %u mask %03x  %-6s %.4f ms  %+6.1f %%  records %llu dropped %llu\n", n, blocks, mask & 0xfff, fns[i].first.c_str(), med, (med / base - 1) * 100,
           (unsigned long long)recs[i], (unsigned long long)drops[i]);
  }
  return 0;
}
