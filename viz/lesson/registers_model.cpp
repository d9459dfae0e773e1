#include "viz/lesson/registers_model.hpp"

namespace ts::viz {

RegisterBudget register_budget(const RegistersState& s, uint32_t file) {
  RegisterBudget b;
  b.file = file;
  // __launch_bounds__(384, 1): without setmaxnreg every thread gets the same share, a multiple of 8.
  b.even = (file / kBlockThreads) / 8 * 8;
  b.producer = s.split == RegisterSplit::setmaxnreg ? s.producer : b.even;
  b.consumer = s.split == RegisterSplit::setmaxnreg ? s.consumer : b.even;
  b.used = kWarpgroupThreads * (b.producer + kConsumerWarpgroups * b.consumer);
  b.fits = b.used <= file;
  // rt_fl<16, block_n> per warp: 16 x block_n fp32 over 32 lanes.
  b.accumulator = 16 * s.gemm.block_n / 32;
  const uint32_t left = file > kWarpgroupThreads * b.producer ? file - kWarpgroupThreads * b.producer : 0;
  b.most_for_consumers = std::min<uint32_t>(256, left / (kConsumerWarpgroups * kWarpgroupThreads) / 8 * 8);
  return b;
}

std::vector<OccupancyRow> occupancy_rows(const GemmKnobs& knobs, SimCache& sims) {
  std::vector<OccupancyRow> rows;
  for (uint32_t stages = 1; stages <= 4; ++stages) {
    GemmKnobs g = knobs;
    g.stages = stages;
    rows.push_back({stages, sims.get(gemm_run(g))});
  }
  return rows;
}

}  // namespace ts::viz
