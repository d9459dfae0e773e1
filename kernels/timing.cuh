#pragma once
// Timing two launches against each other on the GPU, shared by the benches (gemm_bench.cu: ours
// against cuBLAS; stamps/recorded_launch.cu: the plain build against the recording one).
// Include from a .cu file only.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace ts::kernels {

inline constexpr int timed_warmups = 3;  // launches of each before the timed ones

struct Timed {
  double ours_ms, theirs_ms;
};

// Times `ours(i)` and `theirs(i)` alternately (ABAB..., i cycling over `sets` input sets), so that
// both see the same clocks and power state, after timed_warmups (3) of each (module load, handles,
// clocks); returns both medians in ms. `ours` is called timed_warmups + reps times, in order.
template <class F, class G>
Timed median_ms_interleaved(F&& ours, G&& theirs, int sets, int reps) {
  const auto check = [](cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
  };
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  for (int i = 0; i < timed_warmups; ++i) ours(i % sets), theirs(i % sets);
  check(cudaDeviceSynchronize(), "warm-up");
  auto time_one = [&](auto&& run, int i) {
    check(cudaEventRecord(start), "cudaEventRecord");
    run(i % sets);
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return ms;
  };
  std::vector<float> a, b;
  for (int i = 0; i < reps; ++i) {
    a.push_back(time_one(ours, i));
    b.push_back(time_one(theirs, i));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return {a[a.size() / 2], b[b.size() / 2]};
}

}  // namespace ts::kernels
