#pragma once
// The GEMM as the rest of TileScope sees it (plain C++, no CUDA headers): configuration and
// validation (gemm_config.cpp), and the device launch entry point (gemm_launch.cu). The CPU
// runner of the same kernel source is in gemm_host.hpp.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tiles/sched/block_order.hpp"

namespace ts::kernels {

enum class OutType { bf16, fp32 };
// The element type of A and B: bf16, or FP8 E4M3 (fp32 accumulation, per-tensor scales).
enum class InType { bf16, fp8 };

struct GemmConfig {
  // 1..4. Three by default: they leave room to stage each consumer's whole part of C at once
  // (gemm.cuh whole_tile_staging), which beat four stages with C in chunks on the H100 on every
  // skinny-K and non-square row and at 16384^3 (data/measured/h100/gemm-epilogue.txt). Not
  // everywhere: one consumer (whose 4 stages already stage C whole) and the col-major order ran
  // slower with 3 (gemm-2026-12-06.json, gemm-holdout-2026-12-06.json): give those 4.
  int stages = 3;
  int block_n = 256;     // 128 or 256
  int consumers = 2;     // consumer warpgroups of 64 rows each (1 or 2): block_m = 64 * consumers
  int cluster = 1;       // CTAs per cluster along M (1 or 2), sharing each B slice by TMA multicast
  bool persistent = true;
  sched::OrderSpec order{sched::Order::grouped, 8};
  bool b_row_major = true;  // B stored K x N (row-major) or N x K ("column-major" B)
  OutType out = OutType::bf16;
  InType in = InType::bf16;
  // FP8 only: per-tensor dequantization scales, C = scale_a scale_b (A B), applied to the fp32
  // accumulators before C is rounded (cuBLASLt keeps them in its matmul descriptor too).
  float scale_a = 1, scale_b = 1;
  // Split-K: K cut into this many ranges (1..64); each block stores its range's part of a tile in
  // fp32 to a workspace, and one more pass sums the ranges into C (in range order: deterministic).
  // For shapes with fewer tiles than SMs and a long K. 0: chosen per shape (gemm_k_splits).
  int split_k = 0;
  // The last wave: where the tiles fill a whole number of waves of the grid and then part of one,
  // that part leaves most SMs idle for a tile's time. With tail_split > 1 the tiles of whole waves
  // run first over all of K, then the rest in this many K ranges (2..16), summed into C as
  // split-K's are. 1: never. 0: chosen per shape (gemm_plan). Not with split_k > 1 (all tiles split).
  int tail_split = 0;
};

struct GemmShape {
  int64_t m, n, k;
};

// Empty when the shape and config can run; else a one-line reason. Shapes that are not a multiple
// of the tile are handled (TMA zero-fills loads and clips stores); rows must be 16-byte multiples.
std::string validate(const GemmShape& shape, const GemmConfig& cfg);

std::string describe(const GemmConfig& cfg);

// The depth of one k-slice: 128 bytes of K, 64 bf16 or 128 fp8 elements.
inline int gemm_block_k(const GemmConfig& cfg) { return cfg.in == InType::fp8 ? 128 : 64; }

// The K ranges a launch on `sms` SMs really has: split_k, fewer where ranges of whole k-slices
// would leave one empty (bf16 K = 256 in 3 ranges is 2 ranges of 2 slices). split_k 0 splits
// only where the output tiles leave half the SMs or more idle: as many ranges as the idle SMs
// fill, each at least 1024 deep, at most 16 (the H100's sweep, data/measured/h100/gemm-splitk.txt).
int gemm_k_splits(const GemmShape& shape, const GemmConfig& cfg, int sms);
// cfg with split_k set to the ranges the launch really has: what the launchers dispatch on.
GemmConfig with_k_splits(const GemmShape& shape, GemmConfig cfg, int sms);

// How a launch on `sms` SMs (resident blocks) covers the output tiles, in block order: the first
// `head_tiles` over all of K into C, the other `tiles - head_tiles` in `splits` K ranges into an
// fp32 workspace, then summed into C. split_k > 1 splits all tiles (head_tiles 0); else, with
// tail_split 0, the tiles past the last whole wave are split when they fill at most half of one
// and K is at least 128 slices deep (8192 bf16, 16384 fp8): into as many ranges as fill the SMs,
// each at least 1024 deep (2048 fp8), at most 16. Whole clusters throughout.
struct GemmPlan {
  int tiles = 0, head_tiles = 0, splits = 1;
  int tail_tiles() const { return tiles - head_tiles; }
};
GemmPlan gemm_plan(const GemmShape& shape, const GemmConfig& cfg, int sms);
// cfg with split_k and tail_split set to the ranges its launches run under `plan` (what tables,
// files and profiler ranges name; a launch of it runs the same plan).
inline GemmConfig with_plan(GemmConfig cfg, const GemmPlan& plan) {
  cfg.split_k = plan.head_tiles == 0 ? plan.splits : 1;
  cfg.tail_split = plan.head_tiles > 0 && plan.splits > 1 ? plan.splits : 1;
  return cfg;
}
// The fp32 workspace the split tiles of a plan write: each K range's part of each tile.
inline size_t gemm_workspace_bytes(const GemmPlan& p, const GemmConfig& cfg) {
  return p.splits > 1 ? size_t(p.tail_tiles()) * size_t(64 * cfg.consumers) * size_t(cfg.block_n) * size_t(p.splits) * sizeof(float) : 0;
}

// The names of a plan's launches after the first (with_launches, the traces' TracedLaunch::name,
// profiler ranges): a split tail's GEMM launch, and the sum of the K ranges into C.
inline constexpr const char* kGemmTailLaunch = "gemm tail";
inline constexpr const char* kGemmSumLaunch = "split-K sum";

// Blocks of a launch with `items` work items (tiles, or tiles x K ranges) on `sms` SMs: one per
// item, or one per SM (at most) when persistent; whole clusters. With clusters, `sms` is how many
// CTAs can be resident at once in whole clusters (the device launcher asks the driver: not every
// SM of an H100 can pair up).
int gemm_launch_grid(int64_t items, const GemmConfig& cfg, int sms);
// The blocks of a GEMM's first launch (the head, or the split tiles when all are split).
int gemm_grid_blocks(const GemmShape& shape, const GemmConfig& cfg, int sms);

// gemm_grid_blocks() on the current GPU, as launch_gemm sizes its grid (device builds only).
int gemm_launch_blocks(const GemmShape& shape, const GemmConfig& cfg);

// What one block of a launch saw: SM clock cycles and global-timer nanoseconds from its start to
// its end (their ratio is the SM clock while it ran).
struct BlockClock {
  unsigned long long cycles, ns;
};

// Device pointers: a (M x K row-major), b (K x N or N x K), both bf16 or both fp8 e4m3 (cfg.in;
// fp8 needs B as N x K), c (M x N, bf16 or fp32).
// Throws std::runtime_error with the CUDA error on a failed launch; std::invalid_argument when
// validate() refuses. `stream` is a cudaStream_t. With `block_clocks` (a device array of
// gemm_grid_blocks() entries) every block records its BlockClock.
void launch_gemm(const void* a, const void* b, void* c, const GemmShape& shape, const GemmConfig& cfg, void* stream,
                 BlockClock* block_clocks = nullptr);

}  // namespace ts::kernels
