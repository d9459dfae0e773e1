// Microbenchmarks of the SM's tensor cores, mbarriers and clock behind `tilescope calibrate`: wgmma
// rate and latency (tiles/ on shared-memory descriptors), the mbarrier round trip between two warps,
// and the SM clock while the tensor cores are busy. Cycles come from clock64 inside the kernels;
// every figure is a median.
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/calibrate/calibrate_common.cuh"
#include "tiles/tiles.hpp"

namespace ts::kernels::calibrate::detail {
namespace {

// ---------------------------------------------------------------------------------------------
// wgmma: one m64nNk16 bf16 instruction (fp32 accumulators), A (64 x 64) and B (64 x N, N-major),
// or one m64nNk32 fp8 e4m3 instruction, A (64 x 128) and B (N x 128, K-major: fp8 reads both
// operands K-major), in shared memory with the GEMM's own tiles, descriptors and swizzles. A
// 128-byte row of K is one slice either way: 4 instructions.

template <class T, int N, int WGS>
struct WgmmaSmem {
  static constexpr int slice = 128 / sizeof(T);  // elements of K in one 128-byte row
  using b_tile = std::conditional_t<sizeof(T) == 1, st<T, N, slice>, st<T, slice, N>>;
  st<T, 64, slice> a[WGS];  // one A per warpgroup, as the GEMM's consumers have
  b_tile b;
};

template <class T, int N, int WGS>
__device__ void mma_slice(rt_fl<16, N>& acc, const WgmmaSmem<T, N, WGS>& s, int wg) {
  if constexpr (sizeof(T) == 1) warpgroup::mma_ABt(acc, s.a[wg], s.b, true);
  else warpgroup::mma_AB(acc, s.a[wg], s.b, true);
}

// The instruction's name in field keys and notes: m64n256k16, m64n256k32_fp8.
template <class T, int N>
std::string wgmma_shape() {
  return "m64n" + std::to_string(N) + (sizeof(T) == 1 ? "k32_fp8" : "k16");
}

// Every warpgroup issues `iters` x 4 instructions (one 64-deep slice: mma_AB, commit, keep one
// group in flight, as the GEMM's consumers do). One block per SM, all SMs busy.
template <class T, int N, int WGS>
__global__ void __launch_bounds__(128 * WGS, 1) wgmma_rate_kernel(int iters, uint32_t seed, BlockTiming* timing, float* sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& s = *reinterpret_cast<WgmmaSmem<T, N, WGS>*>(smem);
  for (int w = 0; w < WGS; ++w) fill_tile(s.a[w], seed + w);
  fill_tile(s.b, seed + 101);
  fence_async_shared();
  __syncthreads();
  const int wg = warpgroup::groupid();
  rt_fl<16, N> acc;
  zero(acc);
  warpgroup::mma_fence(acc);
  __syncthreads();
  const uint64_t c0 = clock_cycles(), t0 = global_ns();
  for (int i = 0; i < iters; ++i) {
    mma_slice(acc, s, wg);
    warpgroup::mma_commit_group();
    warpgroup::mma_async_wait<1>(acc);
  }
  warpgroup::mma_async_wait<0>(acc);
  __syncthreads();
  const uint64_t c1 = clock_cycles(), t1 = global_ns();
  if (threadIdx.x == 0) timing[blockIdx.x] = {c1 - c0, t1 - t0, sm_id(), 0};
  const float sum = checksum(acc);
  if (sum == 1234567.f) sink[0] = sum;  // keeps the accumulators live
}

// One warpgroup, one SM: a single instruction from issue to wgmma.wait_group 0 returning.
template <class T, int N>
__global__ void __launch_bounds__(128, 1) wgmma_latency_kernel(int reps, uint32_t seed, unsigned* cycles, float* sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  using S = WgmmaSmem<T, N, 1>;
  auto& s = *reinterpret_cast<S*>(smem);
  fill_tile(s.a[0], seed);
  fill_tile(s.b, seed + 101);
  fence_async_shared();
  __syncthreads();
  rt_fl<16, N> acc;
  zero(acc);
  auto& regs = device::accumulator_regs(acc);
  constexpr bool b_mn_major = sizeof(T) == 2;
  const uint64_t da = device::descriptor<st<T, 64, S::slice>, false>(s.a[0], 0);
  const uint64_t db = device::descriptor<typename S::b_tile, b_mn_major>(s.b, 0);
  for (int r = 0; r < reps; ++r) {
    warpgroup::mma_fence(acc);
    const uint64_t c0 = clock_cycles();
    device::wgmma_ss<T, N, 0, b_mn_major>(regs, da, db, 1u);
    warpgroup::mma_commit_group();
    warpgroup::mma_async_wait<0>(acc);
    const uint64_t c1 = clock_cycles();
    if (threadIdx.x == 0) cycles[r] = static_cast<unsigned>(c1 - c0);
  }
  const float sum = checksum(acc);
  if (sum == 1234567.f) sink[0] = sum;
}

// ---------------------------------------------------------------------------------------------
// mbarrier ping-pong: lane 0 of warp 0 arrives on `ping` and waits on `pong`; lane 0 of warp 1
// waits on `ping` and arrives on `pong`. Warp 0 times iterations warm..warm+iters.
__global__ void mbarrier_pingpong_kernel(int warm, int iters, unsigned long long* cycles) {
  __shared__ barrier ping, pong;
  if (threadIdx.x == 0) {
    ts::init(ping, 1);
    ts::init(pong, 1);
  }
  __syncthreads();
  const int total = warm + iters;
  if (threadIdx.x == 0) {
    uint64_t c0 = 0;
    for (int i = 0; i < total; ++i) {
      if (i == warm) c0 = clock_cycles();
      ts::arrive(ping);
      ts::wait(pong, i & 1);
    }
    cycles[0] = clock_cycles() - c0;
  } else if (threadIdx.x == 32) {
    for (int i = 0; i < total; ++i) {
      ts::wait(ping, i & 1);
      ts::arrive(pong);
    }
  }
  __syncthreads();
}

// ---------------------------------------------------------------------------------------------
// The benchmarks

template <class T, int N>
void wgmma_latency_n(Context& ctx) {
  const int reps = ctx.sz.quick ? 16 : 1000;
  DeviceArray<unsigned> c(reps);
  constexpr size_t smem = sizeof(WgmmaSmem<T, N, 1>);
  allow_smem(wgmma_latency_kernel<T, N>, smem);
  wgmma_latency_kernel<T, N><<<1, 128, smem>>>(reps, 7, c.p, ctx.sink.p);
  TS_CHECK_LAUNCH("wgmma_latency_kernel");
  TS_CHECK(cudaDeviceSynchronize());
  const auto v = as_doubles(c.to_host(), reps / 10);
  const double lat = median(v) - ctx.overhead;
  const std::string shape = wgmma_shape<T, N>();
  ctx.field("wgmma_" + shape + "_latency", round_to(lat, 1), "cycles",
        "one warpgroup on one SM: wgmma.fence, clock64, one wgmma.mma_async " + shape + (sizeof(T) == 1 ? " e4m3" : " bf16") +
            " (A and B in shared memory, 128-byte swizzle), commit_group, wait_group 0, clock64; median of " +
            std::to_string(reps) + " minus the clock-read overhead");
  ctx.extra("wgmma_" + shape + "_latency_p90", round_to(quantile(v, 0.9) - ctx.overhead, 1), "cycles", "90th percentile of the same samples");
}

// Cycles per instruction per SM with WGS warpgroups per SM, every SM busy; also the SM clock.
template <class T, int N, int WGS>
PerSm wgmma_rate_run(Context& ctx, int iters, uint32_t seed) {
  const int sms = ctx.rep.sm_count;
  DeviceArray<BlockTiming> t(sms);
  constexpr size_t need = sizeof(WgmmaSmem<T, N, WGS>);
  const size_t smem = std::max<size_t>(need, kOneBlockPerSmSmem);
  allow_smem(wgmma_rate_kernel<T, N, WGS>, smem);
  wgmma_rate_kernel<T, N, WGS><<<sms, 128 * WGS, smem>>>(iters, seed, t.p, ctx.sink.p);
  TS_CHECK_LAUNCH("wgmma_rate_kernel");
  TS_CHECK(cudaDeviceSynchronize());
  PerSm r = per_sm(t);
  if (r.distinct_sms != size_t(sms))
    throw std::runtime_error("wgmma rate: " + std::to_string(sms) + " blocks ran on only " + std::to_string(r.distinct_sms) + " SMs");
  return r;
}

// Iterations (each 4 instructions per warpgroup) for about `ms` at the datasheet rate of
// 4096 FLOP per cycle per SM for bf16 (8192 for fp8, the same cycles per instruction) and the maximum clock.
template <int N, int WGS>
int wgmma_iters(const Context& ctx, double ms) {
  const double cycles = ms * 1e-3 * ctx.max_mhz * 1e6, per_instruction = 2.0 * 64 * N * 16 / 4096;
  return std::max(1, static_cast<int>(cycles / (per_instruction * 4 * WGS)));
}

template <class T, int N>
void wgmma_rate_n(Context& ctx) {
  auto run = [&](auto wgs_tag) {
    constexpr int WGS = decltype(wgs_tag)::value;
    const int iters = wgmma_iters<N, WGS>(ctx, ctx.sz.wgmma_ms);
    wgmma_rate_run<T, N, WGS>(ctx, iters, 11);  // warm-up
    std::vector<double> per_run;
    for (int r = 0; r < ctx.sz.reps; ++r) {
      const PerSm s = wgmma_rate_run<T, N, WGS>(ctx, iters, 12 + r);
      per_run.push_back(median(s.cycles) / (double(iters) * 4 * WGS));
    }
    return std::pair<double, int>(median(per_run), iters);
  };
  const auto [two, iters2] = run(std::integral_constant<int, 2>{});
  const auto [one, iters1] = run(std::integral_constant<int, 1>{});
  const std::string shape = wgmma_shape<T, N>();
  constexpr int k = mma_k<T>;
  ctx.field("wgmma_" + shape + "_interval", round_to(two, 2), "cycles/instruction",
        "one block per SM on all " + std::to_string(ctx.rep.sm_count) + " SMs, two warpgroups (as the GEMM's consumers), each issuing " + std::to_string(iters2) + " x 4 wgmma.mma_async " + shape +
            (sizeof(T) == 1 ? " e4m3 from shared memory (mma_ABt of a 128-deep slice" : " bf16 from shared memory (mma_AB of a 64-deep slice") +
            ", commit, wait_group 1); block cycles / instructions of the SM; median over SMs, then over " + std::to_string(ctx.sz.reps) + " runs");
  ctx.extra("wgmma_" + shape + "_interval_one_warpgroup", round_to(one, 2), "cycles/instruction", "the same with one warpgroup per SM");
  ctx.extra("wgmma_" + shape + "_flop_per_cycle_per_sm", round_to(2.0 * 64 * N * k / two, 0), "FLOP/cycle",
        "2 x 64 x N x " + std::to_string(k) + " over the two-warpgroup interval (the datasheet peak is " + (sizeof(T) == 1 ? "8192" : "4096") + ")");
}


}  // namespace

void mbarrier_round_trip(Context& ctx) {
  DeviceArray<unsigned long long> c(1);
  const int iters = ctx.sz.quick ? 100 : 20000;
  std::vector<double> per;
  for (int r = 0; r < ctx.sz.reps; ++r) {
    mbarrier_pingpong_kernel<<<1, 64>>>(100, iters, c.p);
    TS_CHECK_LAUNCH("mbarrier_pingpong_kernel");
    TS_CHECK(cudaDeviceSynchronize());
    per.push_back(double(c.to_host()[0]) / iters);
  }
  ctx.field("mbarrier_round_trip", round_to(median(per), 1), "cycles",
        "two warps of one block ping-pong on two mbarriers (lane 0 of warp 0: arrive ping, wait pong; lane 0 of warp 1: wait ping, arrive pong), cycles per round over " + std::to_string(iters) + " rounds; median of " + std::to_string(ctx.sz.reps) + " runs");
}


void wgmma_latency(Context& ctx, int n, bool fp8) {
  if (fp8 && n == 256) return wgmma_latency_n<fp8e4m3, 256>(ctx);
  if (!fp8) switch (n) {
      case 64: return wgmma_latency_n<bf16, 64>(ctx);
      case 128: return wgmma_latency_n<bf16, 128>(ctx);
      case 256: return wgmma_latency_n<bf16, 256>(ctx);
    }
  throw std::runtime_error("wgmma latency: no instruction m64n" + std::to_string(n) + (fp8 ? " fp8" : " bf16") + " here");
}

void wgmma_rate(Context& ctx, int n, bool fp8) {
  if (fp8 && n == 256) return wgmma_rate_n<fp8e4m3, 256>(ctx);
  if (!fp8) switch (n) {
      case 64: return wgmma_rate_n<bf16, 64>(ctx);
      case 128: return wgmma_rate_n<bf16, 128>(ctx);
      case 256: return wgmma_rate_n<bf16, 256>(ctx);
    }
  throw std::runtime_error("wgmma rate: no instruction m64n" + std::to_string(n) + (fp8 ? " fp8" : " bf16") + " here");
}

void sm_clock_under_load(Context& ctx) {
  const int iters = wgmma_iters<256, 2>(ctx, ctx.sz.clock_ms);
  std::vector<double> per_run;
  for (int r = 0; r < std::min(ctx.sz.reps, 3); ++r) per_run.push_back(median(wgmma_rate_run<bf16, 256, 2>(ctx, iters, 40 + r).mhz));
  ctx.field("sm_clock_under_load", round_to(median(per_run), 0), "MHz",
        "clock64 cycles over globaltimer nanoseconds of each block of the two-warpgroup m64n256k16 wgmma loop (every SM, tensor cores busy, about " +
            std::to_string(ctx.sz.clock_ms) + " ms a run); median over SMs, then over runs");
  ctx.extra("sm_clock_under_load_min_run", round_to(*std::min_element(per_run.begin(), per_run.end()), 0), "MHz", "lowest run median");
}

}  // namespace ts::kernels::calibrate::detail
