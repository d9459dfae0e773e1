// Launches our GEMM once per configuration on fresh random inputs, for Nsight Compute to count
// its DRAM bytes (scripts/measure-gemm-dram profiles every pipeline_kernel launch of this program).
//
//   gemm_once M N K CONFIG...     CONFIG = ORDER[/np][/c2][/kS]: ORDER as `tilescope bench` names it
//                                 (row, col, grouped, grouped:16); /np: not persistent;
//                                 /c2: clusters of 2 sharing B by multicast; /kS: split-K in S ranges;
//                                 /fp8: FP8 e4m3 A and B (B N x K)
//
// Prints one line per launch, in launch order: "launch I m=.. n=.. k=.. order=.. group=.. persistent=..
// stages=.. block_n=.. b_row_major=.. out=..", which the script joins with ncu's rows.
#include <cuda_runtime.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/gemm/gemm_api.hpp"
#include "kernels/gemm/gemm_bench.hpp"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

ts::kernels::GemmConfig parse_config(std::string s) {
  ts::kernels::GemmConfig cfg;
  const auto strip = [&](const char* suffix) {
    const std::string x = suffix;
    if (s.size() <= x.size() || s.compare(s.size() - x.size(), x.size(), x) != 0) return false;
    s.resize(s.size() - x.size());
    return true;
  };
  for (int s = 64; s >= 2; --s)
    if (strip(("/k" + std::to_string(s)).c_str())) { cfg.split_k = s; break; }
  if (strip("/fp8")) {
    cfg.in = ts::kernels::InType::fp8;
    cfg.b_row_major = false;
  }
  if (strip("/c2")) cfg.cluster = 2;
  if (strip("/np")) cfg.persistent = false;
  const auto order = ts::sched::parse_order(s);
  if (!order) throw std::invalid_argument("unknown order '" + s + "' (row, col, grouped, grouped:N)");
  cfg.order = *order;
  return cfg;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: gemm_once M N K ORDER[/np][/c2][/fp8][/kS]...\n");
    return 2;
  }
  try {
    const ts::kernels::GemmShape shape{std::stoll(argv[1]), std::stoll(argv[2]), std::stoll(argv[3])};
    std::vector<ts::kernels::GemmConfig> configs;
    for (int i = 4; i < argc; ++i) {
      configs.push_back(parse_config(argv[i]));
      if (const auto why = ts::kernels::validate(shape, configs.back()); !why.empty()) throw std::invalid_argument(why);
    }
    void *a = nullptr, *b = nullptr, *c = nullptr;
    check(cudaMalloc(&a, shape.m * shape.k * 2), "cudaMalloc A");  // room for bf16 or fp8
    check(cudaMalloc(&b, shape.k * shape.n * 2), "cudaMalloc B");
    check(cudaMalloc(&c, shape.m * shape.n * 2), "cudaMalloc C");
    const auto in = configs.front().in;
    for (const auto& cfg : configs)
      if (cfg.in != in) throw std::invalid_argument("gemm_once: one input type per run (all /fp8 or none)");
    ts::kernels::random_gemm_input(a, shape.m * shape.k, 1, in);
    ts::kernels::random_gemm_input(b, shape.k * shape.n, 2, in);
    check(cudaDeviceSynchronize(), "fill");
    int sms = 0;
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "SM count");
    for (size_t i = 0; i < configs.size(); ++i) {
      const auto cfg = ts::kernels::with_k_splits(shape, configs[i], sms);  // prints the ranges it runs
      ts::kernels::launch_gemm(a, b, c, shape, cfg, nullptr);
      check(cudaDeviceSynchronize(), "gemm");
      std::printf("launch %zu blocks=%d m=%lld n=%lld k=%lld order=%s group=%d persistent=%d cluster=%d split_k=%d stages=%d block_n=%d b_row_major=%d out=%s in=%s\n",
                  i, ts::kernels::gemm_launch_blocks(shape, cfg), (long long)shape.m, (long long)shape.n, (long long)shape.k, ts::sched::order_name(cfg.order.order),
                  cfg.order.group, cfg.persistent ? 1 : 0, cfg.cluster, cfg.split_k, cfg.stages, cfg.block_n, cfg.b_row_major ? 1 : 0,
                  cfg.out == ts::kernels::OutType::bf16 ? "bf16" : "fp32", cfg.in == ts::kernels::InType::fp8 ? "fp8" : "bf16");
      std::fflush(stdout);
    }
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_once: %s\n", e.what());
    return 1;
  }
  return 0;
}
