// The GEMM's grid in trace mode: each block is the kernel source (gemm.cuh through the pipeline
// template) running on the host backend with tracing on, built when the simulator asks for it.
#include "kernels/gemm/gemm_trace.hpp"

#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/gemm/gemm_dispatch.hpp"
#include "kernels/pipeline_trace.hpp"

namespace ts::kernels {

std::vector<TracedLaunch> gemm_grid_traces(const GemmShape& s, const GemmConfig& cfg, int sms) {
  if (const std::string why = validate(s, cfg); !why.empty()) throw std::invalid_argument(why);
  const int block_k = gemm_block_k(cfg);
  if (s.m % (64 * cfg.consumers) != 0 || s.n % cfg.block_n != 0 || s.k % block_k != 0)
    throw std::invalid_argument("the simulator times whole tiles: M must be a multiple of " + std::to_string(64 * cfg.consumers) + ", N of " +
                                std::to_string(cfg.block_n) + " and K of " + std::to_string(block_k) + "; got " + std::to_string(s.m) + "x" +
                                std::to_string(s.n) + "x" + std::to_string(s.k));
  if (sms <= 0) throw std::invalid_argument("gemm_grid_traces: sms must be positive");
  std::vector<TracedLaunch> launches;
  const auto resident = [&]<class K>() { return sms; };
  with_launches(trace_address(0), trace_address(1), trace_address(2), trace_address(3), s, cfg, gemm_plan(s, cfg, sms), resident,
                [&]<class K>(const typename K::globals& g, int blocks, const char* name) {
                  launches.push_back({name, std::make_unique<PipelineGrid<K>>(g, blocks)});
                });
  return launches;
}

}  // namespace ts::kernels
