// How long a TMA load takes when every SM keeps several in flight: the latency the simulator's
// machine file holds as one figure (tma_load_latency_under_load, fitted to the GEMM sweep at 1800
// cycles) against the one load alone on an idle chip (tma_load_latency_l2_hit, about 1000 below).
// The GEMM's 1-stage row wants about 1200, its 2- and 3-stage rows 1800 or more
// (data/measured/h100/compare-tma-latency-sweep.txt): does the latency grow with the loads in
// flight before the L2's bandwidth is reached, which a fixed latency plus the engine's bandwidth
// queue does not give?
//
// One block per SM on every SM; one thread streams 16 KB boxes (128 x 64 bf16, 128-byte swizzle,
// the GEMM's A tile) through a ring of `depth` buffers, reissuing each as soon as its load landed,
// and times every load from its issue to its mbarrier wait returning. Three sources: a 16 MB region
// that every SM walks (L2-resident after a warm-up pass; each box read by many SMs), 8 boxes of its
// own per SM read over and over (L2-resident, none shared), and 830 MB of which each SM reads its
// own boxes once, L2 evicted before (from HBM).
// Prints, per depth: loads in flight on the chip, bytes per cycle per SM, the median and 90th
// percentile of the per-load round trip, and Little's law's round trip (depth x 16 KB / bytes per
// cycle) as a check on the timing.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "tiles/tiles.hpp"

using namespace ts;

#include "kernels/device_clock.cuh"
#include "kernels/probes/check_cuda.cuh"

using Box = st<bf16, 128, 64>;
static_assert(Box::bytes == 16384, "16 KB boxes");
constexpr int kMaxDepth = 12, kLoads = 384;  // per SM; the first 2 x depth are left out as the ramp
constexpr int kOwnBoxes = 8;                 // own_l2: 128 KB per SM, 17 MB in all

struct Smem {
  Box box[kMaxDepth];
  barrier full[kMaxDepth];
};

// out[block * kLoads + i]: load i's round trip in cycles; span[2 block + {0, 1}]: cycles and ns
// from the first issue to the last landing.
enum Source { shared_l2, own_l2, hbm };
__global__ void stream_kernel(const __grid_constant__ tma::map<Box> map, long long boxes, int depth, Source source,
                              unsigned* out, unsigned long long* span) {
  extern __shared__ __align__(1024) unsigned char raw[];
  auto& s = *reinterpret_cast<Smem*>(raw);
  if (threadIdx.x != 0) return;
  for (int i = 0; i < depth; ++i) ts::init(s.full[i], 1);
  fence_barrier_init();
  uint64_t issued[kMaxDepth];
  // shared_l2: blocks walk one region from different starting points, each box read by many SMs;
  // own_l2: each block cycles through its own kOwnBoxes (all of them L2-resident, none shared);
  // hbm: each block reads kLoads boxes of its own, once.
  const long long first = source == hbm ? static_cast<long long>(blockIdx.x) * kLoads : (blockIdx.x * 37ll) % boxes;
  const uint64_t c0 = clock_cycles(), t0 = global_ns();
  for (int i = 0; i < kLoads + depth; ++i) {
    const int slot = i % depth, use = i / depth;
    if (use > 0) {  // the load issued `depth` loads ago: wait for it, time it
      ts::wait(s.full[slot], (use - 1) & 1);
      out[blockIdx.x * kLoads + (i - depth)] = static_cast<unsigned>(clock_cycles() - issued[slot]);
    }
    if (i >= kLoads) continue;
    ts::expect_bytes(s.full[slot], Box::bytes);
    issued[slot] = clock_cycles();
    const long long box = source == own_l2 ? blockIdx.x * kOwnBoxes + i % kOwnBoxes : (first + i) % boxes;
    tma::load_async(s.box[slot], map, {0, 0, static_cast<int>(box), 0}, s.full[slot]);
  }
  span[2 * blockIdx.x] = clock_cycles() - c0;
  span[2 * blockIdx.x + 1] = global_ns() - t0;
}

__global__ void fill_kernel(bf16* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = __float2bfloat16_rn(static_cast<float>(i % 97) * 0.01f);
}

double quantile(std::vector<unsigned> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * (v.size() - 1))];
}

int main() {
  int sms = 0, clock_khz = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const int smem = sizeof(Smem) + 1024;
  CHECK_CUDA(cudaFuncSetAttribute(stream_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  unsigned* out = nullptr;
  unsigned long long* span = nullptr;
  CHECK_CUDA(cudaMalloc(&out, sizeof(unsigned) * sms * kLoads));
  CHECK_CUDA(cudaMalloc(&span, sizeof(unsigned long long) * sms * 2));
  std::printf("TMA loads of 16 KB boxes, one thread per SM on all %d SMs, %d loads each (the first 2 x depth left out)\n", sms, kLoads);
  const char* names[] = {"L2 shared", "L2 own", "HBM"};
  std::printf("%-9s %-6s %9s %16s %8s %8s %12s %12s %14s\n", "src", "depth", "in flight", "bytes/cycle/SM", "TB/s",
              "SM MHz", "median", "p90", "Little's law");
  // Written between the HBM source's runs, so that its boxes are not in L2 from the run before.
  bf16* flush = nullptr;
  const size_t flush_n = (size_t(2) << 30) / sizeof(bf16);
  CHECK_CUDA(cudaMalloc(&flush, flush_n * sizeof(bf16)));
  for (const Source source : {shared_l2, own_l2, hbm}) {
    const bool from_hbm = source == hbm;
    // shared: 16 MB; own: 8 boxes per SM; HBM: every SM its own kLoads boxes, 830 MB in all.
    const long long boxes = from_hbm ? static_cast<long long>(sms) * kLoads
                            : source == own_l2 ? static_cast<long long>(sms) * kOwnBoxes
                                               : (16ll << 20) / Box::bytes;
    const size_t elems = static_cast<size_t>(boxes) * Box::bytes / sizeof(bf16);
    bf16* data = nullptr;
    CHECK_CUDA(cudaMalloc(&data, elems * sizeof(bf16)));
    fill_kernel<<<1024, 256>>>(data, elems);
    CHECK_CUDA(cudaGetLastError());
    const tma::map<Box> map = tma::make_map<Box>(gl<bf16>::make(data, 1, 1, static_cast<int64_t>(elems / 64), 64));
    for (int depth = 1; depth <= kMaxDepth; ++depth) {
      std::vector<unsigned> cycles(size_t(sms) * kLoads), kept;
      std::vector<unsigned long long> spans(2 * sms), span_cycles, span_ns;
      for (int rep = 0; rep < 2; ++rep) {  // the first run warms L2 (for the L2 source) and the clocks
        if (from_hbm) {
          fill_kernel<<<4096, 256>>>(flush, flush_n);
          CHECK_CUDA(cudaGetLastError());
        }
        stream_kernel<<<sms, 32, smem>>>(map, boxes, depth, source, out, span);
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaDeviceSynchronize());
      }
      CHECK_CUDA(cudaMemcpy(cycles.data(), out, cycles.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
      CHECK_CUDA(cudaMemcpy(spans.data(), span, spans.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      for (int b = 0; b < sms; ++b) {
        span_cycles.push_back(spans[2 * b]), span_ns.push_back(spans[2 * b + 1]);
        for (int i = 2 * depth; i < kLoads; ++i) kept.push_back(cycles[size_t(b) * kLoads + i]);
      }
      std::sort(span_cycles.begin(), span_cycles.end());
      std::sort(span_ns.begin(), span_ns.end());
      const double cyc = double(span_cycles[sms / 2]), ns = double(span_ns[sms / 2]);
      const double per_sm = double(kLoads) * Box::bytes / cyc;
      std::printf("%-9s %-6d %9d %16.1f %8.2f %8.0f %12.0f %12.0f %14.0f\n", names[source], depth, depth * sms, per_sm,
                  double(kLoads) * Box::bytes * sms / ns / 1e3, cyc / ns * 1e3, quantile(kept, 0.5), quantile(kept, 0.9),
                  depth * double(Box::bytes) / per_sm);
    }
    CHECK_CUDA(cudaFree(data));
  }
  std::printf("(clock rate attribute %d MHz; cycles are the SM's own, whatever its clock under load)\n", clock_khz / 1000);
  CHECK_CUDA(cudaFree(flush));
  CHECK_CUDA(cudaFree(out));
  CHECK_CUDA(cudaFree(span));
  return 0;
}
