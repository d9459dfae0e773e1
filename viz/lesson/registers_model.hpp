#pragma once
// What the registers scene shows: one SM's register file split between the GEMM's producer and
// consumer warpgroups (setmaxnreg, or the same count for every thread), what the accumulator
// needs, and the occupancy the simulator finds beside the TFLOPS it predicts.
#include <memory>
#include <string>
#include <vector>

#include "viz/lesson/gemm_sim.hpp"

namespace ts::viz {

// The GEMM's block: one producer and two consumer warpgroups of 128 threads (gemm.cuh).
inline constexpr uint32_t kWarpgroupThreads = 128, kConsumerWarpgroups = 2, kBlockThreads = 384;

struct RegisterBudget {
  uint32_t file = 65536;                 // 32-bit registers per SM (machine file)
  uint32_t producer = 0, consumer = 0;   // per thread, as the split gives them
  uint32_t used = 0;                     // by one block
  bool fits = false;
  uint32_t even = 0;                     // the register file over 384 threads, in steps of 8
  uint32_t accumulator = 0;              // per consumer thread: its share of a 64 x block_n fp32 tile
  uint32_t most_for_consumers = 0;       // the largest consumer count that fits beside `producer`
};

// `file`: registers per SM from the machine file.
RegisterBudget register_budget(const RegistersState& s, uint32_t file);

// One stage count: the simulator's occupancy and TFLOPS for it.
struct OccupancyRow {
  uint32_t stages = 0;
  std::shared_ptr<const GemmSim> sim;  // nullptr while it runs
};
std::vector<OccupancyRow> occupancy_rows(const GemmKnobs& knobs, SimCache& sims);

}  // namespace ts::viz
