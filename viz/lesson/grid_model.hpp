#pragma once
// What the grid scene shows, computed without drawing: the output tiles in block order (the same
// tiles/sched/block_order.hpp the kernel calls), the wave each one runs in, the A and B blocks a
// wave reads and whether they fit in L2, and the simulation beside the measurements.
#include <memory>
#include <string>
#include <vector>

#include "viz/lesson/gemm_sim.hpp"
#include "viz/lesson/measured.hpp"

namespace ts::viz {

struct GridModel {
  uint32_t tiles_m = 0, tiles_n = 0, tiles = 0;
  uint32_t sms = 132;
  uint32_t grid = 0;       // blocks launched
  uint32_t waves = 0;      // tiles / sms, rounded up: every SM holds one block of this kernel
  std::vector<uint32_t> wave_of;   // per tile, m-major (tile_m * tiles_n + tile_n)
  std::vector<uint32_t> order_of;  // per tile: the index of the block-order step that computes it
  // The marked wave: its tiles, and the distinct A row blocks and B column blocks they read.
  uint32_t wave = 0, wave_tiles = 0, wave_a_blocks = 0, wave_b_blocks = 0;
  std::vector<bool> wave_reads_a, wave_reads_b;  // per tile row / tile column
  double wave_bytes = 0;          // those blocks over the whole K, each read once
  double wave_bytes_per_tile = 0; // what the wave would read if no two tiles shared a block
  double l2_bytes = 0;            // the machine's L2
};

// `sms` and `l2_bytes` come from the machine file.
GridModel grid_model(const GridState& s, uint32_t sms, double l2_bytes);

// The measurements that bear on this configuration: at the scene's own shape when the H100 ran
// it; when it never ran that shape at all, the same configuration at the shape it was measured at
// (16384^3 for the block-order sweep), with that shape said. nullptr: not measured.
struct GridMeasured {
  const MeasuredGemm* tflops = nullptr;
  const MeasuredDram* dram = nullptr;
};
GridMeasured grid_measured(const GemmKnobs& knobs, const MeasuredData& measured);

}  // namespace ts::viz
