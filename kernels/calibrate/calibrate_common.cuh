#pragma once
// What the microbenchmarks of `tilescope calibrate` share (calibrate.cu runs them; calibrate_sm.cu,
// calibrate_memory.cu and calibrate_pipes.cu hold them): checked CUDA calls, device buffers, event
// timing, medians; operand fills and accumulator sums of the wgmma benchmarks (the clock and SM-id
// reads are kernels/device_clock.cuh's) and a hash for random data on the device; per-SM block timings; the sizes of a full and a --quick run; and the
// Context every step adds its figures to.
// nvcc only.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/calibrate/calibrate.hpp"
#include "kernels/device_clock.cuh"
#include "tiles/tiles.hpp"

namespace ts::kernels::calibrate::detail {

// ---------------------------------------------------------------------------------------------
// Host helpers

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
#define TS_CHECK(call) check((call), #call)
#define TS_CHECK_LAUNCH(name) check(cudaGetLastError(), "launch of " name)

template <class T>
struct DeviceArray {
  T* p = nullptr;
  size_t n = 0;
  explicit DeviceArray(size_t count) : n(count) { TS_CHECK(cudaMalloc(&p, count * sizeof(T))); }
  ~DeviceArray() { cudaFree(p); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  std::vector<T> to_host() const {
    std::vector<T> h(n);
    TS_CHECK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
};

struct Events {
  cudaEvent_t start{}, stop{};
  Events() {
    TS_CHECK(cudaEventCreate(&start));
    TS_CHECK(cudaEventCreate(&stop));
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  template <class F>
  double ms(F&& work) {
    TS_CHECK(cudaEventRecord(start));
    work();
    TS_CHECK(cudaEventRecord(stop));
    TS_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    TS_CHECK(cudaEventElapsedTime(&t, start, stop));
    return t;
  }
};

inline double quantile(std::vector<double> v, double q) {
  if (v.empty()) throw std::runtime_error("no samples");
  std::sort(v.begin(), v.end());
  const double at = q * (v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(at)), hi = static_cast<size_t>(std::ceil(at));
  return v[lo] + (v[hi] - v[lo]) * (at - lo);
}
inline double median(const std::vector<double>& v) { return quantile(v, 0.5); }

template <class T>
std::vector<double> as_doubles(const std::vector<T>& v, size_t skip = 0) {
  return std::vector<double>(v.begin() + std::min(skip, v.size()), v.end());
}

// v to `decimals` places, as the nearest double to that decimal (so JSON shows 3.042, not 3.0420000000000003).
inline double round_to(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

inline std::string fmt(const char* f, double a) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

// ---------------------------------------------------------------------------------------------
// Device helpers

__host__ __device__ inline uint64_t mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 32);
}
// Uniform in [-1, 1) from (index, seed).
__device__ inline float uniform(uint64_t i, uint32_t seed) {
  return static_cast<float>(mix(i * 0x9E3779B97F4A7C15ull + seed) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

// Global buffers of random words or uniform bf16 values (grid-stride), for the memory benchmarks.
// Internal to each .cu that launches them (no relocatable device code).
namespace {
__global__ void fill_random_u32(uint32_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = static_cast<uint32_t>(mix(i + (uint64_t(seed) << 40)));
}
__global__ void fill_random_bf16(bf16* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = __float2bfloat16_rn(uniform(i, seed));
}
}  // namespace

// A shared tile filled with uniform values from its block and seed; the wgmma benchmarks' operands.
template <class ST>
__device__ void fill_tile(ST& t, uint32_t seed) {
  for (int i = threadIdx.x; i < ST::rows * ST::cols; i += blockDim.x)
    t.data[i] = from_float<typename ST::dtype>(uniform(i + blockIdx.x * 1000003ull, seed));
}

// An fp32 wgmma accumulator zeroed, and summed (the sum keeps it live past the compiler).
template <int N>
__device__ void zero(rt_fl<16, N>& acc) {
  auto& r = device::accumulator_regs(acc);
#pragma unroll
  for (int i = 0; i < N / 2; ++i) r[i] = 0.f;
}
template <int N>
__device__ float checksum(rt_fl<16, N>& acc) {
  auto& r = device::accumulator_regs(acc);
  float s = 0;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) s += r[i];
  return s;
}

// Cycles and nanoseconds of one block between two of its barriers, and the SM it ran on.
struct BlockTiming {
  unsigned long long cycles, ns;
  uint32_t sm, pad;
};

// One block per SM: per-SM figures, the SM clock (cycles over globaltimer nanoseconds), and a check
// that the blocks really had an SM each.
struct PerSm {
  std::vector<double> cycles, mhz;
  size_t distinct_sms = 0;
};
inline PerSm per_sm(const DeviceArray<BlockTiming>& t) {
  PerSm r;
  std::set<uint32_t> sms;
  for (const auto& b : t.to_host()) {
    r.cycles.push_back(double(b.cycles));
    if (b.ns > 0) r.mhz.push_back(double(b.cycles) / double(b.ns) * 1000.0);
    sms.insert(b.sm);
  }
  r.distinct_sms = sms.size();
  return r;
}

// Shared memory that keeps every other block off the SM (more than half of the 228 KB).
constexpr int kOneBlockPerSmSmem = 120 * 1024;

template <class K>
void allow_smem(K kernel, size_t bytes) {
  TS_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

// ---------------------------------------------------------------------------------------------
// The benchmarks

struct Sizes {
  bool quick;
  int reps, wgmma_ms, clock_ms, tma_loads, chase_hops, smem_iters, l2_passes, launches;
  double pipe_cycles;  // cycles of work per run of a math-pipe or named-barrier microbenchmark
  size_t flush_bytes, hbm_bytes;
};
inline Sizes sizes_for(bool quick) {
  if (quick) return {true, 2, 1, 2, 64, 64, 16, 2, 50, 2e4, size_t(64) << 20, size_t(64) << 20};
  return {false, 5, 20, 400, 4096, 4096, 20000, 100, 2000, 2e6, size_t(256) << 20, size_t(1) << 30};
}

// What the steps share: the sizes, the report they add figures to, a device sink for results nobody
// reads (it keeps the compiler from removing the work), and figures one step measures for others.
struct Context {
  Context(const Options& o, Report& r) : sz(sizes_for(o.quick)), rep(r), sink(16), sub_partitions(o.sub_partitions) {
    int clock_khz = 0;
    TS_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    max_mhz = clock_khz / 1000.0;
  }
  void field(const std::string& key, double value, const std::string& unit, const std::string& method) {
    rep.fields.push_back({key, value, unit, method});
  }
  void extra(const std::string& key, double value, const std::string& unit, const std::string& method) {
    rep.extras.push_back({key, value, unit, method});
  }

  Sizes sz;
  Report& rep;
  DeviceArray<float> sink;
  std::unique_ptr<DeviceArray<uint4>> flush;  // the buffer that evicts L2 (calibrate_memory.cu), made once
  double overhead = 0;  // cycles of two back-to-back clock64 reads, subtracted from single-event latencies
  double max_mhz = 0;   // the most the driver says the SM clock reaches (cudaDevAttrClockRate)
  int sub_partitions;   // from the machine file (Options::sub_partitions)
};

// ---------------------------------------------------------------------------------------------
// The steps, by file. Each adds its figures to ctx.rep; a failure throws.

// calibrate_sm.cu: the tensor cores, mbarriers and the SM clock.
void mbarrier_round_trip(Context& ctx);
void wgmma_latency(Context& ctx, int n, bool fp8 = false);  // m64nNk16 bf16, N = 64, 128 or 256; m64n256k32 e4m3
void wgmma_rate(Context& ctx, int n, bool fp8 = false);
void sm_clock_under_load(Context& ctx);

// calibrate_memory.cu: shared memory, TMA, L2 and HBM.
void smem_bandwidth(Context& ctx);
void tma_latency(Context& ctx);
void tma_bandwidth(Context& ctx);
void tma_store(Context& ctx);
void chase(Context& ctx);
void l2_bandwidth(Context& ctx);
void hbm_bandwidth(Context& ctx);
void flush_l2(Context& ctx);  // evicts the L2 (reads a buffer several times its size; also for calibrate_hbm.cu)

// calibrate_hbm.cu: HBM's rate for TMA box streams shaped like a GEMM's A and B misses.
void hbm_patterns(Context& ctx);  // extras: hbm_bandwidth_scattered, _b_slices, _linear_boxes

// calibrate_port.cu: the shared-memory port between wgmma's operand reads and the warps' loads and stores.
void smem_port(Context& ctx);

// calibrate_pipes.cu: the math pipes of the SM's sub-partitions, and named barriers.
enum class Pipe { fma, alu, sfu, convert, shuffle };
void pipe(Context& ctx, Pipe p);  // <pipe>_interval and <pipe>_latency
void named_barrier(Context& ctx);

}  // namespace ts::kernels::calibrate::detail
