#pragma once
// Split-K's second pass: C = the sum of the K ranges' fp32 slices (gemm.cuh with k_splits > 1
// stores range r's tiles as slice r, packed in the launch's tile order), added in range order, so
// the result does not depend on which block of the first pass finished first, then rounded to C's
// type. It finds where each GEMM tile belongs in C by the same block order the first pass used.
// On the pipeline template: the producer streams one 64 x 128 fp32 tile per range by TMA, the
// consumer warpgroup adds them in registers and stores the tile of C by TMA.
// This file is the single source: nvcc builds it for the GPU, g++ for the CPU backend (the host
// runner and the simulator's trace of a split-K launch).
#include "tiles/tiles.hpp"
#include "tiles/sched/pipeline.hpp"

namespace ts::kernels {

template <class TC>
struct gemm_sum {
  static constexpr int consumers = 1, stages = 4, producer_registers = 24, consumer_registers = 240;
  static constexpr int block_m = 64, block_n = 128;
  using part_tile = st<float, block_m, block_n>;
  using c_tile = st<TC, block_m, block_n>;

  // The first pass's tiles: `tiles` of them from `first` in its block order, each block_m x block_n
  // (multiples of this pass's 64 x 128), over a grid of tiles_m x tiles_n in clusters of `cluster`.
  struct gemm_tiles {
    sched::OrderSpec order;
    int tiles_m, tiles_n, cluster, first, tiles, block_m, block_n;
  };
  struct globals {
    tma::map<part_tile> parts;  // `ranges` slices (the head index), each the tiles one below the other
    tma::map<c_tile> c;
    gemm_tiles from;
    int ranges;
  };
  struct input_stage {
    part_tile part;
  };
  struct output_stage {
    c_tile c;
  };
  struct consumer_state {
    rt_fl<16, block_n> sum, part;  // this warp's 16 rows
  };

  static TS_KERNEL_FN int parts_per_tile(const globals& g) { return g.from.block_m / block_m * (g.from.block_n / block_n); }
  static TS_KERNEL_FN int num_tiles(const globals& g) { return g.from.tiles * parts_per_tile(g); }
  static TS_KERNEL_FN int iterations(const globals& g) { return g.ranges; }
  // This pass's tile `tile` is part (pm, pn) of the first pass's tile tile / parts_per_tile.
  static TS_KERNEL_FN coord part_at(const globals& g, int tile, int range) {
    const int per_row = g.from.block_n / block_n, part = tile % parts_per_tile(g);
    return {0, range, tile / parts_per_tile(g) * (g.from.block_m / block_m) + part / per_row, part % per_row};
  }
  static TS_KERNEL_FN coord c_at(const globals& g, int tile) {
    const int per_row = g.from.block_n / block_n, part = tile % parts_per_tile(g);
    const auto t = sched::clustered_tile_of(g.from.order, g.from.first + tile / parts_per_tile(g), g.from.tiles_m,
                                            g.from.tiles_n, g.from.cluster);
    return {0, 0, t.m * (g.from.block_m / block_m) + part / per_row, t.n * per_row + part % per_row};
  }

  static TS_KERNEL_FN void load(input_stage& in, const globals& g, int tile, int range, barrier& full) {
    tma::load_async(in.part, g.parts, part_at(g, tile, range), full);
  }

  static TS_KERNEL_FN void compute(consumer_state& s, input_stage& in, int, int range) {
    if (range == 0) return warp::load(s.sum, in.part, 16 * warpgroup::warpid(), 0);
    warp::load(s.part, in.part, 16 * warpgroup::warpid(), 0);
    add(s.sum, s.sum, s.part);
  }

  static TS_KERNEL_FN void compute_done(consumer_state&) {}

  static TS_KERNEL_FN void store(consumer_state& s, output_stage& out, const globals& g, int tile, int) {
    const bool leader = warpgroup::warpid() == 0 && elect_one();
    if (leader) tma::store_async_read_wait<0>();  // the previous tile's store has read the staging tile
    warpgroup::sync(0);
    warpgroup::store(out.c, s.sum);
    fence_async_shared();
    warpgroup::sync(0);
    if (leader) tma::store_async(g.c, out.c, c_at(g, tile));
  }

  static TS_KERNEL_FN void finish(output_stage&, const globals&, int) {
    if (warpgroup::warpid() == 0 && elect_one()) tma::store_async_wait<0>();
  }
};

}  // namespace ts::kernels
