#pragma once
// GPU-side checks and benchmarks of the GEMM against cuBLAS (gemm_bench.cu). Plain C++ interface.
#include <iterator>
#include <string>
#include <vector>

#include "kernels/gemm/gemm_api.hpp"

namespace ts::kernels {

struct GemmCheck {
  double rel_frobenius_error;  // ||ours - cuBLAS|| / ||cuBLAS||, fresh random inputs
  long long unwritten;         // output elements still holding the poison after our kernel
  long long outside_rounding = 0;  // bf16 C only: elements further than one bf16 ulp from cuBLAS's fp32 sum
  // fp8 only. The tensor core sums fp8 products in fewer bits than fp32, so where the products
  // cancel, C may stray beyond one bf16 ulp of the exact sum. Measured as the largest error beyond
  // bf16's rounding over the sum of the products' magnitudes, for ours and for cuBLASLt's FP8 GEMM
  // on the same inputs, with cuBLASLt's count of elements beyond one ulp beside ours.
  double accumulation_error = 0, cublaslt_accumulation_error = 0;
  long long cublaslt_outside_rounding = 0;
};

// Fills n bf16 at device pointer p with values uniform in [-1, 1), a hash of (seed, index), on the GPU.
void random_bf16(void* p, long long n, unsigned seed);
// The same for a GEMM input of either type: fp8 e4m3 values uniform in [-4, 4) before rounding.
void random_gemm_input(void* p, long long n, unsigned seed, InType in);

// Runs ours and cuBLAS on the same fresh random inputs (seed); cuBLAS writes fp32, ours fp32 too
// unless `out` asks for the bf16 C (whose check is then rounding to nearest of cuBLAS's sums).
// fp8 inputs (cfg.in): the reference is a plain fp32 kernel of ours (exact products, fp32 sums,
// scaled), more precise than any tensor core's fp8 accumulation, cuBLASLt's included.
GemmCheck check_gemm_against_cublas(const GemmShape& shape, GemmConfig cfg, unsigned seed, OutType out = OutType::fp32);

// One launch on random inputs with every block timing itself: the median SM clock over blocks (MHz).
double gemm_sm_clock_mhz(const GemmShape& shape, const GemmConfig& cfg);

struct BenchRow {
  std::string group;  // which sweep the row belongs to
  GemmShape shape;
  GemmConfig cfg;
  double ms = 0, tflops = 0, cublas_ms = 0, cublas_tflops = 0;
  double sm_clock_mhz = 0;        // of our timed launches themselves (BlockClock), the median over them
  double sm_clock_after_mhz = 0;  // of one more launch right after them (the method until 2026-12-07)
};

// The sweeps `bench gemm --only` takes, by name, and the message for any other name: the CLI checks
// a name before it needs a GPU, run_gemm_bench again when called from elsewhere.
inline constexpr const char* gemm_sweeps[] = {"size", "skinny", "stages", "order", "layout", "tile",
                                              "cluster", "splitk", "shapes", "fp8", "holdout", "epilogue", "tail"};
inline bool is_gemm_sweep(const std::string& name) {
  for (const char* s : gemm_sweeps)
    if (name == s) return true;
  return false;
}
inline std::string unknown_gemm_sweep(const std::string& name) {
  std::string expected;
  for (std::size_t i = 0; i < std::size(gemm_sweeps); ++i)
    expected += std::string(i == 0 ? "" : i + 1 == std::size(gemm_sweeps) ? " or " : ", ") + gemm_sweeps[i];
  return "unknown sweep '" + name + "' (expected " + expected + ")";
}

// The sweep of the tiles/ issue (sizes, skinny K, stages, block orders x persistence), or a
// quick subset, or one sweep by name. Prints a table (last) and writes JSON to json_path when not empty.
int run_gemm_bench(bool quick, const std::string& json_path, const std::string& only_group);
// One configuration a user names, timed as the sweeps' rows are (group "custom").
int run_gemm_bench_config(const GemmShape& shape, const GemmConfig& cfg, const std::string& json_path);

}  // namespace ts::kernels
