#pragma once
// The one place that turns a run-time GemmConfig into a gemm<...> instance and builds its globals.
// Both launchers go through it: gemm_launch.cu (nvcc, device backend) and gemm_host.cpp (g++, host
// backend), so the two run the same instances of the same kernel source.
//
// Everything here has internal linkage (static): the host and device builds of one instance, e.g.
// gemm<256, 4, true, float>, share a mangled name but not a definition (tma::map differs), and a
// program may link both.
#include <cstdint>

#include "kernels/gemm/gemm.cuh"
#include "kernels/gemm/gemm_sum.cuh"
#include "kernels/gemm/gemm_api.hpp"

namespace ts::kernels {

// Tensor maps over A (M x K), B (K x N, or N x K when column-major) and C, and the tile counts,
// for a launch computing `tiles` tiles from `first` in the block order (0 tiles: all). With split-K
// (cfg.split_k > 1), `c` is the fp32 workspace: a slice (head index) per K range, the launch's
// tiles one below the other in each (gemm.cuh out_coord).
template <class K>
static typename K::globals make_globals(const void* a, const void* b, void* c, const GemmShape& s, const GemmConfig& cfg,
                                        int first = 0, int tiles = 0) {
  using TC = typename K::c_tile::dtype;
  using TI = typename K::a_tile::dtype;
  const int splits = cfg.split_k;  // resolved by with_k_splits or gemm_plan
  if (splits < 1) throw std::logic_error("make_globals: split_k not resolved (with_k_splits)");
  auto* pa = const_cast<TI*>(static_cast<const TI*>(a));
  auto* pb = const_cast<TI*>(static_cast<const TI*>(b));
  typename K::globals g{};
  g.tiles_m = static_cast<int>((s.m + K::block_m - 1) / K::block_m);
  g.tiles_n = static_cast<int>((s.n + K::block_n - 1) / K::block_n);
  g.first_tile = first, g.tiles = tiles;
  const int64_t launch_tiles = K::launch_tiles(g);
  const auto gc = splits == 1 ? gl<TC>::make(static_cast<TC*>(c), 1, 1, s.m, s.n)
                              : gl<TC>::make(static_cast<TC*>(c), 1, splits, launch_tiles * K::block_m, K::block_n);
  g.a = tma::make_map<typename K::a_tile>(gl<TI>::make(pa, 1, 1, s.m, s.k));
  g.b = tma::make_map<typename K::b_share>(cfg.b_row_major ? gl<TI>::make(pb, 1, 1, s.k, s.n) : gl<TI>::make(pb, 1, 1, s.n, s.k));
  g.c = tma::make_map<typename K::c_tile>(gc);
  g.k_iters = static_cast<int>((s.k + K::block_k * splits - 1) / (K::block_k * splits));
  g.order = cfg.order;
  g.k_splits = splits;
  g.scale = cfg.scale_a * cfg.scale_b;
  return g;
}

// Split-K's second pass (gemm_sum.cuh) over the `parts` the split launch wrote (the plan's tiles
// past its head, in plan.splits ranges), into C: calls f.template operator()<S>(globals, blocks)
// with S = gemm_sum<C type>; one block per 64 x 128 part of C.
template <class F>
static void with_sum(const void* parts, void* c, const GemmShape& s, const GemmConfig& cfg, const GemmPlan& plan, F&& f) {
  const auto go = [&]<class TC>() {
    using S = gemm_sum<TC>;
    const int block_m = 64 * cfg.consumers, tiles = plan.tail_tiles();
    const auto gp = gl<float>::make(static_cast<float*>(const_cast<void*>(parts)), 1, plan.splits, int64_t{tiles} * block_m, cfg.block_n);
    const auto gc = gl<TC>::make(static_cast<TC*>(c), 1, 1, s.m, s.n);
    const typename S::gemm_tiles from{cfg.order, static_cast<int>((s.m + block_m - 1) / block_m),
                                      static_cast<int>((s.n + cfg.block_n - 1) / cfg.block_n), cfg.cluster, plan.head_tiles, tiles,
                                      block_m, cfg.block_n};
    const typename S::globals g{tma::make_map<typename S::part_tile>(gp), tma::make_map<typename S::c_tile>(gc), from, plan.splits};
    f.template operator()<S>(g, tiles * (block_m / S::block_m) * (cfg.block_n / S::block_n));  // (S::num_tiles is device code on the GPU)
  };
  if (cfg.out == OutType::bf16) go.template operator()<bf16>();
  else go.template operator()<float>();
}

namespace dispatch {
template <int BN, bool BRow, class TC, int C, class TI = bf16, class F>
static void stages(const GemmConfig& cfg, F& f) {
  switch (cfg.stages) {
    case 1: return f.template operator()<gemm<BN, 1, BRow, TC, C, 1, TI>>();
    case 2: return f.template operator()<gemm<BN, 2, BRow, TC, C, 1, TI>>();
    case 3: return f.template operator()<gemm<BN, 3, BRow, TC, C, 1, TI>>();
    default: return f.template operator()<gemm<BN, 4, BRow, TC, C, 1, TI>>();
  }
}
// Clusters of 2 come with two consumers and 2..4 stages only (validate() says so): fewer instances
// to compile, and a one-stage ring has no loads to share ahead of the MMAs anyway.
template <int BN, bool BRow, class TC, class TI = bf16, class F>
static void clustered(const GemmConfig& cfg, F& f) {
  switch (cfg.stages) {
    case 2: return f.template operator()<gemm<BN, 2, BRow, TC, 2, 2, TI>>();
    case 3: return f.template operator()<gemm<BN, 3, BRow, TC, 2, 2, TI>>();
    default: return f.template operator()<gemm<BN, 4, BRow, TC, 2, 2, TI>>();
  }
}
template <int BN, bool BRow, class TC, class F>
static void consumers(const GemmConfig& cfg, F& f) {
  if (cfg.cluster == 2) clustered<BN, BRow, TC>(cfg, f);
  else if (cfg.consumers == 1) stages<BN, BRow, TC, 1>(cfg, f);
  else stages<BN, BRow, TC, 2>(cfg, f);
}
template <bool BRow, class TC, class F>
static void block_n(const GemmConfig& cfg, F& f) {
  if (cfg.block_n == 128) consumers<128, BRow, TC>(cfg, f);
  else consumers<256, BRow, TC>(cfg, f);
}
// FP8: 128x256 tiles, B N x K, two consumers, clusters of 1 or 2 (validate() says so).
template <class TC, class F>
static void fp8(const GemmConfig& cfg, F& f) {
  if (cfg.cluster == 2) clustered<256, false, TC, fp8e4m3>(cfg, f);
  else stages<256, false, TC, 2, fp8e4m3>(cfg, f);
}
}  // namespace dispatch

// Calls f.template operator()<K>() with K = gemm<block_n, stages, b_row_major, C type, ...> of a
// validated cfg, e.g. with_gemm(cfg, [&]<class K>() { launch<K>(...); }). Split-K stages fp32
// whatever C is: its K ranges' tiles are summed in fp32 afterwards.
template <class F>
static void with_gemm(const GemmConfig& cfg, F&& f) {
  const bool bf16_staging = cfg.out == OutType::bf16 && cfg.split_k == 1;
  if (cfg.in == InType::fp8) {
    if (bf16_staging) dispatch::fp8<bf16>(cfg, f);
    else dispatch::fp8<float>(cfg, f);
  } else if (cfg.b_row_major) {
    if (bf16_staging) dispatch::block_n<true, bf16>(cfg, f);
    else dispatch::block_n<true, float>(cfg, f);
  } else {
    if (bf16_staging) dispatch::block_n<false, bf16>(cfg, f);
    else dispatch::block_n<false, float>(cfg, f);
  }
}

// A GEMM's launches, in order, as `plan` (gemm_plan) cuts its tiles: the head over all of K into
// C; the split tiles into `workspace` (gemm_workspace_bytes(plan)); their sum into C. Calls
// f.template operator()<K>(globals, blocks, name) for each, K a gemm<...> or a gemm_sum<...>; the
// names are what `tilescope sim --launch` takes. A persistent grid has as many blocks as
// resident.template operator()<K>() says can be resident at once (fewer than SMs with clusters).
template <class Resident, class F>
static void with_launches(const void* a, const void* b, void* c, void* workspace, const GemmShape& s, const GemmConfig& cfg,
                          const GemmPlan& plan, Resident&& resident, F&& f) {
  if (plan.head_tiles > 0) {
    GemmConfig head = cfg;
    head.split_k = 1;
    with_gemm(head, [&]<class K>() {
      f.template operator()<K>(make_globals<K>(a, b, c, s, head, 0, plan.head_tiles),
                               gemm_launch_grid(plan.head_tiles, head, resident.template operator()<K>()), "gemm");
    });
  }
  if (plan.splits == 1) return;
  GemmConfig split = cfg;
  split.split_k = plan.splits;
  with_gemm(split, [&]<class K>() {
    f.template operator()<K>(make_globals<K>(a, b, workspace, s, split, plan.head_tiles, plan.tail_tiles()),
                             gemm_launch_grid(int64_t{plan.tail_tiles()} * plan.splits, split, resident.template operator()<K>()),
                             plan.head_tiles > 0 ? kGemmTailLaunch : "gemm");
  });
  with_sum(workspace, c, s, cfg, plan, [&]<class S>(const typename S::globals& g, int blocks) {
    f.template operator()<S>(g, blocks, kGemmSumLaunch);
  });
}

}  // namespace ts::kernels
