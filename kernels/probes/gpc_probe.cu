// Which SMs share a GPC. Under the row-major GEMM order the H100 runs 24 of its 132 SMs about 20 %
// faster than the rest while HBM is the bottleneck (data/measured/h100/gemm-dram-orders/README.txt,
// fact 7): if those SMs are the GPCs with fewer SMs, HBM (or the crossbar) is shared per GPC, and
// that is what the simulator should model. CUDA does not name an SM's GPC, but the CTAs of one
// thread-block cluster always run in one GPC: launch clusters of 2 to 16 CTAs, record each CTA's
// SM, and join the SMs of every cluster; what stays apart after all launches is a GPC (or part of
// one that no cluster spanned). cudaOccupancyMaxActiveClusters gives, per cluster size, how many
// such clusters the chip holds at once, a check on the group sizes.
//
// Prints per cluster size the clusters that fit at once, then each group: its size and its SMs.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <vector>

#include "kernels/device_clock.cuh"
#include "kernels/probes/check_cuda.cuh"

// Each CTA waits about 20 us, so that the grid's clusters are resident together rather than one
// after another on the same SMs, and writes the SM it ran on. Launched with more than half of an
// SM's shared memory, so that an SM holds one CTA and a cluster's CTAs sit on different SMs.
__global__ void where_am_i(unsigned* sm_of_block) {
  const long long start = clock64();
  while (clock64() - start < 40000) {
  }
  if (threadIdx.x == 0) sm_of_block[blockIdx.x] = sm_id();
}

struct Groups {  // union-find over SM ids
  std::vector<int> parent;
  explicit Groups(int n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); }
  void join(int a, int b) { parent[find(a)] = find(b); }
};

int main() {
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  std::printf("%s, %d SMs\n", prop.name, sms);
  CHECK_CUDA(cudaFuncSetAttribute(where_am_i, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  const int smem = int(prop.sharedMemPerMultiprocessor / 2 + 1024);
  CHECK_CUDA(cudaFuncSetAttribute(where_am_i, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  Groups groups(sms);
  unsigned* d_sm = nullptr;
  const int max_blocks = 2 * sms;  // the largest grid below: twice the clusters that fit at once, one CTA an SM
  CHECK_CUDA(cudaMalloc(&d_sm, max_blocks * sizeof(unsigned)));
  std::vector<unsigned> sm_of_block(max_blocks);
  for (const int size : {16, 8, 4, 2}) {
    cudaLaunchConfig_t cfg{};
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = size;
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    cfg.blockDim = dim3(32);
    cfg.dynamicSmemBytes = smem;
    cfg.gridDim = dim3(size);
    int fit = 0;
    CHECK_CUDA(cudaOccupancyMaxActiveClusters(&fit, where_am_i, &cfg));
    std::printf("clusters of %2d: %3d fit at once (%d SMs)\n", size, fit, fit * size);
    if (fit == 0) continue;
    if (2 * fit * size > max_blocks) {
      std::fprintf(stderr, "gpc_probe: %d clusters of %d fit at once, more than one CTA an SM\n", fit, size);
      return 1;
    }
    // From one cluster up to more than fit at once, several times each: different placements.
    for (int clusters = 1; clusters <= 2 * fit; ++clusters)
      for (int rep = 0; rep < 4; ++rep) {
        cfg.gridDim = dim3(clusters * size);
        CHECK_CUDA(cudaLaunchKernelEx(&cfg, where_am_i, d_sm));
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaMemcpy(sm_of_block.data(), d_sm, clusters * size * sizeof(unsigned), cudaMemcpyDeviceToHost));
        for (int c = 0; c < clusters; ++c)
          for (int i = 1; i < size; ++i) {
            const unsigned a = sm_of_block[c * size], b = sm_of_block[c * size + i];
            if (a >= unsigned(sms) || b >= unsigned(sms)) {
              std::fprintf(stderr, "gpc_probe: SM id %u or %u out of range\n", a, b);
              return 1;
            }
            groups.join(int(a), int(b));
          }
      }
  }
  std::map<int, std::vector<int>> by_root;
  for (int s = 0; s < sms; ++s) by_root[groups.find(s)].push_back(s);
  std::vector<std::vector<int>> list;
  for (auto& [root, members] : by_root) list.push_back(members);
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  std::printf("%zu groups (SMs that shared a cluster, joined):\n", list.size());
  for (const auto& g : list) {
    std::printf("  %2zu SMs:", g.size());
    for (const int s : g) std::printf(" %d", s);
    std::printf("\n");
  }
  CHECK_CUDA(cudaFree(d_sm));
  return 0;
}
