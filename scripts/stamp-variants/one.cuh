// Experiment only (issue 10): one GEMM instance (the default 128x256, 4 stages, grouped:8,
// persistent) launched from a translation unit of its own, so the stamp code can be swapped per build.
#include "kernels/pipeline_launch.cuh"
#include "kernels/gemm/gemm_dispatch.hpp"
namespace ts::kernels {
using K = gemm<256, 4, true, bf16>;
void RUN_NAME(const void* a, const void* b, void* c, int n, const stamp::Plan* plan) {
#if TILESCOPE_STAMPS
  static stamp::Plan armed{};
  if (plan && (plan->records != armed.records || plan->blocks != armed.blocks)) {
    check_cuda(stamp::arm(*plan, nullptr), "arm");
    armed = *plan;
  }
#endif
  GemmConfig cfg;
  cfg.split_k = 1;
  const GemmShape s{n, n, n};
  const auto g = make_globals<K>(a, b, c, s, cfg);
  launch_pipeline<K>(g, sm_count(), nullptr, nullptr, "exp");
}
}  // namespace ts::kernels
