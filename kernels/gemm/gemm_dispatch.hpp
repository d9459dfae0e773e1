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

// Tensor maps over A (M x K), B (K x N, or N x K when column-major) and C (M x N), and the tile
// counts. With split-K, `c` is fp32 and has a slice (head index) of M x N per K range.
template <class K>
static typename K::globals make_globals(const void* a, const void* b, void* c, const GemmShape& s, const GemmConfig& cfg) {
  using TC = typename K::c_tile::dtype;
  using TI = typename K::a_tile::dtype;
  const int splits = cfg.split_k;  // resolved by with_k_splits
  if (splits < 1) throw std::logic_error("make_globals: split_k not resolved (with_k_splits)");
  auto* pa = const_cast<TI*>(static_cast<const TI*>(a));
  auto* pb = const_cast<TI*>(static_cast<const TI*>(b));
  const auto ga = gl<TI>::make(pa, 1, 1, s.m, s.k);
  const auto gb = cfg.b_row_major ? gl<TI>::make(pb, 1, 1, s.k, s.n) : gl<TI>::make(pb, 1, 1, s.n, s.k);
  const auto gc = gl<TC>::make(static_cast<TC*>(c), 1, splits, s.m, s.n);
  return typename K::globals{tma::make_map<typename K::a_tile>(ga), tma::make_map<typename K::b_share>(gb),
                             tma::make_map<typename K::c_tile>(gc),
                             static_cast<int>((s.m + K::block_m - 1) / K::block_m),
                             static_cast<int>((s.n + K::block_n - 1) / K::block_n),
                             static_cast<int>((s.k + K::block_k * splits - 1) / (K::block_k * splits)), cfg.order, splits,
                             cfg.scale_a * cfg.scale_b};
}

// Split-K's second pass (gemm_sum.cuh) over the `parts` the first pass wrote, into C: calls
// f.template operator()<S>(globals, blocks) with S = gemm_sum<C type>; one block per tile of C.
template <class F>
static void with_sum(const void* parts, void* c, const GemmShape& s, const GemmConfig& cfg, F&& f) {
  const auto go = [&]<class TC>() {
    using S = gemm_sum<TC>;
    const auto gp = gl<float>::make(static_cast<float*>(const_cast<void*>(parts)), 1, cfg.split_k, s.m, s.n);
    const auto gc = gl<TC>::make(static_cast<TC*>(c), 1, 1, s.m, s.n);
    const typename S::globals g{tma::make_map<typename S::part_tile>(gp), tma::make_map<typename S::c_tile>(gc),
                                static_cast<int>((s.m + S::block_m - 1) / S::block_m),
                                static_cast<int>((s.n + S::block_n - 1) / S::block_n), cfg.split_k};
    f.template operator()<S>(g, g.tiles_m * g.tiles_n);  // (S::num_tiles is device code on the GPU)
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

}  // namespace ts::kernels
