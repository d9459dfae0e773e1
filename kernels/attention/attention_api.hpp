#pragma once
// Attention as the rest of TileScope sees it (plain C++, no CUDA headers): shapes and validation
// (attention_config.cpp), the device entry points (attention_launch.cu) and the CPU runners of the
// same kernel source (attention_host.cpp).
//
// Layouts, all row-major and contiguous: Q, O, dQ, dO are [B, H_q, N, D] bf16; K, V, dK, dV are
// [B, H_kv, N, D] bf16 (grouped-query attention: query head h reads key/value head h / (H_q / H_kv));
// the log-sum-exp is [B, H_q, N] fp32, natural log of sum_j exp(scale q.k_j), as PyTorch's SDPA and
// FlashAttention return it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/gemm/gemm_api.hpp"  // BlockClock

namespace ts::kernels {

struct AttentionShape {
  int64_t batch = 1, heads_q = 1, heads_kv = 1, seq = 1, dim = 64;
  bool causal = false;
  float scale = 0.f;  // softmax scale; 0 means 1 / sqrt(dim)
};

// Knobs of the forward, for measuring them; 0 picks the default for the head dimension
// (attention_layout.hpp says which and why).
struct AttentionConfig {
  int consumers = 0;    // consumer warpgroups of 64 query rows: 2 or 3
  int overlap = -1;     // 1: each warpgroup overlaps its softmax with its own previous P V; 0: not; -1: default
  int persistent = -1;  // 1: a block per SM (at most), each running tile after tile while the next
                        // tile's Q loads; 0: a block per tile; -1: default
};

// Empty when the shape can run; else a one-line reason (dim not 64/128, heads_q not a multiple of
// heads_kv, non-positive sizes, ...). Any seq >= 1 runs: tails are masked.
std::string validate(const AttentionShape& s);
// A short name for logs and NVTX ranges: "attention B1 Hq16 Hkv16 N4096 D128 causal".
std::string describe(const AttentionShape& s);
// The softmax scale in use (s.scale, or 1 / sqrt(dim) when it is 0).
float softmax_scale(const AttentionShape& s);
// Matmul FLOPs of the forward (4 B H_q N^2 D, halved when causal), as FlashAttention counts them;
// the backward counts 2.5 times that.
double attention_flops(const AttentionShape& s, bool backward);

// Device pointers. Each throws std::invalid_argument when validate() refuses or a pointer is not
// 16-byte aligned, std::runtime_error with the CUDA error when a launch fails. `stream` is a
// cudaStream_t. With `block_clocks` (a device array of attention_grid_blocks() entries), every block
// of the main kernel records its BlockClock.
void attention_forward(const void* q, const void* k, const void* v, void* o, float* lse, const AttentionShape& s,
                       void* stream, BlockClock* block_clocks = nullptr, const AttentionConfig& cfg = {});

// Scratch the backward needs (fp32 dQ accumulator and the row sums of dO * O), in bytes. Its content
// on entry does not matter: the backward's first launch writes all of it that the others read.
std::size_t attention_backward_workspace_bytes(const AttentionShape& s);
void attention_backward(const void* q, const void* k, const void* v, const void* o, const void* d_o, const float* lse,
                        void* dq, void* dk, void* dv, void* workspace, const AttentionShape& s, void* stream,
                        BlockClock* block_clocks = nullptr);

// Blocks of the main kernel of the forward (backward = false) or backward pass on a GPU of `sms` SMs.
int attention_grid_blocks(const AttentionShape& s, bool backward, const AttentionConfig& cfg, int sms);
// The forward knobs in use (defaults resolved), and an error for ones that cannot run.
AttentionConfig resolve(const AttentionShape& s, const AttentionConfig& cfg);

}  // namespace ts::kernels
