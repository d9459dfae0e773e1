#pragma once
// The attention scenes' simulations: kernels/attention's own sources in trace mode (forward: one
// launch; backward: the pre-pass, the main kernel and the dQ conversion), each launch simulated on
// a machine file, computed off the drawing thread by the GEMM's SimCache (gemm_sim.hpp) and kept
// per configuration.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/attention/attention_api.hpp"
#include "sim/engine.hpp"
#include "viz/lesson/gemm_sim.hpp"

namespace ts::viz {

struct AttentionRun {
  kernels::AttentionShape shape{1, 4, 4, 1024, 64, false, 0.f};
  kernels::AttentionConfig cfg{};
  bool backward = false;
  std::string machine = "h100-sxm";
  double clock_mhz = 0;  // 0: the machine's sustained clock (or a measured row's, see attention_run)
  std::string key() const;
  // Key blocks x query blocks over the grid: what a simulation's cost grows with.
  uint64_t work() const;
  // Small enough to re-simulate while a knob moves (100-500 ms on one core, see data/measured/
  // viz-lessons-timing.txt), and to record every SM's spans.
  bool quick() const { return work() <= kQuickWork; }
  static constexpr uint64_t kQuickWork = 1u << 12;
};

// One block (CTA) of a launch: the SM it ran on and when, from its first op to its last.
struct BlockSpan {
  uint32_t block = 0, sm = 0;
  double start = 0, end = 0;  // cycles
};

struct AttentionLaunchSim {
  std::string name;         // "forward", "backward prep", "backward", "backward dq"
  sim::SimReport report;    // spans of SMs 0..kTimelineSms-1 only
  std::vector<BlockSpan> blocks;  // every block, in block order
  double start = 0;         // cycles: where this launch starts in the pass (launches run one after another)
};

struct AttentionSim {
  AttentionRun run;
  std::vector<AttentionLaunchSim> launches;
  double cycles = 0, seconds = 0, clock_mhz = 0;
  double flops = 0, tflops = 0;  // FLOPs as the measured rows count them (kernels::attention_flops)
  double wall_ms = 0, cpu_ms = 0;
  std::string error;
};

// Simulates on the calling thread.
std::shared_ptr<const AttentionSim> simulate_attention_run(const AttentionRun& run);
// Through the cache: nullptr while it runs (or when it is slow and slow runs are off).
std::shared_ptr<const AttentionSim> get_attention(SimCache& sims, const AttentionRun& run);
std::shared_ptr<const AttentionSim> get_attention_now(SimCache& sims, const AttentionRun& run);

}  // namespace ts::viz
