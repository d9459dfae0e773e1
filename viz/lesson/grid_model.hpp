#pragma once
// What the grid scene shows, computed without drawing: the output tiles in block order (the
// kernel's own gemm::tile_index, through viz/lesson/gemm_tiles.hpp: the block order of
// tiles/sched/block_order.hpp, walked cluster by cluster with clusters), the wave each one runs in,
// the A and B blocks a wave reads and whether they fit in L2, which tiles form a cluster and what
// multicast saves of L2 reads, with split-K the K ranges each tile is cut into and the fp32 slices
// they store, and the simulation beside the measurements.
#include <memory>
#include <string>
#include <vector>

#include "viz/lesson/gemm_sim.hpp"
#include "viz/lesson/gemm_tiles.hpp"
#include "viz/lesson/measured.hpp"

namespace ts::viz {

// The tiles of one cluster: a column of `rows` tiles from tile row m (clusters run along M).
struct ClusterBox {
  uint32_t m = 0, n = 0, rows = 1;
};

struct GridModel {
  uint32_t tiles_m = 0, tiles_n = 0, tiles = 0;
  uint32_t steps = 0;      // block-order steps: the tiles (a CTA per tile row a last cluster overhangs M), times k_splits
  uint32_t sms = 132;
  uint32_t slots = 132;    // blocks resident at once: the SMs, in whole clusters
  uint32_t cluster = 1;
  uint32_t grid = 0;       // blocks launched
  uint32_t waves = 0;      // steps / slots, rounded up: every SM holds one block of this kernel
  std::vector<uint32_t> wave_of;   // per tile, m-major (tile_m * tiles_n + tile_n)
  std::vector<uint32_t> order_of;  // per tile: the index of the block-order step that computes it (over K range 0)
  // Split-K (gemm::k_range): K cut into k_splits ranges of k_iters 64-deep slices; each (tile, range)
  // is a step of its own, range r's steps after range r-1's. Per tile and range (tile * k_splits + r):
  // the wave and the step. Without split-K, k_splits is 1 and these are wave_of and order_of.
  uint32_t k_splits = 1, k_iters = 0;
  std::vector<uint32_t> range_wave, range_order;
  // A split tail (kernels::gemm_plan): the first head_tiles tiles of the block order run as whole
  // waves over all of K (every range of theirs has the tile's own wave and step), the other tiles
  // in k_splits ranges after them. 0: no split tail.
  uint32_t head_tiles = 0, head_waves = 0;
  double slice_bytes = 0;          // the fp32 slices the ranges store (kernels::gemm_workspace_bytes; 0 unsplit)
  uint32_t busy_sms = 0;           // SMs with a step in the marked wave
  std::vector<ClusterBox> clusters;  // with cluster > 1: each cluster's tiles
  std::vector<int> sm_row;         // per SM: the tile row it computes in the marked wave (-1: none)
  // The marked wave: its tiles, and the distinct A row blocks and B column blocks they read.
  // With split-K, wave_tiles counts (tile, range) steps and the bytes are over each range's part of K.
  uint32_t wave = 0, wave_tiles = 0, wave_a_blocks = 0, wave_b_blocks = 0;
  std::vector<bool> wave_reads_a, wave_reads_b;  // per tile row / tile column
  double wave_bytes = 0;          // those blocks over the whole K, each read once
  double wave_bytes_per_tile = 0; // what the wave would read if no two tiles shared a block
  double l2_bytes = 0;            // the machine's L2
  // What each CTA asks L2 for per k-slice, with this cluster setting and without a cluster.
  GemmStageBytes stage, stage_plain;
  std::string error;  // the kernel refused the configuration
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
