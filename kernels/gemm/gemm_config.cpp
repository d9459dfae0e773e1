// GEMM configuration checks and names: plain C++, shared by the device launcher and the host runner.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/gemm/gemm_api.hpp"

namespace ts::kernels {

std::string validate(const GemmShape& s, const GemmConfig& cfg) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0) return "M, N and K must be positive";
  if (s.m > (1ll << 31) || s.n > (1ll << 31) || s.k > (1ll << 31)) return "M, N and K must be below 2^31";
  if (cfg.stages < 1 || cfg.stages > 4) return "stages must be 1..4, got " + std::to_string(cfg.stages);
  if (cfg.block_n != 128 && cfg.block_n != 256) return "block_n must be 128 or 256, got " + std::to_string(cfg.block_n);
  if (cfg.consumers != 1 && cfg.consumers != 2) return "consumers must be 1 or 2, got " + std::to_string(cfg.consumers);
  if (cfg.cluster != 1 && cfg.cluster != 2) return "cluster must be 1 or 2, got " + std::to_string(cfg.cluster);
  if (cfg.cluster == 2 && (cfg.consumers != 2 || cfg.stages < 2))
    return "a cluster of 2 needs 2 consumers and 2..4 stages";
  if (cfg.split_k < 0 || cfg.split_k > 64) return "split_k must be 1..64 (or 0: chosen per shape), got " + std::to_string(cfg.split_k);
  if (cfg.tail_split < 0 || cfg.tail_split > 16) return "tail_split must be 1..16 (or 0: chosen per shape), got " + std::to_string(cfg.tail_split);
  if (cfg.tail_split > 1 && (cfg.cluster != 1 || !cfg.persistent)) return "tail_split needs the persistent grid without clusters";
  if (cfg.in == InType::fp8) {
    if (cfg.b_row_major) return "fp8 needs B as N x K (column-major B): wgmma reads fp8 operands K-major only";
    if (cfg.block_n != 256 || cfg.consumers != 2 || cfg.stages < 2)
      return "fp8 runs with 128x256 tiles (block_n 256, 2 consumers) and 2..4 stages";
    if (s.k % 16 != 0) return "fp8 K must be a multiple of 16 (TMA rows are 16-byte multiples), got " + std::to_string(s.k);
    if (!std::isfinite(cfg.scale_a) || !std::isfinite(cfg.scale_b)) return "fp8 scales must be finite";
  } else if (cfg.scale_a != 1 || cfg.scale_b != 1) {
    return "scales apply to fp8 inputs only";
  }
  if (s.k % 8 != 0) return "K must be a multiple of 8 (TMA rows are 16-byte multiples), got " + std::to_string(s.k);
  if (s.n % 8 != 0) return "N must be a multiple of 8 (TMA rows are 16-byte multiples), got " + std::to_string(s.n);
  if (cfg.order.order == sched::Order::grouped && cfg.order.group <= 0) return "group size must be positive";
  return {};
}

int gemm_k_splits(const GemmShape& s, const GemmConfig& cfg, int sms) {
  const int64_t block_m = 64 * cfg.consumers, block_k = gemm_block_k(cfg), slices = (s.k + block_k - 1) / block_k;
  const int64_t tiles = (s.m + block_m - 1) / block_m * ((s.n + cfg.block_n - 1) / cfg.block_n);
  int64_t split = cfg.split_k;
  // Ranges at least 1024 (bf16) or 2048 (fp8) deep: 16 slices, the same bytes of A and B.
  if (split == 0) split = 2 * tiles > sms ? 1 : std::clamp<int64_t>(std::min(sms / tiles, slices / 16), 1, 16);
  const int64_t per_range = (slices + split - 1) / split;
  return static_cast<int>((slices + per_range - 1) / per_range);
}

GemmConfig with_k_splits(const GemmShape& s, GemmConfig cfg, int sms) {
  cfg.split_k = gemm_k_splits(s, cfg, sms);
  return cfg;
}

GemmPlan gemm_plan(const GemmShape& s, const GemmConfig& cfg, int sms) {
  const int64_t block_m = 64 * cfg.consumers, tiles_m = (s.m + block_m - 1) / block_m;
  const int64_t block_k = gemm_block_k(cfg), slices = (s.k + block_k - 1) / block_k;
  GemmPlan plan;
  plan.tiles = static_cast<int>((tiles_m + cfg.cluster - 1) / cfg.cluster * cfg.cluster * ((s.n + cfg.block_n - 1) / cfg.block_n));
  plan.head_tiles = plan.tiles;
  if (const int all = gemm_k_splits(s, cfg, sms); all > 1) return {plan.tiles, 0, all};
  // Persistent grids without clusters only: with clusters, fewer CTAs than SMs may be resident.
  const int64_t wave = cfg.persistent && cfg.cluster == 1 ? sms : 0;
  if (cfg.tail_split == 1 || wave <= 0 || plan.tiles <= wave) return plan;  // one wave or less: split_k's case
  const int64_t tail = plan.tiles % wave;
  int64_t split = cfg.tail_split;
  // Chosen: the split saves (1 - 1/ranges) of a tile's time, which grows with K, and costs about
  // the same at any K (the head's last epilogues before the tail launch starts, the fp32 partial
  // tiles, the sum): on the H200 it lost 1.6 % at K 4096 (12288 x 8192, 36 tiles left), won 15 %
  // at K 8192 (3072^2, 24 left) and 0.8-1.0 % at 16384^3 (data/measured/h200/gemm-tail.txt). So only
  // from 128 slices of K (8192 bf16) up, and only where the tail fills at most half a wave.
  if (split == 0)
    split = 2 * tail > wave || slices < 128 ? 1 : std::clamp<int64_t>(std::min(wave / std::max<int64_t>(tail, 1), slices / 16), 1, 16);
  const int64_t per_range = (slices + split - 1) / split;
  split = (slices + per_range - 1) / per_range;  // no empty range
  if (tail == 0 || split < 2) return plan;
  return {plan.tiles, static_cast<int>(plan.tiles - tail), static_cast<int>(split)};
}

int gemm_launch_grid(int64_t items, const GemmConfig& cfg, int sms) {
  if (!cfg.persistent) return static_cast<int>(items);
  return static_cast<int>(std::min<int64_t>(items, sms / cfg.cluster * cfg.cluster));
}

int gemm_grid_blocks(const GemmShape& s, const GemmConfig& cfg, int sms) {
  const GemmPlan p = gemm_plan(s, cfg, sms);
  return gemm_launch_grid(p.head_tiles > 0 ? p.head_tiles : int64_t{p.tiles} * p.splits, cfg, sms);
}

std::string describe(const GemmConfig& cfg) {
  std::string order = sched::order_name(cfg.order.order);
  if (cfg.order.order == sched::Order::grouped) order += ":" + std::to_string(cfg.order.group);
  return std::string(cfg.in == InType::fp8 ? "fp8 " : "") + "tile " + std::to_string(64 * cfg.consumers) + "x" + std::to_string(cfg.block_n) + "x" + std::to_string(gemm_block_k(cfg)) + " stages " + std::to_string(cfg.stages) + " order " + order +
         (cfg.persistent ? " persistent" : " non-persistent") +
         (cfg.cluster > 1 ? " cluster " + std::to_string(cfg.cluster) : std::string()) +
         (cfg.split_k > 1 ? " split-k " + std::to_string(cfg.split_k) : std::string()) +
         (cfg.tail_split > 1 ? " tail-split " + std::to_string(cfg.tail_split) : std::string()) + (cfg.b_row_major ? " B row-major" : " B col-major") +
         (cfg.out == OutType::bf16 ? " C bf16" : " C fp32");
}

}  // namespace ts::kernels
