#pragma once
// What the TMA and mbarrier scene shows: the barrier event log of the simulator (SM 0, its first
// block), cut to a few k-iterations and sorted into the rows of one producer and its consumers.
#include <string>
#include <vector>

#include "viz/lesson/gemm_sim.hpp"

namespace ts::viz {

struct BarrierMark {
  double time = 0, end = 0;  // end: for spans (TMA issue to landing, a wait to its wake)
  uint64_t bytes = 0;
  uint32_t slot = 0;         // stage of the ring the barrier belongs to
  uint32_t phase = 0;        // phases the barrier had completed when this happened
  uint32_t iteration = 0;    // k-iteration of the block's first tile (producer side)
};

struct ConsumerRow {
  uint32_t warp = 0;
  std::vector<BarrierMark> waits;    // on full[slot]: wait_begin .. wake
  std::vector<BarrierMark> arrives;  // on empty[...]: the stage handed back
};

struct BarriersModel {
  uint32_t stages = 0, slot = 0;
  uint64_t stage_bytes = 0;         // what the producer expects per stage (its expect_bytes)
  double t0 = 0, t1 = 0;            // the shown window, cycles
  std::vector<BarrierMark> expects; // producer: expect_bytes on full[*], every slot
  std::vector<BarrierMark> loads;   // producer: TMA loads issue .. landed, every slot
  std::vector<BarrierMark> producer_waits;  // producer: waiting for empty[*]
  std::vector<BarrierMark> full_completes;  // full[*] phase completions
  std::vector<BarrierMark> empty_completes; // empty[*] phase completions
  std::vector<ConsumerRow> consumers;
  uint32_t producer_warp = 0;
  std::string error;  // e.g. the run has no events (a slow run) or no such iteration
};

BarriersModel barriers_model(const GemmSim& sim, const BarriersState& s);

}  // namespace ts::viz
