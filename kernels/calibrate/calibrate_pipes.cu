// Microbenchmarks of the SM's sub-partitions behind `tilescope calibrate --only pipes`: for each math
// pipe the register-tile ops of tiles/ use (FMA, ALU, SFU, conversions, shuffles), the interval
// between two warp instructions on one sub-partition's pipe and the latency of a dependent chain;
// and the cost of a named barrier between two warpgroups.
//
// Each pipe is measured with the one instruction the DSL's device backend issues for it
// (tiles/ops/math.hpp, tiles/backend/device/tile_math.cuh), in inline PTX: the result of each step
// feeds the next one (so nothing is dead) and the other operands are kernel arguments (so ptxas
// folds nothing). Loop overhead cancels: every figure is the difference between two runs that differ
// only in how many instructions one loop iteration holds (kShortUnroll and kLongUnroll steps), divided
// by the difference in instructions. What ptxas made of each loop (sm_90a, the project's flags) was
// read from the cubin's opcodes: exactly one instruction of the intended kind per step (FFMA,
// FMNMX, MUFU, F2FP, SHFL, BAR) and three more an iteration (counter add, compare, branch); on a GPU
// machine scripts/gpu-calibrate keeps `cuobjdump -sass` of these kernels (sass-pipes.txt).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/calibrate/calibrate_common.cuh"

namespace ts::kernels::calibrate::detail {
namespace {

// ---------------------------------------------------------------------------------------------
// One step of a chain on each pipe: x = f(x, p, q) in one instruction. `j` is the step's index
// within the unrolled loop body (a constant after unrolling). The neg.f32 of alu and sfu folds into
// the instruction's source modifier (FMNMX R, -R, R; MUFU.EX2 R, -R): it keeps the chain from being
// idempotent (ptxas could drop a repeated max) and its values bounded (2^x alone overflows).

struct FmaStep {  // x = x * p + q: with p = q = 0.5 it settles at 1
  using T = float;
  static constexpr float p = 0.5f, q = 0.5f;
  __device__ static T init(int k) { return 1.0f + 0.125f * k; }
  __device__ static void step(T& x, float a, float b, int) { asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b)); }
};

struct AluStep {  // x = max(-x, p): with p = -0.25 it flips between 0.25 and -0.25
  using T = float;
  static constexpr float p = -0.25f, q = 0.0f;
  __device__ static T init(int k) { return 0.5f + 0.125f * k; }
  __device__ static void step(T& x, float a, float, int) {
    asm volatile("{ .reg .f32 t; neg.f32 t, %0; max.f32 %0, t, %1; }" : "+f"(x) : "f"(a));
  }
};

struct SfuStep {  // x = 2^-x: settles at 0.641
  using T = float;
  static constexpr float p = 0.0f, q = 0.0f;
  __device__ static T init(int k) { return 0.5f + 0.125f * k; }
  __device__ static void step(T& x, float, float, int) {
    asm volatile("{ .reg .f32 t; neg.f32 t, %0; ex2.approx.ftz.f32 %0, t; }" : "+f"(x));
  }
};

// x's bits = bf16(x) in the upper half, bf16(p) in the lower: read back as fp32 that is x to bf16
// precision, so the chain stays where it started.
struct ConvertStep {
  using T = float;
  static constexpr float p = 0.75f, q = 0.0f;
  __device__ static T init(int k) { return 1.5f + 0.125f * k; }
  __device__ static void step(T& x, float a, float, int) {
    asm volatile("{ .reg .b32 t; cvt.rn.bf16x2.f32 t, %0, %1; mov.b32 %0, t; }" : "+f"(x) : "f"(a));
  }
};

struct ShuffleStep {  // x = x of the lane whose id differs in bit j % 5: a butterfly, as the row reductions do
  using T = uint32_t;
  static constexpr float p = 0.0f, q = 0.0f;
  __device__ static T init(int k) { return threadIdx.x * 8u + k; }
  __device__ static void step(T& x, float, float, int j) {
    asm volatile("shfl.sync.bfly.b32 %0, %0, %1, 0x1f, 0xffffffff;" : "+r"(x) : "r"(1u << (j % 5)));
  }
};

template <class T>
__device__ float as_float(T x) {
  if constexpr (sizeof(T) == 4 && !std::is_same_v<T, float>) return __uint_as_float(x);
  else return x;
}

constexpr int kIlp = 8;                    // independent chains per thread in the interval runs
constexpr int kWarpsPerSubPartition = 4;  // with kIlp chains each: 32 instructions in flight per sub-partition
constexpr int kShortUnroll = 16, kLongUnroll = 32;  // chain steps per loop iteration in the two runs

// Interval: one block per SM, kWarpsPerSubPartition warps per sub-partition, each thread kIlp
// independent chains of U steps per iteration. Block cycles between two __syncthreads.
template <class Op, int U>
__global__ void __launch_bounds__(1024, 1) pipe_rate_kernel(int iters, float p, float q, BlockTiming* timing, float* sink) {
  typename Op::T x[kIlp];
#pragma unroll
  for (int k = 0; k < kIlp; ++k) x[k] = Op::init(k);
  __syncthreads();
  const uint64_t c0 = clock_cycles(), t0 = global_ns();
#pragma unroll 1  // one copy of the body: both runs pay the same loop overhead per iteration
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < U; ++j)
#pragma unroll
      for (int k = 0; k < kIlp; ++k) Op::step(x[k], p, q, j);
  }
  __syncthreads();
  const uint64_t c1 = clock_cycles(), t1 = global_ns();
  if (threadIdx.x == 0) timing[blockIdx.x] = {c1 - c0, t1 - t0, sm_id(), 0};
  float s = 0;
#pragma unroll
  for (int k = 0; k < kIlp; ++k) s += as_float(x[k]);
  if (s == 1234567.f) sink[0] = s;  // never in practice; keeps the chains live
}

// Latency: one warp, one chain of U steps per iteration; cycles of the whole loop.
template <class Op, int U>
__global__ void pipe_latency_kernel(int iters, float p, float q, unsigned long long* cycles, float* sink) {
  typename Op::T x = Op::init(0);
  const uint64_t c0 = clock_cycles();
#pragma unroll 1  // one copy of the body: both runs pay the same loop overhead per iteration
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < U; ++j) Op::step(x, p, q, j);
  }
  const uint64_t c1 = clock_cycles();
  if (threadIdx.x == 0) cycles[0] = c1 - c0;
  if (as_float(x) == 1234567.f) sink[0] = as_float(x);
}

// Named barrier: 8 warps (two warpgroups) of one block meet at barrier 1 U times per iteration.
template <int U>
__global__ void __launch_bounds__(256, 1) named_barrier_kernel(int iters, BlockTiming* timing) {
  __syncthreads();
  const uint64_t c0 = clock_cycles(), t0 = global_ns();
#pragma unroll 1  // one copy of the body: both runs pay the same loop overhead per iteration
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < U; ++j) asm volatile("bar.sync 1, 256;" ::: "memory");
  }
  __syncthreads();
  const uint64_t c1 = clock_cycles(), t1 = global_ns();
  if (threadIdx.x == 0) timing[blockIdx.x] = {c1 - c0, t1 - t0, sm_id(), 0};
}

// ---------------------------------------------------------------------------------------------
// The benchmarks

// What each pipe's figures say, and the CUDA C++ Programming Guide's throughput for compute
// capability 9.0 (results per clock per SM) as a cross-check: on S sub-partitions a warp
// instruction every 32 x S / results cycles per sub-partition. The value comes from the run.
struct PipeInfo {
  const char* name;         // field prefix
  const char* instruction;  // PTX, and the SASS it became in the loops (sm_90a, read as the file header says)
  const char* guide_row;    // the Programming Guide's row
  double guide_results;     // its results per clock per SM
};
PipeInfo info(Pipe p) {
  switch (p) {
    case Pipe::fma:
      return {"fma", "fma.rn.f32 x, x, p, q (SASS: one FFMA a step, p from the constant bank)", "32-bit floating-point add, multiply, multiply-add", 128};
    case Pipe::alu:
      return {"alu", "neg.f32 t, x; max.f32 x, t, p (SASS: one FMNMX a step, the negation folded into its source operand)", "compare, minimum, maximum", 64};
    case Pipe::sfu:
      return {"sfu", "neg.f32 t, x; ex2.approx.ftz.f32 x, t (SASS: one MUFU.EX2 a step, the negation folded into its source operand)",
              "32-bit floating-point reciprocal, reciprocal square root, base-2 logarithm, base 2 exponential, sine, cosine", 16};
    case Pipe::convert:
      return {"convert", "cvt.rn.bf16x2.f32 t, x, p; mov.b32 x, t (SASS: one F2FP.BF16.F32.PACK_AB a step, the move gone)",
              "all other type conversions (the guide names no packed bf16x2 conversion)", 16};
    case Pipe::shuffle:
      return {"shuffle", "shfl.sync.bfly.b32 x, x, 1 << (j % 5), 0x1f, 0xffffffff (SASS: one SHFL.BFLY a step, lane mask and clamp immediate)", "warp shuffle", 32};
  }
  throw std::logic_error("unknown pipe");
}

int sub_partitions(const Context& ctx) {
  const int s = ctx.sub_partitions;
  if (s < 1 || s > 8) throw std::runtime_error("the machine file's sub_partitions (" + std::to_string(s) + ") is not 1..8");
  return s;
}

// Medians over SMs of the two interval runs, paired per repetition: cycles per instruction on one
// sub-partition, from the difference.
template <class Op>
void pipe_n(Context& ctx, const PipeInfo& pi) {
  const int sms = ctx.rep.sm_count, subs = sub_partitions(ctx);
  const int warps = kWarpsPerSubPartition * subs, threads = 32 * warps;
  const double guide_interval = 32.0 * subs / pi.guide_results;
  // Sized at the guide's rate, so that each run takes about ctx.sz.pipe_cycles.
  const int iters = std::max(1, static_cast<int>(ctx.sz.pipe_cycles / (kLongUnroll * kIlp * kWarpsPerSubPartition * guide_interval)));
  DeviceArray<BlockTiming> t(sms);
  allow_smem(pipe_rate_kernel<Op, kShortUnroll>, kOneBlockPerSmSmem);
  allow_smem(pipe_rate_kernel<Op, kLongUnroll>, kOneBlockPerSmSmem);
  auto block_cycles = [&](auto kernel) {
    kernel<<<sms, threads, kOneBlockPerSmSmem>>>(iters, Op::p, Op::q, t.p, ctx.sink.p);
    TS_CHECK_LAUNCH("pipe_rate_kernel");
    TS_CHECK(cudaDeviceSynchronize());
    const PerSm r = per_sm(t);
    if (r.distinct_sms != size_t(sms))
      throw std::runtime_error(std::string(pi.name) + " rate: " + std::to_string(sms) + " blocks ran on only " + std::to_string(r.distinct_sms) + " SMs");
    return median(r.cycles);
  };
  block_cycles(pipe_rate_kernel<Op, kLongUnroll>);  // warm-up
  const double per_sub_partition_step = double(iters) * kIlp * kWarpsPerSubPartition;  // instructions per sub-partition per unrolled step
  std::vector<double> interval, whole;
  for (int r = 0; r < ctx.sz.reps; ++r) {
    const double short_run = block_cycles(pipe_rate_kernel<Op, kShortUnroll>);
    const double long_run = block_cycles(pipe_rate_kernel<Op, kLongUnroll>);
    interval.push_back((long_run - short_run) / (per_sub_partition_step * (kLongUnroll - kShortUnroll)));
    whole.push_back(long_run / (per_sub_partition_step * kLongUnroll));
  }

  // Latency: one warp alone on the GPU.
  const int lat_iters = std::max(1, static_cast<int>(ctx.sz.pipe_cycles / (kLongUnroll * 32.0)));
  DeviceArray<unsigned long long> c(1);
  auto chain_cycles = [&](auto kernel) {
    kernel<<<1, 32>>>(lat_iters, Op::p, Op::q, c.p, ctx.sink.p);
    TS_CHECK_LAUNCH("pipe_latency_kernel");
    TS_CHECK(cudaDeviceSynchronize());
    return double(c.to_host()[0]);
  };
  chain_cycles(pipe_latency_kernel<Op, kLongUnroll>);  // warm-up (instruction cache)
  std::vector<double> latency;
  for (int r = 0; r < ctx.sz.reps; ++r) {
    const double short_run = chain_cycles(pipe_latency_kernel<Op, kShortUnroll>);
    const double long_run = chain_cycles(pipe_latency_kernel<Op, kLongUnroll>);
    latency.push_back((long_run - short_run) / (double(lat_iters) * (kLongUnroll - kShortUnroll)));
  }

  const std::string name = pi.name, how = std::string(pi.instruction) + ", nothing else in the loop but its counter add, compare and branch; the difference of two runs whose loops hold " +
                                            std::to_string(kLongUnroll) + " and " + std::to_string(kShortUnroll) + " steps a chain an iteration (loop overhead cancels)";
  const double got = median(interval);
  // A difference of two timings: noise (a --quick run's few iterations) could make it meaningless.
  if (!(got > 0) || !(median(latency) > 0))
    throw std::runtime_error(name + ": the longer loop was not slower (interval " + fmt("%g", got) + ", latency " + fmt("%g", median(latency)) + ")");
  ctx.field(name + "_interval", round_to(got, 2), "cycles/instruction",
            "one block per SM on all " + std::to_string(sms) + " SMs, " + std::to_string(warps) + " warps (" + std::to_string(kWarpsPerSubPartition) +
                " per sub-partition), each thread " + std::to_string(kIlp) + " independent chains of " + how + ", " + std::to_string(iters) +
                " iterations; block cycles over the instructions of one sub-partition, median over SMs, then over " + std::to_string(ctx.sz.reps) +
                " runs. Cross-check: the CUDA C++ Programming Guide gives " + fmt("%g", pi.guide_results) + " results per clock per SM for compute capability 9.0 (" +
                pi.guide_row + "), an interval of " + fmt("%g", guide_interval) + " on " + std::to_string(subs) + " sub-partitions");
  ctx.field(name + "_latency", round_to(median(latency), 1), "cycles",
            "one warp on one SM, one dependent chain of " + how + ", " + std::to_string(lat_iters) + " iterations; cycles per instruction, median of " +
                std::to_string(ctx.sz.reps) + " runs");
  ctx.extra(name + "_results_per_cycle_per_sm", round_to(32.0 * subs / got, 1), "results/cycle",
            "32 lanes x " + std::to_string(subs) + " sub-partitions over the interval; the guide's figure is " + fmt("%g", pi.guide_results));
  ctx.extra(name + "_interval_with_loop", round_to(median(whole), 2), "cycles/instruction",
            "the " + std::to_string(kLongUnroll) + "-step run alone, loop overhead included");
}

}  // namespace

void pipe(Context& ctx, Pipe p) {
  const PipeInfo pi = info(p);
  switch (p) {
    case Pipe::fma: return pipe_n<FmaStep>(ctx, pi);
    case Pipe::alu: return pipe_n<AluStep>(ctx, pi);
    case Pipe::sfu: return pipe_n<SfuStep>(ctx, pi);
    case Pipe::convert: return pipe_n<ConvertStep>(ctx, pi);
    case Pipe::shuffle: return pipe_n<ShuffleStep>(ctx, pi);
  }
}

void named_barrier(Context& ctx) {
  const int sms = ctx.rep.sm_count;
  const int iters = std::max(1, static_cast<int>(ctx.sz.pipe_cycles / (kLongUnroll * 32.0)));
  DeviceArray<BlockTiming> t(sms);
  allow_smem(named_barrier_kernel<kShortUnroll>, kOneBlockPerSmSmem);
  allow_smem(named_barrier_kernel<kLongUnroll>, kOneBlockPerSmSmem);
  auto block_cycles = [&](auto kernel) {
    kernel<<<sms, 256, kOneBlockPerSmSmem>>>(iters, t.p);
    TS_CHECK_LAUNCH("named_barrier_kernel");
    TS_CHECK(cudaDeviceSynchronize());
    const PerSm r = per_sm(t);
    if (r.distinct_sms != size_t(sms))
      throw std::runtime_error("named barrier: " + std::to_string(sms) + " blocks ran on only " + std::to_string(r.distinct_sms) + " SMs");
    return median(r.cycles);
  };
  block_cycles(named_barrier_kernel<kLongUnroll>);  // warm-up
  std::vector<double> per;
  for (int r = 0; r < ctx.sz.reps; ++r) {
    const double short_run = block_cycles(named_barrier_kernel<kShortUnroll>);
    const double long_run = block_cycles(named_barrier_kernel<kLongUnroll>);
    per.push_back((long_run - short_run) / (double(iters) * (kLongUnroll - kShortUnroll)));
  }
  if (!(median(per) > 0)) throw std::runtime_error("named barrier: the longer loop was not slower (" + fmt("%g", median(per)) + " cycles)");
  ctx.field("named_barrier_cycles", round_to(median(per), 1), "cycles",
            "one block of 256 threads (two warpgroups, 8 warps) per SM on all " + std::to_string(sms) +
                " SMs, every warp looping on bar.sync 1, 256 (SASS: one BAR.SYNC a barrier, nothing else in the loop but its counter add, compare and branch); cycles per barrier from the difference of runs with " +
                std::to_string(kLongUnroll) + " and " + std::to_string(kShortUnroll) + " barriers an iteration, " + std::to_string(iters) +
                " iterations; median over SMs, then over " + std::to_string(ctx.sz.reps) + " runs");
}

}  // namespace ts::kernels::calibrate::detail
