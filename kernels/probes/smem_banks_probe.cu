// Calibrates sim/banks against the hardware: each input line "op o0 o1 ... o31" launches one warp
// that executes exactly one shared-memory instruction of that kind, lane i at byte offset oi.
// Run it under Nsight Compute (scripts/measure-banks) to read the wavefronts of each launch.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/probes/check_cuda.cuh"

// `none` executes no shared instruction: a control, to see what a launch counts without one.
enum Op { ld32, ld64, ld128, st32, st64, st128, ldsm1, ldsm2, ldsm4, ldsm4t, stsm4, none, num_ops };
static const char* kOpNames[] = {"ld32", "ld64", "ld128", "st32", "st64", "st128",
                                 "ldsm1", "ldsm2", "ldsm4", "ldsm4t", "stsm4", "none"};
constexpr int kSmemBytes = 48 * 1024;

template <int OP>
__global__ void one_access(const uint32_t* offsets, uint32_t* out) {
  __shared__ alignas(1024) uint8_t smem[kSmemBytes];
  const uint32_t lane = threadIdx.x;
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem)) + offsets[lane];
  uint32_t a = lane, b = lane + 1, c = lane + 2, d = lane + 3;
  if constexpr (OP == ld32) asm volatile("ld.shared.b32 %0, [%1];" : "=r"(a) : "r"(addr));
  if constexpr (OP == ld64) asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(addr));
  if constexpr (OP == ld128)
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr));
  if constexpr (OP == st32) asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(a) : "memory");
  if constexpr (OP == st64) asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(addr), "r"(a), "r"(b) : "memory");
  if constexpr (OP == st128)
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
  if constexpr (OP == ldsm1) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(a) : "r"(addr));
  if constexpr (OP == ldsm2)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(addr));
  if constexpr (OP == ldsm4)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr));
  if constexpr (OP == ldsm4t)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr));
  if constexpr (OP == stsm4)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(a), "r"(b),
                 "r"(c), "r"(d) : "memory");
  out[lane] = a ^ b ^ c ^ d;
}

using Kernel = void (*)(const uint32_t*, uint32_t*);
static const Kernel kKernels[] = {one_access<ld32>,  one_access<ld64>,  one_access<ld128>, one_access<st32>,
                                  one_access<st64>,  one_access<st128>, one_access<ldsm1>, one_access<ldsm2>,
                                  one_access<ldsm4>, one_access<ldsm4t>, one_access<stsm4>, one_access<none>};

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: smem_banks_probe PATTERNS.txt\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "smem_banks_probe: cannot open %s\n", argv[1]);
    return 2;
  }
  uint32_t *d_offsets, *d_out;
  CHECK_CUDA(cudaMalloc(&d_offsets, 32 * sizeof(uint32_t)));
  CHECK_CUDA(cudaMalloc(&d_out, 32 * sizeof(uint32_t)));
  std::string line;
  int line_no = 0, launches = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string name;
    ls >> name;
    int op = 0;
    while (op < num_ops && name != kOpNames[op]) ++op;
    std::vector<uint32_t> offs(32);
    for (auto& o : offs) ls >> o;
    if (op == num_ops || !ls) {
      std::fprintf(stderr, "%s:%d: expected an op and 32 offsets\n", argv[1], line_no);
      return 2;
    }
    for (uint32_t o : offs)
      if (o + 16 > kSmemBytes) {
        std::fprintf(stderr, "%s:%d: offset %u past the probe's shared buffer\n", argv[1], line_no, o);
        return 2;
      }
    CHECK_CUDA(cudaMemcpy(d_offsets, offs.data(), 32 * sizeof(uint32_t), cudaMemcpyHostToDevice));
    kKernels[op]<<<1, 32>>>(d_offsets, d_out);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    ++launches;
  }
  std::printf("launched %d probes\n", launches);
  return 0;
}
