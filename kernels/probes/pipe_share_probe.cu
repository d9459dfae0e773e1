// How a sub-partition shares its math pipes between warps whose register math overlaps in time: in
// order of arrival (the first warp's instructions go first, as sim/engine.cpp's run_math books a
// pipe) or interleaved (the warps' instructions alternate, and they finish together)? With three
// consumer warpgroups doing softmax beside each other, the answer moves when each is done with it,
// and so how long the attention forward's loop takes.
//
// One block per SM, every SM busy; warps w, w + 4, w + 8 share sub-partition w % 4. Each of W
// warps of a sub-partition waits `delay` x its index cycles after a common start, runs `reps`
// times one tile op of the attention forward's softmax on a 16 x 128 fp32 register tile (64 values
// a lane), folds its results (6 dependent adds deep) and notes when it started and ended. Prints,
// per case, each warp's start and end in cycles after the common start (median over SMs and
// sub-partitions). A second table has each op fixed at compile time (no jump table in the loop) and
// the first warp of a sub-partition running another op than the others (ALU beside FMA, SFU beside
// FMA and ALU), started together.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tiles/tiles.hpp"

using namespace ts;

#include "kernels/device_clock.cuh"
#include "kernels/probes/check_cuda.cuh"

constexpr int kMaxWarps = 3;  // per sub-partition
using tile = rt_fl<16, 128>;
using rows = row_vec<tile>;

enum class Op { exp2, exp2_row, add, row_max, softmax };
constexpr const char* kOpNames[] = {"exp2", "exp2_row", "add", "row_max", "softmax"};

__device__ __forceinline__ float first(const rows& r) { return reinterpret_cast<const float*>(&r)[0]; }

// One repetition of the op; each feeds the next, so nothing folds away and every value is live.
__device__ __forceinline__ void run_op(Op op, tile& t, rows& m, rows& s) {
  switch (op) {
    case Op::exp2: exp2(t, t); break;                              // 64 MUFU.EX2 a lane: the SFU
    case Op::exp2_row: exp2_row(t, t, 0.125f, m); break;           // 64 FFMA + 64 MUFU (the softmax's exponentials)
    case Op::add: add(t, t, 1.5f); break;                          // 64 FADD: the FMA pipe, one issue a cycle
    case Op::row_max: row_max(m, t, m); add(t, t, first(m) * 1e-9f); break;  // a chain of FMNMX and shuffles
    case Op::softmax:                                              // the forward's online softmax, as in attention_fwd.cuh
      row_max(m, t, m);
      exp2_row(t, t, 0.125f, m);
      row_sum(s, t, s);
      mul(t, t, 0.5f);
      break;
  }
}

// out[((block * 4 + sub) * warps + i) * 2 + {0, 1}]: start and end of warp i of sub-partition sub,
// which runs `run(index, t, m, s)` (its repetitions of its op) after its delay.
template <class Run>
__device__ __forceinline__ void timed_warps(Run run, int warps, int delay, long long* out, float* sink) {
  const int warp = threadIdx.x / 32, sub = warp % 4, index = warp / 4;
  tile t;
  rows m, s;
  auto* v = reinterpret_cast<float*>(&t);
  for (int i = 0; i < 64; ++i) v[i] = 0.001f * ((threadIdx.x + 7 * i) % 97) - 0.05f;
  fill(m, -1.f);
  fill(s, 0.f);
  __syncthreads();
  const uint64_t t0 = clock_cycles();
  if (index < warps) {
    while (clock_cycles() - t0 < uint64_t(delay) * index) {
    }
    const uint64_t start = clock_cycles();
    run(index, t, m, s);
    // The last results must be back before the clock is read: fold them into one value first, as a
    // tree (6 steps deep) so that the fold adds little beside the op.
    for (int stride = 32; stride > 0; stride /= 2)
      for (int i = 0; i < stride; ++i) v[i] += v[i + stride];
    const float sum = v[0] + first(m) + first(s);
    if (sum == 1234.5f) sink[0] = sum;
    const uint64_t end = clock_cycles();
    if (threadIdx.x % 32 == 0) {
      out[((blockIdx.x * 4 + sub) * warps + index) * 2] = static_cast<long long>(start - t0);
      out[((blockIdx.x * 4 + sub) * warps + index) * 2 + 1] = static_cast<long long>(end - t0);
    }
  }
}

// Every warp the same op, chosen at run time (each repetition dispatched through a jump table).
__global__ void __launch_bounds__(128 * kMaxWarps, 1) share_kernel(Op op, int warps, int reps, int delay, long long* out,
                                                                    float* sink) {
  const auto run = [&](int, tile& t, rows& m, rows& s) {
#pragma unroll 1
    for (int r = 0; r < reps; ++r) run_op(op, t, m, s);
  };
  timed_warps(run, warps, delay, out, sink);
}

// The first warp of a sub-partition runs First, the others Others, each fixed at compile time (no
// dispatch in the loop): do warps whose ops need different pipes (ALU and FMA, SFU and FMA) overlap
// them, or do they share one scheduler's turns whatever the pipe?
template <Op First, Op Others>
__global__ void __launch_bounds__(128 * kMaxWarps, 1) mixed_kernel(int warps, int reps, long long* out, float* sink) {
  const auto run = [&](int index, tile& t, rows& m, rows& s) {
    if (index == 0) {
#pragma unroll 1
      for (int r = 0; r < reps; ++r) run_op(First, t, m, s);
    } else {
#pragma unroll 1
      for (int r = 0; r < reps; ++r) run_op(Others, t, m, s);
    }
  };
  timed_warps(run, warps, 0, out, sink);
}

// Runs a case (`launch()` three times: the last one's clocks count) and prints each warp's median
// start..end over SMs and sub-partitions, on one line after `label`.
template <class Launch>
void run_case(const char* label, Launch launch, int sms, int warps, const long long* out) {
  std::vector<long long> host(size_t(sms) * 4 * warps * 2);
  for (int warm = 0; warm < 3; ++warm) {
    launch();
    CHECK_CUDA(cudaGetLastError());
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemcpy(host.data(), out, host.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  std::printf("%s", label);
  const int samples = sms * 4;
  for (int i = 0; i < warps; ++i) {
    std::vector<long long> starts, ends;
    for (int b = 0; b < samples; ++b) starts.push_back(host[(b * warps + i) * 2]), ends.push_back(host[(b * warps + i) * 2 + 1]);
    std::nth_element(starts.begin(), starts.begin() + samples / 2, starts.end());
    std::nth_element(ends.begin(), ends.begin() + samples / 2, ends.end());
    std::printf("  w%d %6lld..%-7lld", i, starts[samples / 2], ends[samples / 2]);
  }
  std::printf("\n");
}

template <Op First, Op Others>
void mixed_case(int warps, int reps, int sms, long long* out, float* sink) {
  char label[64];
  std::snprintf(label, sizeof label, "%-9s %-9s %-5d %-5d", kOpNames[static_cast<int>(First)], kOpNames[static_cast<int>(Others)],
                warps, reps);
  run_case(label, [&] { mixed_kernel<First, Others><<<sms, 128 * kMaxWarps>>>(warps, reps, out, sink); }, sms, warps, out);
}

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  int sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  long long* out = nullptr;
  float* sink = nullptr;
  CHECK_CUDA(cudaMalloc(&out, sizeof(long long) * sms * 4 * kMaxWarps * 2));
  CHECK_CUDA(cudaMalloc(&sink, sizeof(float)));
  std::printf("%-9s %-5s %-5s %-6s  per warp of a sub-partition: start..end cycles after the common start (median over %d SMs x 4)\n",
              "op", "warps", "reps", "delay", sms);
  struct Case {
    Op op;
    int warps, reps, delay;
  };
  std::vector<Case> cases;
  for (Op op : {Op::exp2, Op::exp2_row, Op::add, Op::row_max, Op::softmax}) {
    const int reps = quick ? 2 : 16;
    for (int w = 1; w <= kMaxWarps; ++w) cases.push_back({op, w, reps, 0});
    cases.push_back({op, 2, reps, 1000});
    cases.push_back({op, 3, reps, 1000});
    // One op each, the second warp a little later: does the first finish as if alone (in order of
    // arrival), or do the two finish together (interleaved)?
    cases.push_back({op, 1, 1, 0});
    cases.push_back({op, 2, 1, 0});
    cases.push_back({op, 2, 1, 100});
    cases.push_back({op, 3, 1, 100});
  }
  for (const Case& c : cases) {
    char label[64];
    std::snprintf(label, sizeof label, "%-9s %-5d %-5d %-6d ", kOpNames[static_cast<int>(c.op)], c.warps, c.reps, c.delay);
    run_case(label, [&] { share_kernel<<<sms, 128 * kMaxWarps>>>(c.op, c.warps, c.reps, c.delay, out, sink); }, sms, c.warps, out);
  }
  // The ops fixed at compile time, the first warp's beside the others': each alone, each beside
  // itself, and pairs that need different pipes.
  const int reps = quick ? 2 : 16;
  std::printf("\n%-9s %-9s %-5s %-5s  per warp: start..end cycles after the common start (median over %d SMs x 4)\n", "first",
              "others", "warps", "reps", sms);
  for (int w = 1; w <= kMaxWarps; ++w) {
    mixed_case<Op::add, Op::add>(w, reps, sms, out, sink);
    mixed_case<Op::row_max, Op::row_max>(w, reps, sms, out, sink);
    mixed_case<Op::exp2, Op::exp2>(w, reps, sms, out, sink);
    mixed_case<Op::softmax, Op::softmax>(w, reps, sms, out, sink);
  }
  for (int w = 2; w <= kMaxWarps; ++w) {
    mixed_case<Op::row_max, Op::add>(w, reps, sms, out, sink);
    mixed_case<Op::add, Op::row_max>(w, reps, sms, out, sink);
    mixed_case<Op::exp2, Op::add>(w, reps, sms, out, sink);
    mixed_case<Op::add, Op::exp2>(w, reps, sms, out, sink);
    mixed_case<Op::exp2, Op::row_max>(w, reps, sms, out, sink);
    mixed_case<Op::softmax, Op::add>(w, reps, sms, out, sink);
  }
  CHECK_CUDA(cudaFree(out));
  CHECK_CUDA(cudaFree(sink));
  return 0;
}
