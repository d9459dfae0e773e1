#pragma once
// GEMM, C = A B, on the pipeline template: one producer warpgroup streams slices of A and B (128
// bytes of K: 64 bf16 or 128 fp8 elements) by TMA; each of Consumers (1 or 2) consumer warpgroups
// owns 64 rows of the output tile and multiplies with wgmma; the epilogue stages C through shared
// memory and stores it by TMA.
// With TI = fp8e4m3 (FP8), B is N x K (wgmma reads fp8 operands K-major only) and the epilogue
// multiplies the fp32 accumulators by the product of the two per-tensor scales before rounding.
// With Cluster = 2, two CTAs computing vertically neighbouring tiles (the same columns of B) form
// a cluster: each loads half of every B slice from L2 and multicasts it into both, so L2 serves
// each B slice once per cluster instead of once per CTA.
// A launch computes `tiles` consecutive output tiles of the block order from `first_tile` (all of
// them by default). With k_splits > 1 (split-K), K is cut into ranges of k_iters slices; a block
// computes one of those tiles over one range and stores it, in fp32, into slice `range` of a
// workspace that packs the launch's tiles one below the other (the launch's i-th tile is rows
// block_m i .. block_m (i + 1) of the slice), so a grid with fewer tiles than SMs still fills them.
// A second launch (gemm_sum.cuh) sums the slices into C, always in the same order: the result does
// not depend on which block finished first. The launcher splits all tiles this way when they are
// few, or only those of the last, partial wave (gemm_plan in gemm_api.hpp).
// This file is the single source: nvcc builds it for the GPU, g++ for the CPU backend.
#include "tiles/tiles.hpp"
#include "tiles/sched/pipeline.hpp"

namespace ts::kernels {

template <int BlockN, int Stages, bool BRowMajor, class TC, int Consumers = 2, int Cluster = 1, class TI = bf16>
struct gemm {
  static_assert(sizeof(TI) == 2 || !BRowMajor, "gemm: fp8 inputs need B as N x K (wgmma reads fp8 K-major only)");
  static constexpr bool scaled = sizeof(TI) == 1;  // fp8: per-tensor scales applied in the epilogue
  static constexpr int consumers = Consumers, block_m = 64 * consumers, block_n = BlockN, block_k = 128 / sizeof(TI);
  static constexpr int cluster_size = Cluster;
  static constexpr int stages = Stages, producer_registers = 40, consumer_registers = 232;

  using a_tile = st<TI, 64, block_k>;  // one consumer's 64 rows
  using b_tile = std::conditional_t<BRowMajor, st<TI, block_k, block_n>, st<TI, block_n, block_k>>;
  using b_share = part_tile<TI, b_tile::rows, b_tile::cols, Cluster>;  // what one CTA of a cluster loads of B
  struct input_stage {
    a_tile a[consumers];
    b_tile b;
  };
  // C leaves through a staging tile per consumer: its whole 64 x block_n part where that fits beside
  // the stages (one TMA store per tile, which the next tile's epilogue finds long done), else column
  // chunks of 16 KB, each waiting for TMA to have read the one before. (Two 8 KB buffers, so that the
  // warps fill one while TMA reads the other, measured 10-20% slower on skinny shapes on the H100:
  // twice the chunks, syncs and bulk groups per tile.)
  static constexpr bool whole_tile_staging =
      Stages * sizeof(input_stage) + consumers * 64 * BlockN * sizeof(TC) + 2 * Stages * sizeof(barrier) + sched::pipeline_align_slack <=
      sched::max_block_smem_bytes;
  static constexpr int chunk_cols = 16 * 1024 / (64 * sizeof(TC));
  static constexpr int store_cols = whole_tile_staging || chunk_cols > BlockN ? BlockN : chunk_cols;
  using c_tile = st<TC, 64, store_cols>;
  struct output_stage {
    c_tile c;
  };
  struct consumer_state {
    rt_fl<16, block_n> acc;  // this warp's 16 rows of the consumer's 64 x block_n accumulator
  };
  struct globals {
    tma::map<a_tile> a;
    tma::map<b_share> b;
    tma::map<c_tile> c;
    int tiles_m, tiles_n, k_iters;  // k_iters: block_k-deep slices per K range
    sched::OrderSpec order;
    int k_splits = 1;  // K ranges, each storing its part of every tile as a slice of the packed c
    float scale = 1;   // fp8: scale_a x scale_b, multiplied into C (unused for bf16)
    int first_tile = 0, tiles = 0;  // the launch's tiles in the block order (0: all), whole clusters
  };

  // Tiles are numbered cluster by cluster: Cluster consecutive numbers are the CTAs of a cluster
  // (block b has cluster rank b % Cluster), and the block order walks clusters. A last cluster
  // that overhangs M loads zeros and stores nothing (TMA clips), so every CTA of it keeps pace.
  // With split-K the K range is the slowest index: range r's work items follow range r-1's.
  // Host and device: make_globals sizes the split-K workspace's tensor map by it.
  static TS_HD int launch_tiles(const globals& g) {
    return g.tiles > 0 ? g.tiles : (g.tiles_m + Cluster - 1) / Cluster * Cluster * g.tiles_n;
  }
  static TS_KERNEL_FN int num_tiles(const globals& g) { return launch_tiles(g) * g.k_splits; }
  static TS_KERNEL_FN int iterations(const globals& g) { return g.k_iters; }
  static TS_KERNEL_FN int k_range(const globals& g, int tile) { return tile / launch_tiles(g); }
  static TS_KERNEL_FN sched::TileIndex tile_index(const globals& g, int tile) {
    return sched::clustered_tile_of(g.order, g.first_tile + tile % launch_tiles(g), g.tiles_m, g.tiles_n, Cluster);
  }
  // Where a consumer's part of a tile goes: its place in C, or with split-K its range's slice of
  // the packed workspace, in units of c_tile (64 x store_cols).
  static TS_KERNEL_FN coord out_coord(const globals& g, int tile, int consumer, int chunk) {
    constexpr int chunks = block_n / store_cols;
    if (g.k_splits == 1) {
      const auto t = tile_index(g, tile);
      return {0, 0, t.m * consumers + consumer, t.n * chunks + chunk};
    }
    return {0, k_range(g, tile), tile % launch_tiles(g) * consumers + consumer, chunk};
  }

  // What a tile's loads need to know of it, worked out once per tile (pipeline.hpp's locate): the
  // block order's divisions by run-time sizes stay out of the loop over K.
  struct place {
    sched::TileIndex t;
    int k0;    // its first K slice
    int rank;  // its CTA's rank in the cluster
  };
  static TS_KERNEL_FN place locate(const globals& g, int tile) {
    return {tile_index(g, tile), k_range(g, tile) * g.k_iters, tile % Cluster};
  }

  static TS_KERNEL_FN void load(input_stage& in, const globals& g, const place& at, int it, barrier& full) {
    const auto t = at.t;
    const int k = at.k0 + it;  // a slice past K (the last range's) reads zeros
    for (int c = 0; c < consumers; ++c) tma::load_async(in.a[c], g.a, {0, 0, t.m * consumers + c, k}, full);
    if constexpr (Cluster == 1) {
      if constexpr (BRowMajor) tma::load_async(in.b, g.b, {0, 0, k, t.n}, full);
      else tma::load_async(in.b, g.b, {0, 0, t.n, k}, full);
    } else {  // our share of the B slice, into the same stage of both CTAs
      const int rank = at.rank, share = t.n * Cluster + rank;
      constexpr uint16_t everyone = (1u << Cluster) - 1;
      auto& part = contiguous_part<Cluster>(in.b, rank);
      if constexpr (BRowMajor) tma::load_async_multicast(part, g.b, {0, 0, k, share}, full, everyone);
      else tma::load_async_multicast(part, g.b, {0, 0, share, k}, full, everyone);
    }
  }

  static TS_KERNEL_FN void compute(consumer_state& s, input_stage& in, int consumer, int k) {
    if (k == 0) warpgroup::mma_fence(s.acc);
    if constexpr (BRowMajor) warpgroup::mma_AB(s.acc, in.a[consumer], in.b, k > 0);
    else warpgroup::mma_ABt(s.acc, in.a[consumer], in.b, k > 0);
    warpgroup::mma_commit_group();
    warpgroup::mma_async_wait<sched::release_lag(Stages)>(s.acc);  // newest slice may stay in flight
  }

  static TS_KERNEL_FN void compute_done(consumer_state& s) { warpgroup::mma_async_wait<0>(s.acc); }

  static TS_KERNEL_FN void store(consumer_state& s, output_stage& out, const globals& g, int tile, int consumer) {
    const bool leader = warpgroup::warpid() == 0 && elect_one();
    if constexpr (scaled) mul(s.acc, s.acc, g.scale);
    for (int j = 0; j < block_n / store_cols; ++j) {
      if (leader) tma::store_async_read_wait<0>();  // the previous store has read the staging tile
      warpgroup::sync(consumer);
      warpgroup::store(out.c, s.acc, j * store_cols);
      fence_async_shared();
      warpgroup::sync(consumer);
      if (leader) tma::store_async(g.c, out.c, out_coord(g, tile, consumer, j));
    }
  }

  static TS_KERNEL_FN void finish(output_stage&, const globals&, int) {
    if (warpgroup::warpid() == 0 && elect_one()) tma::store_async_wait<0>();
  }
};

}  // namespace ts::kernels
