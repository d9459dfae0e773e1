#pragma once
// What the launchers, the host runner and the configuration checks agree on besides the kernel
// sources: the block sizes the dispatch picks, and where the backward's scratch lives. Plain C++.
#include <cstddef>
#include <cstdint>

#include "kernels/attention/attention_api.hpp"

namespace ts::kernels {

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Consumer warpgroups of the forward (64 query rows each).
constexpr int forward_consumers(int64_t) { return 3; }
constexpr int64_t forward_rows_per_block(int64_t dim) { return 64 * forward_consumers(dim); }
constexpr int64_t kBackwardKeysPerBlock = 128;

// Blocks of each launch, one per tile (the launchers, the host runner and the configuration agree):
// the forward's query blocks, the backward's key blocks, and the backward's per-row passes (64 rows).
inline int64_t forward_blocks(const AttentionShape& s) { return s.batch * s.heads_q * ceil_div(s.seq, forward_rows_per_block(s.dim)); }
inline int64_t backward_blocks(const AttentionShape& s) { return s.batch * s.heads_kv * ceil_div(s.seq, kBackwardKeysPerBlock); }
inline int64_t backward_row_blocks(const AttentionShape& s) { return s.batch * s.heads_q * ceil_div(s.seq, 64); }

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
