#pragma once
// What the GEMM kernel itself says about its tiles, asked of the very gemm<...> instance the
// simulator runs (kernels/gemm/gemm_dispatch.hpp): which output tile each step of the block order
// computes (gemm::tile_index, cluster by cluster) and over which K range (gemm::k_range, with
// split-K), and how many bytes one CTA asks L2 for per
// k-slice (its tile types). The scenes and exercises use these instead of deriving them again.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/gemm/gemm_api.hpp"
#include "tiles/sched/block_order.hpp"

namespace ts::viz {

struct GemmTileOrder {
  uint32_t tiles_m = 0, tiles_n = 0;  // the output's tiles (M / block_m, N / block_n, rounded up)
  uint32_t cluster = 1;               // CTAs per cluster: steps cluster*c .. cluster*c + cluster-1 are one cluster
  // Per step of the block order (gemm::num_tiles of them): the tile that step computes. A cluster
  // that overhangs M (an odd number of tile rows in clusters of 2) has a step whose m is tiles_m:
  // that CTA loads its share of B for its peer and computes nothing.
  // With split-K (k_splits > 1) the steps come range by range: every tile over range 0, then every
  // tile over range 1, ...; range[i] is step i's K range, of k_iters 64-deep slices.
  // With a split tail (kernels::gemm_plan), the first head_steps steps are whole waves of tiles over
  // all of K (range 0, the first launch), and the rest are the other tiles, range by range, as above
  // (the second launch's).
  std::vector<sched::TileIndex> steps;
  std::vector<uint32_t> range;
  uint32_t k_splits = 1, k_iters = 0, head_steps = 0;
  uint32_t output_steps() const { return head_steps + (static_cast<uint32_t>(steps.size()) - head_steps) / k_splits; }  // steps of one range
  std::string error;  // set when the configuration is refused (kernels::validate) or cannot be asked
  bool real(const sched::TileIndex& t) const { return t.m < static_cast<int>(tiles_m) && t.n < static_cast<int>(tiles_n); }
};
// `sms`: the SMs of the launch, for the K ranges split_k 0 and tail_split 0 pick (kernels::gemm_plan).
GemmTileOrder gemm_tile_order(const kernels::GemmShape& shape, const kernels::GemmConfig& cfg, int sms);

// Bytes one CTA asks L2 for per k-slice (one stage of its ring): an A slice per consumer and its
// share of the B slice (all of it without a cluster; 1/cluster of it, multicast into every CTA of
// the cluster, with one). bf16, from the kernel's own tile types; and how its epilogue stages C.
struct GemmStageBytes {
  uint32_t a = 0;        // the A slices of one CTA
  uint32_t b_slice = 0;  // the whole B slice each CTA's MMAs read
  uint32_t b_share = 0;  // the part of it this CTA loads from L2
  uint32_t cluster = 1;
  uint32_t block_k = 0;  // the depth of one k-slice (gemm::block_k: 128 bytes of K, 64 bf16 or 128 fp8)
  uint32_t store_cols = 0;  // columns of C each consumer's epilogue stages at a time (gemm::store_cols)
  bool whole_tile_staging = false;  // each consumer's whole part of C fits beside the stages (gemm::whole_tile_staging)
  uint32_t read() const { return a + b_share; }  // what one CTA reads from L2 per stage
  std::string error;
};
GemmStageBytes gemm_stage_bytes(const kernels::GemmConfig& cfg);

}  // namespace ts::viz
