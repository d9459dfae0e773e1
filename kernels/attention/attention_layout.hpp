#pragma once
// What the launchers, the host runner and the configuration checks agree on besides the kernel
// sources: the block sizes the dispatch picks, and where the backward's scratch lives. Plain C++.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/attention/attention_api.hpp"

namespace ts::kernels {

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The forward's defaults, measured on the H100: three consumer warpgroups everywhere (two lose 10-13 %
// without causal masks: data/measured/h100/attention/variants.txt), none overlapping its own P V.
// Self-overlap had been the default at D = 64 without masks (+6-7 % when it was chosen); re-measured
// on 2026-11-27 the plain loop is 1.4-6 % faster at every N from 1024 to 16384
// (data/measured/h100/attention/fwd-overlap-default.txt). Our reading: the plain loop's first P V of
// a tile now overwrites O (attention_fwd.cuh, `fresh`), while the self-overlapped one keeps the zero
// fill, which the compiler turns into selects in every iteration. At D = 128 self-overlap needs
// three stages, which fit beside two Q tiles only, and two consumers overlapping lose to three that
// do not (549 against 607 TFLOPS); with causal masks it measured 3-6 % slower.
constexpr int default_forward_consumers(int64_t) { return 3; }
constexpr bool default_forward_overlap(int64_t, bool) { return false; }
// A persistent forward (a block per SM; the kernel keeps two tile stages, so the next tile's Q loads
// while this tile computes) against a block per tile, H100, 2026-11-26
// (data/measured/h100/attention/fwd-persistent.txt): without masks +10-13 % at N 1024, +2-4 % at
// 4096, even at 16384. With causal masks the tiles differ in length, and a fixed stride over them
// lost up to 37 %: there the blocks run a schedule made before the launch (forward_schedule, the
// GPU's own longest-first balance decided in advance), +7-9 % at N 1024, +3-5 % at 4096, even at
// 16384 against a block per tile (H200: data/measured/h200/attention-causal-schedule.txt).
constexpr bool default_forward_persistent(bool) { return true; }
constexpr int64_t kBackwardKeysPerBlock = 128;

// Blocks of each launch (the launchers, the host runner and the configuration agree): the forward's
// query blocks, or at most one per SM when persistent; the backward's key blocks; and the
// backward's per-row passes (64-row tiles), persistent: at most one block per SM.
inline int64_t forward_tiles(const AttentionShape& s, const AttentionConfig& cfg) {  // cfg resolved
  return s.batch * s.heads_q * ceil_div(s.seq, 64 * cfg.consumers);
}
inline int64_t forward_blocks(const AttentionShape& s, const AttentionConfig& cfg, int sms) {
  const int64_t tiles = forward_tiles(s, cfg);
  return cfg.persistent && sms < tiles ? sms : tiles;
}
inline int64_t backward_blocks(const AttentionShape& s) { return s.batch * s.heads_kv * ceil_div(s.seq, kBackwardKeysPerBlock); }
inline int64_t backward_row_tiles(const AttentionShape& s) { return s.batch * s.heads_q * ceil_div(s.seq, 64); }
inline int64_t backward_row_blocks(const AttentionShape& s, int sms) { return std::min<int64_t>(backward_row_tiles(s), sms); }

// The backward's scratch: dQ summed in fp32 [B, H_q, N, D], then per query row (padded to 64)
// delta = rowsum(dO * O) and the log-sum-exp in base 2, each [B, H_q, padded N] fp32.
struct BackwardWorkspace {
  int64_t padded_seq;
  std::size_t dq_offset = 0, delta_offset, lse_offset, bytes;
  explicit BackwardWorkspace(const AttentionShape& s) : padded_seq(ceil_div(s.seq, 64) * 64) {
    const auto round = [](std::size_t x) { return (x + 255) / 256 * 256; };
    const std::size_t rows = static_cast<std::size_t>(s.batch * s.heads_q * padded_seq);
    delta_offset = round(static_cast<std::size_t>(s.batch * s.heads_q * s.seq * s.dim) * sizeof(float));
    lse_offset = delta_offset + round(rows * sizeof(float));
    bytes = lse_offset + round(rows * sizeof(float));
  }
};

}  // namespace ts::kernels
