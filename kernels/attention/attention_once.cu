// Runs our attention on fresh random inputs and times it with CUDA events: a quick figure while
// tuning, and one launch to profile (Nsight Compute: ncu -k regex:pipeline_kernel attention_once ...).
//
//   attention_once B H_Q H_KV N D causal|full fwd|bwd [REPS] [CONSUMERS OVERLAP]
//
// Prints one line: the shape, the median of REPS timed runs (default 20) after 3 warm-ups, TFLOPS
// (FlashAttention's count: 4 B H N^2 D, halved when causal, 2.5 times that for the backward).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/attention/attention_api.hpp"
#include "kernels/gemm/gemm_bench.hpp"  // random_bf16

namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void* alloc(std::size_t bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes), "cudaMalloc");
  return p;
}
}  // namespace

int main(int argc, char** argv) try {
  if (argc < 8) {
    std::fprintf(stderr, "usage: attention_once B H_Q H_KV N D causal|full fwd|bwd [REPS] [CONSUMERS OVERLAP [PERSISTENT]] (consumers 0, the others -1: default)\n");
    return 2;
  }
  using namespace ts::kernels;
  AttentionShape s{std::atoll(argv[1]), std::atoll(argv[2]), std::atoll(argv[3]), std::atoll(argv[4]), std::atoll(argv[5]),
                   std::string(argv[6]) == "causal", 0.f};
  const bool bwd = std::string(argv[7]) == "bwd";
  const int reps = argc > 8 ? std::atoi(argv[8]) : 20;
  AttentionConfig cfg;
  if (argc > 10) cfg = {std::atoi(argv[9]), std::atoi(argv[10]), argc > 11 ? std::atoi(argv[11]) : -1};
  cfg = resolve(s, cfg);
  if (const std::string why = validate(s); !why.empty()) throw std::invalid_argument(why);
  const std::size_t nq = s.batch * s.heads_q * s.seq * s.dim, nkv = s.batch * s.heads_kv * s.seq * s.dim;
  void *q = alloc(nq * 2), *k = alloc(nkv * 2), *v = alloc(nkv * 2), *o = alloc(nq * 2), *d_o = alloc(nq * 2);
  void *dq = alloc(nq * 2), *dk = alloc(nkv * 2), *dv = alloc(nkv * 2), *ws = alloc(attention_backward_workspace_bytes(s));
  auto* lse = static_cast<float*>(alloc(s.batch * s.heads_q * s.seq * 4));
  random_bf16(q, nq, 1);
  random_bf16(k, nkv, 2);
  random_bf16(v, nkv, 3);
  random_bf16(d_o, nq, 4);
  const auto run = [&] {
    if (bwd) attention_backward(q, k, v, o, d_o, lse, dq, dk, dv, ws, s, nullptr);
    else attention_forward(q, k, v, o, lse, s, nullptr, nullptr, cfg);
  };
  attention_forward(q, k, v, o, lse, s, nullptr);
  for (int i = 0; i < 3; ++i) run();
  check(cudaDeviceSynchronize(), "warm-up");
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    check(cudaEventRecord(a), "record");
    run();
    check(cudaEventRecord(b), "record");
    check(cudaEventSynchronize(b), "sync");
    float t = 0;
    check(cudaEventElapsedTime(&t, a, b), "elapsed");
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const double med = ms.empty() ? 0 : ms[ms.size() / 2];
  const std::string variant = bwd ? "" : " consumers " + std::to_string(cfg.consumers) + " overlap " + std::to_string(cfg.overlap) +
                                                    " persistent " + std::to_string(cfg.persistent);
  std::printf("%s %s%s: %.4f ms  %.1f TFLOPS\n", describe(s).c_str(), bwd ? "bwd" : "fwd", variant.c_str(), med,
              med > 0 ? attention_flops(s, bwd) / (med * 1e-3) / 1e12 : 0.0);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "attention_once: %s\n", e.what());
  return 1;
}
