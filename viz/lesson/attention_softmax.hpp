#pragma once
// What the online-softmax scene shows: a small attention (4 query rows of head dimension 16, 8
// key blocks of 16 keys) folded block by block with the register-tile ops of
// kernels/attention/attention_fwd.cuh's compute(), in the same order, on the host backend
// (tiles/ops/: row_max, sub, mul, exp2, exp2_row, row_sum, mul_row, the warp MMAs for Q K^T and
// P V): the running max, the running sum and the rescale factor after each block, and the exact
// softmax (in double) that the result converges to.
#include <array>
#include <cstdint>
#include <string>

#include "viz/lesson/scenes.hpp"  // KeyTrend: random, or each block's keys scaled up (new maxima, rescales below 1)

namespace ts::viz {

inline constexpr int kSoftmaxRows = 4;     // query rows shown (the tile has 16; the rest are computed alike)
inline constexpr int kSoftmaxBlocks = 8;   // key blocks
inline constexpr int kSoftmaxKeys = 16;    // keys per block (the smallest register tile's width)
inline constexpr int kSoftmaxDim = 16;     // head dimension
inline constexpr int kSoftmaxAllKeys = kSoftmaxBlocks * kSoftmaxKeys;


struct SoftmaxStep {  // the state after folding one key block, per row
  std::array<std::array<float, kSoftmaxKeys>, kSoftmaxRows> scores{};  // S = Q K^T of this block (unscaled)
  std::array<std::array<float, kSoftmaxKeys>, kSoftmaxRows> p{};       // 2^(S scale log2e - m scale log2e), fp32
  std::array<float, kSoftmaxRows> max_before{}, block_max{}, max_after{};  // running max of the unscaled scores
  std::array<float, kSoftmaxRows> rescale{};  // 2^((max_before - max_after) scale log2e): applied to sum and O
  std::array<float, kSoftmaxRows> sum{};      // running sum of exponentials, after this block
  std::array<std::array<float, kSoftmaxDim>, kSoftmaxRows> o{};  // the accumulator (unnormalised), after it
};

struct SoftmaxModel {
  float scale = 0;       // softmax scale 1 / sqrt(dim)
  float scale_log2 = 0;  // scale log2(e), as the kernel's globals hold it
  std::array<SoftmaxStep, kSoftmaxBlocks> steps{};
  // After the last block: O / sum (div_row) and the log-sum-exp max scale + ln(sum), as store() writes.
  std::array<std::array<float, kSoftmaxDim>, kSoftmaxRows> out{};
  std::array<float, kSoftmaxRows> lse{};
  // The exact softmax over all 128 keys, in double from the same bf16 inputs.
  std::array<std::array<double, kSoftmaxAllKeys>, kSoftmaxRows> exact_p{};
  std::array<std::array<double, kSoftmaxDim>, kSoftmaxRows> exact_out{};
  std::array<double, kSoftmaxRows> exact_lse{}, exact_max{};
  std::string error;  // a build without the host backend cannot run the ops

  // The probability of key j in row r as the state after `blocks` folded blocks estimates it
  // (keys not yet seen: 0): p_j / sum with both relative to the running max then.
  double estimate(int r, int j, int blocks) const;
};

SoftmaxModel softmax_model(uint32_t seed, KeyTrend trend);

// The factor the kernel applies to a row's sum and accumulator when its running maximum `old_max`
// meets a block whose largest score is `block_max`: the same ops as compute() (row_max with the old
// maximum, sub, mul by scale log2 e, exp2) on a register tile. 0 in a build without the host backend.
float rescale_factor(float old_max, float block_max, float scale);

}  // namespace ts::viz
